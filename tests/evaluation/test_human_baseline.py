"""The human baseline beside a model's accuracy: the baseline study's blind answers, made
through the real services, overall, per subset and per label (a dropped pair leaves it)."""

from __future__ import annotations

import json
import uuid

import pytest
from django.core.management import call_command

from annotation.queue import work
from evaluation.selectors import human_baseline
from tests.annotation.factories import make_expert
from tests.evaluation.builders import write_small_release
from tests.validation.factories import Team, final_pair, validate_all
from validation.baseline import services as baseline_services

pytestmark = pytest.mark.django_db


def answer_all(expert, *, wrong: bool) -> int:
    answered = 0
    while True:
        try:
            item = baseline_services.take_next_baseline(user=expert)
        except work.NothingToDo:
            return answered
        gold = item.claim.review.final_label
        label = {"entailed": "refuted", "refuted": "entailed"}[gold] if wrong else gold
        baseline_services.submit_baseline_answer(
            item=item,
            user=expert,
            version=item.version,
            token=uuid.uuid4(),
            label=label,
            explanation="because",
        )
        answered += 1


def test_the_baseline_studys_answers_stand_beside_the_model(tmp_path, capsys):
    team = Team()
    for seed in (1, 2):
        final_pair(team, seed=seed)
    validate_all(team)
    right, wrong = make_expert("h1"), make_expert("h2")
    baseline_services.start_baseline(
        by=team.admin, expert_ids=[right.pk, wrong.pk], per_subset=2, seed=1
    )
    n = answer_all(right, wrong=False)
    assert n > 0 and answer_all(wrong, wrong=True) == n
    human = human_baseline()
    assert human.overall == (n, 2 * n)
    assert human.accuracy("overall", "all") == 0.5
    assert sum(a for _, a in human.by_key["label"].values()) == 2 * n
    release = write_small_release(tmp_path)
    responses = tmp_path / "r.jsonl"
    responses.write_text(json.dumps({"request_id": 1, "response": "Answer: yes"}) + "\n")
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
    overall = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("all "))
    assert f"50.0 ({2 * n})" in overall
