"""The annotation-artifact audit (validation/audit/, issue 43): a claim-only baseline beats
chance on claims whose refuted rewrites are negations and not on value-only rewrites;
check_release warns with the cue words; a small pool gets the size it needs; audit_release
scores hidden test labels given with --labels; the statistics page shows the pool's audit."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from tests.validation.artifact_records import SUBSETS, planted, statements
from tests.validation.releases import _element, _pair, _paper, run
from validation.audit import artifact_warnings, audit, card_lines, report_lines, wilson
from validation.release import Release, write_release
from validation.release.writer import labels_path
from validation.release_check import inspect_release

# --- The pure audit --------------------------------------------------------------------------


def test_negation_rewrites_give_a_claim_only_baseline_far_above_chance():
    result = audit(planted(210, negation=True))
    baseline = result.baseline
    assert baseline.method == "trained on validation, scored on test"
    assert baseline.overall is not None and baseline.overall.total == 280
    assert baseline.margin is not None and baseline.margin > 10
    assert result.beats_chance(10)
    assert set(baseline.by_subset) == set(SUBSETS)
    assert set(baseline.by_subfield) == {"cs.CL", "cs.CV"}
    refuted_cues = [c.word for c in result.cues[False]]
    assert "not" in refuted_cues and "does" in refuted_cues
    assert all(c.claims >= 5 and c.with_label == c.claims for c in result.cues[False][:2])
    negation_rule = result.rules[0]
    assert negation_rule.score is not None and negation_rule.score.accuracy == 1.0
    assert result.pairs["all"].pairs == 210 and result.pairs["all"].negation == 210
    assert result.writers["w1"].negation_share == 1.0
    text = "\n".join(report_lines(result))
    assert "trained on validation, scored on test" in text and "'not'" in text
    card = "\n".join(card_lines(result))
    assert "## Annotation artifacts" in card and "'not'" in card and "chance 50.0 %" in card


def test_value_only_rewrites_stay_near_chance_and_raise_no_warning():
    records = planted(210, negation=False)
    result = audit(records)
    assert result.baseline.overall is not None
    assert not result.beats_chance(10)
    assert result.pairs["all"].negation == 0 and result.pairs["all"].antonym == 0
    assert result.rules[0].score is not None and result.rules[0].score.accuracy == 0.5
    assert artifact_warnings(records) == []


def test_cross_validation_on_a_pool():
    records = planted(200, negation=True)
    for record in records:
        record["part"] = "pool"
    result = audit(records)
    assert result.baseline.method.startswith("5-fold cross-validation")
    assert result.baseline.overall is not None and result.baseline.overall.total == 400
    assert result.beats_chance(10)


def test_a_small_pool_gets_the_size_it_needs_instead_of_a_number():
    records = planted(12, negation=True)
    for record in records:
        record["part"] = "pool"
    result = audit(records)
    assert result.baseline.overall is None
    assert result.baseline.needed is not None
    assert "need at least 40 labelled claims with 10 of each label (has 24" in (
        result.baseline.needed
    )
    assert "no score" in "\n".join(report_lines(result))
    assert artifact_warnings(records) == []


def test_near_duplicates_inside_a_part_leave_a_pairs_own_claims_aside():
    records = planted(40, negation=False)
    assert all(count == 0 for count, _ in audit(records).duplicates.values())
    copy = dict(records[0], id=999, origin_statement="other", perturbed_statement="other too")
    count, examples = audit([*records, copy]).duplicates[records[0]["part"]]
    # The copy repeats the entailed claim exactly and is a near duplicate of its rewrite.
    assert count == 2 and sorted(e[2] for e in examples)[-1] == 1.0


def test_wilson_interval():
    low, high = wilson(50, 100)
    assert round(low, 3) == 0.404 and round(high, 3) == 0.596
    assert wilson(0, 0) == (0.0, 0.0)


# --- Releases: check_release and audit_release ------------------------------------------------


def _planted_release(pairs: int, *, negation: bool, hide: bool) -> Release:
    a, b = "2409.00001", "2410.00002"
    table_a, chart_a = _element(a, "table", "2"), _element(a, "chart", "3")
    table_b, chart_b = _element(b, "table", "2"), _element(b, "chart", "3")
    rng = random.Random(7)
    parts: dict[str, list] = {"validation": [], "test": []}
    for i in range(pairs):
        part = "validation" if i < pairs // 2 else "test"
        paperid, table, chart = (
            (a, table_a, chart_a) if part == "validation" else (b, table_b, chart_b)
        )
        subset = SUBSETS[i % 4]
        elements = (table, chart) if subset in ("parallel", "sequential") else (table,)
        entailed, refuted = statements(i, rng, negation)
        parts[part] += [
            dataclasses.replace(c, origin_statement=entailed, perturbed_statement=refuted)
            for c in _pair(2 * i + 1, f"p{i}", paperid, subset, elements)
        ]
    images = {
        e.image_path: b"\x89PNG" + e.image_path.encode()
        for e in (table_a, chart_a, table_b, chart_b)
    }
    return Release(
        name="artifacts",
        splits=parts,
        papers=[_paper(a, "cc-by-4.0"), _paper(b, "cc0-1.0")],
        images=images,
        readme="# artifacts\n",
        hide_test_labels=hide,
        seed=3,
    )


@pytest.fixture(scope="module")
def negation_release(tmp_path_factory):
    out = tmp_path_factory.mktemp("negation") / "SciVer"
    write_release(_planted_release(200, negation=True, hide=True), out)
    return out


@pytest.fixture(scope="module")
def value_release(tmp_path_factory):
    out = tmp_path_factory.mktemp("value") / "SciVer"
    write_release(_planted_release(200, negation=False, hide=False), out)
    return out


def test_check_release_warns_about_artifacts_and_names_the_cue_words(negation_release):
    warnings = [w for w in inspect_release(negation_release).warnings if "artifacts" in w]
    assert len(warnings) == 1
    assert "more than 10 points above chance" in warnings[0]
    assert "'not'" in warnings[0]
    # The test labels are hidden: cross-validation on validation, and it says so.
    assert "hidden" in warnings[0]
    assert not [
        w
        for w in inspect_release(negation_release, artifact_margin=60).warnings
        if "artifacts" in w
    ]


def test_check_release_says_nothing_of_artifacts_on_value_only_rewrites(value_release):
    assert not [w for w in inspect_release(value_release).warnings if "artifacts" in w]


@pytest.mark.django_db
def test_audit_release_scores_hidden_test_labels_given_with_labels(negation_release):
    without = json.loads(run("audit_release", str(negation_release), "--json"))
    assert "test labels are hidden" in without["baseline"]["method"]
    assert without["baseline"]["overall"]["total"] == 200  # validation, cross-validated
    labels = labels_path(negation_release)
    scored = json.loads(
        run("audit_release", str(negation_release), "--labels", str(labels), "--json")
    )
    assert scored["baseline"]["method"] == "trained on validation, scored on test"
    assert scored["baseline"]["overall"]["total"] == 200
    assert scored["warn"] is True
    assert scored["pairs"]["all"]["negation"] == 200  # the labels file's statements too
    text = run("audit_release", str(negation_release), "--labels", str(labels), "--human", "0.938")
    assert "human baseline 93.8 %" in text
    assert "Claim-only baseline (trained on validation, scored on test)" in text
    assert "warning: the claim-only baseline's lower bound beats chance" in text


@pytest.mark.django_db
def test_audit_release_refuses_a_folder_and_the_pool_together(value_release):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        run("audit_release", str(value_release), "--pool")
    with pytest.raises(CommandError):
        run("audit_release")
    assert "warning" not in run("audit_release", str(value_release))


def test_cross_validation_keeps_a_pairs_claims_in_one_fold():
    # Value-only rewrites: a pair's two claims differ in one number and have opposite labels.
    # Split across folds, each would teach the model the other's text with the wrong label,
    # and the baseline would fall far below chance; kept together, it stays near chance.
    records = planted(210, negation=False)
    for record in records:
        record["part"] = "pool"
    baseline = audit(records).baseline
    assert "a pair's two claims in one fold" in baseline.method
    assert baseline.overall is not None
    assert abs(baseline.overall.accuracy - 0.5) < 0.1, baseline.overall
