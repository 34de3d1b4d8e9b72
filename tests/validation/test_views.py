"""Validation pages over HTTP: every route for every role, the validator's page (fixed number
of queries, revise in place, errors keep the input), re-open, statistics, baseline, releases."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from annotation.models import ClaimPair, WorkItem
from jobs.models import Job
from tests.annotation.factories import make_expert
from tests.validation.factories import Team, final_pair, validate_all
from validation import services
from validation.baseline import services as baseline_services
from validation.models import BaselineAnswer, ReleaseExport, SplitVersion, ValidationRevision

pytestmark = pytest.mark.django_db


@dataclass
class World:
    team: Team
    item: WorkItem  # leased to validator0
    pair: ClaimPair
    outsider: object


@pytest.fixture
def world() -> World:
    team = Team()
    pair, _ = final_pair(team)
    item = services.take_next(user=team.validators[0])
    return World(team, item, pair, make_expert("outsider", codes=("cs.CV",)))


def login(client, world: World, role: str) -> None:
    users = {
        "holder": world.team.validators[0],
        "other": world.outsider,
        "writer": world.team.writer,
        "admin": world.team.admin,
    }
    if role != "anonymous":
        client.force_login(users[role])


# route, method, url, expected per role (anonymous, holder, other, writer, admin)
ROLES = ("anonymous", "holder", "other", "writer", "admin")


def cases(w: World) -> list[tuple[str, str, str, tuple]]:
    L = "login"
    return [
        ("validation:next", "post", "/validate/next/", (L, 302, 302, 302, 302)),
        ("validation:validate", "get", f"/validate/{w.item.key}/", (L, 200, 404, 404, 200)),
        (
            "validation:element_image",
            "get",
            f"/validate/{w.item.key}/images/{w.item.claim.evidence.filter(kind__in=['table', 'chart']).first().pk}/",
            (L, 200, 404, 404, 200),
        ),
        ("validation:baseline_next", "post", "/baseline/next/", (L, 302, 302, 302, 302)),
        (
            "validation:baseline_answer",
            "get",
            f"/baseline/answer/{w.item.key}/",
            (L, 404, 404, 404, 404),
        ),
        ("validation:overview", "get", "/manage/validation/", (L, 403, 403, 403, 200)),
        (
            "validation:reopen",
            "post",
            f"/manage/validation/reopen/{w.item.claim.key}/",
            (L, 403, 403, 403, 302),
        ),
        ("validation:statistics", "get", "/manage/statistics/", (L, 403, 403, 403, 200)),
        ("validation:baseline", "get", "/manage/baseline/", (L, 403, 403, 403, 200)),
        ("validation:baseline_study", "get", "/manage/baseline/999/", (L, 403, 403, 403, 404)),
        ("validation:releases", "get", "/manage/releases/", (L, 403, 403, 403, 200)),
        (
            "validation:export",
            "post",
            "/manage/releases/splits/999/export/",
            (L, 403, 403, 403, 404),
        ),
        (
            "validation:export_status",
            "get",
            "/manage/releases/exports/999/",
            (L, 403, 403, 403, 404),
        ),
        (
            "validation:download",
            "get",
            "/manage/releases/exports/999/download/",
            (L, 403, 403, 403, 404),
        ),
    ]


@pytest.mark.parametrize("role", ROLES)
def test_every_route_for_every_role(client, world, role):
    login(client, world, role)
    for route, method, url, expected in cases(world):
        response = getattr(client, method)(url)
        want = expected[ROLES.index(role)]
        if want == "login":
            assert response.status_code == 302 and "/accounts/login/" in response.url, route
        else:
            assert response.status_code == want, (route, role, response.status_code)


def _routes(patterns, namespace: str = "") -> set[str]:
    names: set[str] = set()
    for p in patterns:
        if isinstance(p, URLResolver):
            names |= _routes(p.url_patterns, p.namespace or namespace)
        elif isinstance(p, URLPattern) and namespace == "validation":
            names.add(f"validation:{p.name}")
    return names


def test_the_table_covers_every_validation_url(world):
    assert _routes(get_resolver().url_patterns) == {c[0] for c in cases(world)}


def test_the_validation_page_runs_a_fixed_number_of_queries(
    client, world, django_assert_max_num_queries
):
    client.force_login(world.team.validators[0])
    with django_assert_max_num_queries(20):
        response = client.get(f"/validate/{world.item.key}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert world.item.claim.text in html and 'class="piece evidence' in html
    assert "(5) The gold label" in html


def test_validator_revises_in_place_and_a_refused_submission_keeps_the_input(client, world):
    validator = world.team.validators[0]
    client.force_login(validator)
    claim = world.item.claim
    evidence = [str(pk) for pk in claim.review.final_evidence.values_list("pk", flat=True)]
    base = {
        "version": world.item.version,
        "token": "8c1d5f4e-8a55-4c51-9b57-2f1f3d0c8a10",
        "subset": world.pair.subset,
        "label": claim.review.final_label,
        "evidence": evidence,
        "explanation": claim.explanation,
    }
    new_text = "Ours gets a BLEU of 73.2 on the test set, above the Baseline model."
    refused = client.post(f"/validate/{world.item.key}/", base | {"text": new_text})
    assert refused.status_code == 400
    assert "tick the criteria" in refused.content.decode() and new_text in refused.content.decode()
    done = client.post(
        f"/validate/{world.item.key}/",
        base
        | {
            "text": new_text,
            "criteria_failed": ["language"],
            "token": "9c1d5f4e-8a55-4c51-9b57-2f1f3d0c8a10",
        },
    )
    assert done.status_code == 302
    claim.refresh_from_db()
    assert claim.text == new_text
    assert ValidationRevision.objects.get().before != new_text


def test_a_validators_text_longer_than_the_limit_is_refused_not_cut(client, world):
    validator = world.team.validators[0]
    client.force_login(validator)
    claim = world.item.claim
    evidence = [str(pk) for pk in claim.review.final_evidence.values_list("pk", flat=True)]
    long_text = "Ours gets a BLEU of 73.2 on the test set. " * 130  # 5,460 characters
    form = {
        "version": world.item.version,
        "token": "7c1d5f4e-8a55-4c51-9b57-2f1f3d0c8a10",
        "subset": world.pair.subset,
        "label": claim.review.final_label,
        "evidence": evidence,
        "explanation": claim.explanation,
        "criteria_failed": ["language"],
    }
    refused = client.post(f"/validate/{world.item.key}/", form | {"text": long_text})
    page = refused.content.decode()
    assert refused.status_code == 400
    assert "text: longer than 5,000 characters (it has 5,460); shorten it." in page
    assert f">{long_text}</textarea>" in page  # the text as typed, whole, in its box
    claim.refresh_from_db()
    assert claim.text != long_text[:5000] and not ValidationRevision.objects.exists()
    # The page's autosave: refused with the reason (the text stays in the browser), not cut.
    draft = {"text": long_text, "evidence": [int(pk) for pk in evidence]}
    saved = client.post(
        f"/validate/{world.item.key}/",
        {"version": world.item.version, "draft": draft},
        content_type="application/json",
    )
    assert saved.status_code == 400 and saved.json()["reason"] == "invalid"
    assert saved.json()["errors"] == {
        "text": "text: longer than 5,000 characters (it has 5,460); shorten it."
    }
    world.item.refresh_from_db()
    assert not world.item.draft
    # Exactly at the limit: recorded whole.
    at_limit = ("Ours gets a BLEU of 73.2 on the test set. " * 120)[:4999] + "."
    assert len(at_limit) == 5000
    done = client.post(f"/validate/{world.item.key}/", form | {"text": at_limit})
    assert done.status_code == 302, done.content.decode()[:2000]
    claim.refresh_from_db()
    assert claim.text == at_limit


def test_a_reopen_reason_longer_than_the_limit_is_refused_whole_and_taken_at_it(client, world):
    from validation.models import Validation

    validate_all(world.team)
    client.force_login(world.team.admin)
    claim = world.item.claim
    url = f"/manage/validation/reopen/{claim.key}/"
    long = ("The table was misread and the claim must be checked again. " * 90)[:5001]
    refused = client.post(url, {"reason": long})
    page = refused.content.decode()
    assert refused.status_code == 400 and "Nothing was recorded" in page
    assert "reason: longer than 5,000 characters (it has 5,001); shorten it." in page
    assert f'action="{url}"' in page and f'aria-describedby="err-reason">{long}</textarea>' in page
    validation = Validation.objects.get(claim=claim)
    assert validation.status == "validated" and validation.reopen_reason == ""
    at_limit = long[:4999] + "."
    assert client.post(url, {"reason": at_limit}).status_code == 302
    validation.refresh_from_db()
    assert validation.status == "pending" and validation.reopen_reason == at_limit


def test_the_validation_page_refuses_evidence_that_breaks_the_rule_and_keeps_the_input(
    client, world
):
    """A direct claim: one table ticked too many is refused next to the evidence, with the
    rule and what to untick; the ticks, the criteria and the text stay; unticking passes."""
    client.force_login(world.team.validators[0])
    claim, sampled = world.item.claim, world.pair.task.sampled_ids
    page = client.get(f"/validate/{world.item.key}/").content.decode()
    assert "A direct claim rests on exactly one table or chart, one of the three" in page
    assert 'id="evidence-warning"' not in page  # the factory's claim meets the rule
    base = {
        "version": world.item.version,
        "token": "8c1d5f4e-8a55-4c51-9b57-2f1f3d0c8a10",
        "text": claim.text,
        "subset": world.pair.subset,
        "label": claim.review.final_label,
        "explanation": claim.explanation,
        "criteria_failed": ["evidence"],
    }
    refused = client.post(
        f"/validate/{world.item.key}/", base | {"evidence": [str(pk) for pk in sampled[:2]]}
    )
    assert refused.status_code == 400
    html = refused.content.decode()
    error = html.split('id="err-evidence">')[1].split("</p>")[0]
    assert "A direct claim rests on exactly one table or chart" in error and "Untick one" in error
    for pk in sampled[:2]:
        assert re.search(rf'name="evidence" value="{pk}" checked', html)
    assert re.search(r'name="criteria_failed" value="evidence" checked', html)
    assert not ValidationRevision.objects.exists()
    done = client.post(
        f"/validate/{world.item.key}/",
        base | {"evidence": [str(sampled[1])], "token": "9c1d5f4e-8a55-4c51-9b57-2f1f3d0c8a10"},
    )
    assert done.status_code == 302
    assert ValidationRevision.objects.get().field == "evidence"


def test_a_claim_that_breaks_the_rule_is_listed_for_its_validator_under_criterion_4(client, world):
    claim, sampled = world.item.claim, world.pair.task.sampled_ids
    claim.review.final_evidence.set(sampled[:2])  # as written before the rule
    client.force_login(world.team.validators[0])
    html = client.get(f"/validate/{world.item.key}/").content.decode()
    criteria = html.split('id="criteria"')[1].split("</fieldset>")[0]
    after_four = criteria.split('value="evidence"')[1].split('value="label"')[0]
    assert 'id="evidence-warning"' in after_four and 'data-code="evidence_rule"' in after_four
    assert "breaks the evidence rule" in after_four and "2 are marked" in after_four
    assert "Untick one" in after_four


def test_overview_reopen_and_statistics(client, world):
    team = world.team
    validate_all(team)
    client.force_login(team.admin)
    page = client.get("/manage/validation/").content.decode()
    assert "validated" in page
    response = client.post(f"/manage/validation/reopen/{world.item.claim.key}/", {"reason": "typo"})
    assert response.status_code == 302
    stats = client.get("/manage/statistics/").content.decode()
    assert "<svg" in stats and "claims validated" in stats and "evidence pieces" in stats
    assert "<script" not in stats.split("<main>")[1]


def test_baseline_study_needs_two_experts_and_reports_accuracy(client, world):
    team = world.team
    validate_all(team)
    client.force_login(team.admin)
    response = client.post(
        "/manage/baseline/", {"experts": [team.validators[1].pk], "per_subset": 2}
    )
    assert "exactly two experts" in response.content.decode()
    a, b = make_expert("a1"), make_expert("b1")
    response = client.post("/manage/baseline/", {"experts": [a.pk, b.pk], "per_subset": 2})
    assert response.status_code == 302
    study_url = response.url
    for expert, wrong in ((a, False), (b, True)):
        client.force_login(expert)
        response = client.post("/baseline/next/")
        while response.status_code == 302 and "/baseline/answer/" in response.url:
            url = response.url
            item = WorkItem.objects.get(key=url.rstrip("/").split("/")[-1])
            page = client.get(url).content.decode()
            assert item.claim.text in page and "gold" not in page.lower()
            gold = item.claim.review.final_label
            label = ({"entailed": "refuted", "refuted": "entailed"}[gold]) if wrong else gold
            response = client.post(
                url,
                {
                    "version": item.version,
                    "token": str(item.pk) * 0 or f"00000000-0000-0000-0000-{item.pk:012d}",
                    "label": label,
                    "explanation": "because",
                },
            )
    assert (
        BaselineAnswer.objects.count()
        == 2 * BaselineAnswer.objects.values("item").distinct().count()
    )
    client.force_login(team.admin)
    report = client.get(study_url).content.decode()
    assert "50.0%" in report and "Disagreements" in report


def test_releases_page_makes_a_split_and_exports_in_the_background(
    client, world, settings, tmp_path
):
    settings.RELEASE_DIR = tmp_path / "releases"
    team = world.team
    for seed in (2, 3):
        final_pair(team, seed=seed)
    validate_all(team)
    client.force_login(team.admin)
    response = client.post(
        "/manage/releases/", {"validation": 2, "test": 2, "seed": 1, "name": "v1"}
    )
    assert response.status_code == 302
    too_many = client.post("/manage/releases/", {"validation": 200, "test": 2, "seed": 1})
    assert "validated claims exist" in too_many.content.decode()
    split = SplitVersion.objects.get(name="v1")
    settings.JOBS_INLINE = True  # the export's outcome in this request
    response = client.post(f"/manage/releases/splits/{split.pk}/export/", {"parquet": "1"})
    assert response.status_code == 302
    export = ReleaseExport.objects.get()
    assert export.job.status == Job.Status.FINISHED, export.job.error
    status = client.get(response.url).content.decode()
    assert "Download the release" in status
    download = client.get(f"/manage/releases/exports/{export.pk}/download/")
    assert download.status_code == 200
    assert Path(export.out, "valset.json").is_file()
    assert export.parquet and Path(export.out, "data/parquet/test.parquet").is_file()


def test_dropping_a_pair_cancels_its_baseline_items_and_the_report_leaves_it_out(client, world):
    from annotation.models import WorkKind, WorkStatus
    from annotation.review import services as review_services

    team = world.team
    validate_all(team)
    a, b = make_expert("a2"), make_expert("b2")
    study = baseline_services.start_baseline(
        expert_ids=[a.pk, b.pk], per_subset=2, seed=1, by=team.admin
    )
    items = WorkItem.objects.filter(kind=WorkKind.BASELINE)
    assert (
        items.filter(pair=world.pair).count()
        == 2 * study.items.filter(claim__pair=world.pair).count()
        > 0
    )
    review_services.drop_pair(pair=world.pair, by=team.admin, reason="table misread")
    assert set(items.filter(pair=world.pair).values_list("status", flat=True)) == {
        WorkStatus.CANCELLED
    }
    client.force_login(team.admin)
    page = client.get(f"/manage/baseline/{study.pk}/").content.decode()
    left_out = study.items.filter(claim__pair=world.pair).count()
    assert f"{left_out} claim{'s' if left_out > 1 else ''} left out: pair dropped since" in page
    assert f"of {2 * (study.items.count() - left_out)}" in page


def test_a_refuted_claim_that_only_rewrites_a_number_warns_its_validator(client):
    """45.2 → 45.20 states the same fact: the validator is told, as the writer was."""
    from tests.annotation.claim_factories import ENTAILED

    team = Team()
    final_pair(team, refuted=ENTAILED.replace("73.2", "73.20"))
    item = services.take_next(user=team.validators[0])
    client.force_login(team.validators[0])
    html = client.get(f"/validate/{item.key}/").content.decode()
    assert 'data-code="trivial_perturbation"' in html
    assert "only in how a number is written (45.2 = 45.20" in html
