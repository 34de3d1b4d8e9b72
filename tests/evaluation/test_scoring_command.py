"""`evaluate_release` on responses produced elsewhere: both file formats, hidden test labels
from the organisers' file, the per-record lines, and every breakdown against a hand count."""

from __future__ import annotations

import json
import random

import pytest
from django.core.management import CommandError, call_command

from evaluation.release import load_part
from evaluation.scoring import breakdowns, score
from tests.evaluation.builders import write_small_release

pytestmark = pytest.mark.django_db

# request_id → response for the validation part (ids 1–8; 6 has none). Gold labels: odd ids
# entailed, even refuted; subsets direct (1, 2), parallel (3, 4), sequential (5, 6),
# analytical (7, 8); subfields cs.CL (1, 2, 7, 8), cs.CV (3–6); evidence pieces 1 (1, 2),
# 3 (3, 4), 5 (5, 6), 2 (7, 8).
RESPONSES = {
    1: "Step 1: Table 2 gives 45.2.\nAnswer: yes",  # right; SciVer right
    2: "The claim is refuted: the naive Bayes row is higher.",  # right; SciVer: "Bayes" → wrong
    3: "Entailed.",  # right; SciVer: no "yes" → wrong
    4: "Answer: yes",  # wrong both ways
    5: "",  # no answer; SciVer: empty → wrong
    7: "I cannot determine whether the claim holds from the chart.",  # no answer; SciVer wrong
    8: "No.",  # right both ways
}
# The hand count: (n, correct, unanswered, SciVer-correct) per cell.
EXPECTED = {
    "overall": {"all": (8, 4, 3, 2)},
    "subset": {
        "direct": (2, 2, 0, 1),
        "parallel": (2, 1, 0, 0),
        "sequential": (2, 0, 2, 0),
        "analytical": (2, 1, 1, 1),
    },
    "subfield": {"cs.CL": (4, 3, 1, 2), "cs.CV": (4, 1, 2, 0)},
    "label": {"entailed": (4, 2, 2, 1), "refuted": (4, 2, 1, 1)},
    "evidence": {
        "one": (2, 2, 0, 1),
        "two": (2, 1, 1, 1),
        "three": (2, 1, 0, 0),
        "more than three": (2, 0, 2, 0),
    },
}


def _jsonl(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture
def release(tmp_path):
    return write_small_release(tmp_path, hide_test_labels=True, seed=2)


def test_breakdowns_match_a_hand_count(release, tmp_path, capsys):
    responses = tmp_path / "responses.jsonl"
    _jsonl(responses, [{"request_id": k, "response": v} for k, v in RESPONSES.items()])
    out, summary = tmp_path / "scored.jsonl", tmp_path / "summary.json"
    call_command(
        "evaluate_release",
        str(release),
        "--part",
        "validation",
        "--responses",
        str(responses),
        "--out",
        str(out),
        "--summary",
        str(summary),
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["request_id"] for line in lines] == list(range(1, 9))
    by_id = {line["request_id"]: line for line in lines}
    assert by_id[2] == {
        "request_id": 2,
        "response": RESPONSES[2],
        "parsed": "refuted",
        "correct": True,
        "official_correct": False,
    }
    assert by_id[6] == {
        "request_id": 6,
        "response": None,
        "parsed": None,
        "correct": False,
        "official_correct": False,
    }
    assert by_id[7]["parsed"] is None and by_id[7]["correct"] is False
    cells = json.loads(summary.read_text())["breakdowns"]
    got = {
        g: {c["key"]: (c["n"], c["correct"], c["unanswered"], c["official"]) for c in cs}
        for g, cs in cells.items()
    }
    assert got == EXPECTED
    overall = cells["overall"][0]
    assert overall["accuracy"] == 0.5 and overall["official_accuracy"] == 0.25
    assert cells["subset"][0]["low"] == cells["subset"][0]["high"] == 1.0  # direct: 2 of 2
    assert cells["subset"][2]["low"] == cells["subset"][2]["high"] == 0.0  # sequential: 0 of 2
    printed = capsys.readouterr().out
    assert "accuracy by our reading 50.0 %" in printed and "by SciVer's rule 25.0 %" in printed
    assert "By number of evidence pieces (SciVer Figure 4)" in printed
    assert "more than three" in printed and "chance %" in printed


def test_the_bootstrap_interval_is_a_resampling_of_the_outcomes(release):
    part = load_part(release, "validation")
    outcomes = score(part.items, RESPONSES)
    cell = breakdowns(outcomes, seed=7)["overall"][0]
    again = breakdowns(outcomes, seed=7)["overall"][0]
    assert (cell.low, cell.high) == (again.low, again.high)
    # By hand: resample the 8 outcomes with replacement 4000 times, take the 2.5 and 97.5 %.
    rng = random.Random(1)
    right = [o.correct for o in outcomes]
    means = sorted(sum(rng.choices(right, k=8)) / 8 for _ in range(4000))
    assert abs(cell.low - means[100]) <= 1 / 8 and abs(cell.high - means[3899]) <= 1 / 8
    assert cell.low < 0.5 < cell.high


def test_sciver_output_files_score_the_hidden_test_part_from_the_labels_file(release, tmp_path):
    records = json.loads((release / "testset.json").read_text())
    assert "label" not in records[0]
    labels = json.loads((tmp_path / "SciVer.labels.json").read_text())["labels"]
    # SciVer's main.py writes the records back with a response each: all right but one.
    for n, record in enumerate(records):
        truth = labels[str(record["request_id"])]
        record["response"] = ("Answer: yes" if truth else "Answer: no") if n else "Unsure."
    responses = tmp_path / "gpt-4o_testset.json"
    responses.write_text(json.dumps(records))
    out = tmp_path / "test.jsonl"
    call_command(
        "evaluate_release",
        str(release),
        "--part",
        "test",
        "--responses",
        str(responses),
        "--out",
        str(out),
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 8 and sum(line["correct"] for line in lines) == 7
    assert [line["parsed"] for line in lines].count(None) == 1
    (tmp_path / "SciVer.labels.json").rename(tmp_path / "elsewhere.json")
    with pytest.raises(CommandError, match="labels file"):
        call_command(
            "evaluate_release",
            str(release),
            "--part",
            "test",
            "--responses",
            str(responses),
            "--out",
            str(out),
        )
    call_command(
        "evaluate_release",
        str(release),
        "--part",
        "test",
        "--responses",
        str(responses),
        "--out",
        str(out),
        "--labels",
        str(tmp_path / "elsewhere.json"),
    )


@pytest.mark.parametrize(
    "rows, message",
    [
        ([{"request_id": 99, "response": "yes"}], "not in this part"),
        (
            [{"request_id": 1, "response": "yes"}, {"request_id": 1, "response": "no"}],
            "second response",
        ),
        ([{"request_id": "1", "response": "yes"}], "not an integer"),
        ([{"request_id": 1, "response": 3}], "should be a string"),
        ([{"request_id": 1, "claim": "Another claim.", "response": "yes"}], "another release"),
    ],
)
def test_bad_responses_are_refused_and_nothing_is_written(release, tmp_path, rows, message):
    responses, out = tmp_path / "r.jsonl", tmp_path / "out.jsonl"
    _jsonl(responses, rows)
    with pytest.raises(CommandError, match=message):
        call_command(
            "evaluate_release",
            str(release),
            "--part",
            "validation",
            "--responses",
            str(responses),
            "--out",
            str(out),
        )
    assert not out.exists()


def test_an_unreadable_line_is_named(release, tmp_path):
    responses = tmp_path / "r.jsonl"
    responses.write_text('{"request_id": 1, "response": "yes"}\n{oops\n')
    with pytest.raises(CommandError, match=r"r.jsonl:2 is not a JSON object"):
        call_command(
            "evaluate_release",
            str(release),
            "--part",
            "validation",
            "--responses",
            str(responses),
            "--out",
            str(tmp_path / "o.jsonl"),
        )


def test_a_records_subfield_longer_than_its_column_refuses_the_run_never_cut(release):
    """A release record whose subfield does not fit the outcome's column (32 characters) is not
    cut to fit: `record_run` refuses the whole run, naming the record; at the limit, whole."""
    import dataclasses

    from evaluation import services
    from evaluation.models import EvaluationRun, RecordOutcome

    evaluation = services.evaluate(load_part(release, "validation"), dict(RESPONSES))
    first = evaluation.outcomes[0]
    odd = dataclasses.replace(first, subfield="x" * (services.MAX_SUBFIELD + 1))
    evaluation.outcomes[0] = odd
    with pytest.raises(services.EvaluationRefused) as refused:
        services.record_run(evaluation=evaluation, model="m", source="responses")
    assert str(refused.value) == (
        f"Nothing was recorded: 1 record(s) of {evaluation.part.name} name a subfield longer "
        f"than 32 characters (first: record {odd.request_id}, 33 characters): not a subfield "
        "code."
    )
    assert not EvaluationRun.objects.exists()
    evaluation.outcomes[0] = dataclasses.replace(first, subfield="x" * services.MAX_SUBFIELD)
    run = services.record_run(evaluation=evaluation, model="m", source="responses")
    assert RecordOutcome.objects.get(run=run, request_id=first.request_id).subfield == "x" * 32


def test_a_recorded_runs_model_name_over_the_limit_is_refused_never_cut(release, tmp_path):
    """`--save` with a model name longer than a run holds: the command says so before it scores
    or writes anything; `record_run` itself refuses it (from a script); at the limit, whole."""
    from evaluation import services
    from evaluation.models import EvaluationRun

    responses, out = tmp_path / "r.jsonl", tmp_path / "out.jsonl"
    _jsonl(responses, [{"request_id": k, "response": v} for k, v in RESPONSES.items()])
    long, at_limit = "m" * (services.MAX_MODEL + 1), "m" * services.MAX_MODEL
    said = "model: longer than 200 characters (it has 201); shorten it."
    with pytest.raises(CommandError) as refused:
        call_command(
            "evaluate_release",
            str(release),
            "--part",
            "validation",
            "--responses",
            str(responses),
            "--out",
            str(out),
            "--model",
            long,
            "--save",
        )
    assert said in str(refused.value) and not out.exists()
    evaluation = services.evaluate(load_part(release, "validation"), dict(RESPONSES))
    with pytest.raises(services.EvaluationRefused) as refused:
        services.record_run(evaluation=evaluation, model=long, source="responses")
    assert str(refused.value) == f"Nothing was recorded: {said}"
    assert not EvaluationRun.objects.exists()
    call_command(
        "evaluate_release",
        str(release),
        "--part",
        "validation",
        "--responses",
        str(responses),
        "--out",
        str(out),
        "--model",
        at_limit,
        "--save",
    )
    assert EvaluationRun.objects.get().model == at_limit
