"""Error analysis of a run over HTTP: the admin starts one from the run's page, two experts of
the claims' subfield tag the wrong answers without seeing each other's tags, the admin reads
κ per error type, the chart, the card's table and the downloads; every route for every role."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.urls import get_resolver

from annotation.models import Claim
from evaluation import services
from evaluation.errors import services as services_errors
from evaluation.errors.models import ErrorAnalysis, ErrorCase, ErrorTag
from evaluation.errors.rules import CATEGORIES, ErrorAnalysisRefused
from evaluation.models import EvaluationRun
from evaluation.release import load_part
from papers.models import Element
from tests.annotation.factories import make_expert, png
from tests.annotation.review_factories import written_pair
from tests.evaluation.builders import part_claims, small_release, write_small_release
from tests.factories import AdminFactory, UserFactory
from validation.release import write_release

pytestmark = pytest.mark.django_db

ERROR_ROUTES = {
    "start_error_analysis",
    "error_analyses",
    "error_analysis",
    "error_tags_csv",
    "error_cases_csv",
    "error_analysis_json",
    "my_error_cases",
    "error_case",
    "error_case_image",
}


def _run_on(part, wrong: set[int]) -> EvaluationRun:
    """A run scored from responses: wrong on the records `wrong`, right on the others."""
    responses = {
        item.request_id: "Answer: no" if item.label == (item.request_id in wrong) else "Answer: yes"
        for item in part.items
    }
    evaluation = services.evaluate(part, responses, resamples=10)
    return services.record_run(evaluation=evaluation, model="qwen-vl", source="responses")


def _our_release(root, pairs, *, part: str = "validation", hidden: bool = False):
    """The small release with `pairs` (claim pairs of this database) as the first two pairs
    (direct, parallel) of `part`: their ids and texts; the part's records 1–4 (test: 11–14)."""
    first = 1 if part == "validation" else 11
    claims = part_claims("2409.00001" if part == "validation" else "2410.00002", first, "x")
    ours = []
    for claim in claims[:4]:
        pair = pairs[(claim.request_id - first) // 2]
        texts = {c.label: c.text for c in pair.claims.all()}
        ours.append(
            dataclasses.replace(
                claim,
                pair_id=pair.pk,
                origin_statement=texts["entailed"],
                perturbed_statement=texts["refuted"],
            )
        )
    release = small_release(hide_test_labels=hidden)
    release = dataclasses.replace(release, splits={**release.splits, part: ours + claims[4:]})
    write_release(release, root / "SciVer")
    return load_part(root / "SciVer", part)


@pytest.fixture
def world(tmp_path):
    """Two claim pairs of this database (cs.CL) released as the validation part's first two
    pairs (direct, parallel), a run wrong on their four claims; experts: the writer and two
    more of cs.CL, one of cs.CV."""
    admin = AdminFactory(username="boss")
    writer = make_expert("walt")
    people = {"walt": writer, "alice": make_expert("alice"), "bob": make_expert("bob")}
    people["cvonly"] = make_expert("cvonly", codes=("cs.CV",))
    people["annotator"] = UserFactory(username="annie")
    pairs = [written_pair(writer, admin, seed=s) for s in (1, 2)]
    run = _run_on(_our_release(tmp_path, pairs), wrong={1, 2, 3, 4})
    return {"admin": admin, "run": run, "pairs": pairs, **people}


def _with_image(element: Element) -> None:
    element.image.name = default_storage.save(
        f"papers/{element.paper.versioned_id}/20241101T000000000000/{element.anchor}.png",
        ContentFile(png()),
    )
    element.save(update_fields=["image"])


def _start(client, run, size="10"):
    return client.post(
        f"/manage/evaluation/runs/{run.pk}/errors/start/", {"sample_size": size}, follow=True
    )


def _tag(client, case, categories, note=""):
    return client.post(f"/errors/cases/{case.pk}/", {"categories": categories, "note": note})


def test_two_experts_tag_the_wrong_answers_and_the_admin_sees_kappa_and_the_chart(client, world):
    run = world["run"]
    client.force_login(world["admin"])
    assert (
        'id="start-error-analysis"'
        in client.get(f"/manage/evaluation/runs/{run.pk}/").content.decode()
    )
    page = _start(client, run).content.decode()
    analysis = ErrorAnalysis.objects.get(run=run)
    cases = list(analysis.cases.select_related("claim"))
    assert len(cases) == 4 and {c.subset for c in cases} == {"direct", "parallel"}
    assert {c.claim.pair_id for c in cases} == {p.pk for p in world["pairs"]}
    assert "0 of 8 tags submitted" in page and 'id="error-kappa"' in page
    # Two taggers per case, spread over the three eligible experts (the writer among them).
    held = {
        name: ErrorTag.objects.filter(tagger=world[name]).count()
        for name in ("walt", "alice", "bob")
    }
    assert sorted(held.values()) == [2, 3, 3]
    assert all(c.tags.count() == 2 for c in cases)

    for case in cases:
        first, second = (t.tagger for t in case.tags.all())
        client.force_login(first)
        shown = client.get(f"/errors/cases/{case.pk}/").content.decode()
        assert case.claim.text in shown and case.outcome.response in shown
        assert f'id="case-gold">{case.outcome.gold}<' in shown
        assert all(c.definition in shown for c in CATEGORIES)
        assert _tag(client, case, ["visual"], note="misread the table").status_code == 302
        # The second tagger sees neither the first's types nor their note.
        client.force_login(second)
        blind = client.get(f"/errors/cases/{case.pk}/").content.decode()
        assert "misread the table" not in blind and "checked" not in blind
        answer = ["visual"] if case.subset == "direct" else ["visual", "retrieval"]
        assert _tag(client, case, answer).status_code == 302

    client.force_login(world["admin"])
    page = client.get(f"/manage/evaluation/errors/{analysis.pk}/").content.decode()
    assert "8 of 8 tags submitted" in page
    assert "<svg" in page and "qwen-vl · direct (n=2)" in page
    report = json.loads(
        client.get(f"/manage/evaluation/errors/{analysis.pk}/analysis.json").content
    )
    kappas = {a["code"]: a for a in report["agreement"]}
    # visual: all eight tags chose it (no variation: undefined); retrieval: one side only on
    # the two parallel cases: agreement 2 of 4, κ = 0.
    assert kappas["visual"]["kappa"] is None and kappas["visual"]["both"] == 4
    assert kappas["retrieval"]["kappa"] == 0.0 and kappas["retrieval"]["complete"] == 4
    assert (
        "| Visual element misinterpretation | 2 (100 %) | 2 (100 %) | 4 (100 %) | — |"
        in (report["markdown_table"])
    )
    assert report["markdown_table"] in page.replace("&#x27;", "'")
    tags = list(
        csv.DictReader(
            io.StringIO(
                client.get(f"/manage/evaluation/errors/{analysis.pk}/tags.csv").content.decode()
            )
        )
    )
    assert len(tags) == 8 and {t["visual"] for t in tags} == {"1"}
    assert sum(t["note"] == "misread the table" for t in tags) == 4
    rows = list(
        csv.DictReader(
            io.StringIO(
                client.get(f"/manage/evaluation/errors/{analysis.pk}/cases.csv").content.decode()
            )
        )
    )
    parallel = [r for r in rows if r["subset"] == "parallel"]
    assert {(r["majority"], r["union"]) for r in parallel} == {("visual", "retrieval; visual")}
    overview = client.get("/manage/evaluation/errors/").content.decode()
    assert "qwen-vl · parallel (n=2)" in overview


def test_taggers_see_only_their_cases_and_never_another_taggers_tags(client, world):
    client.force_login(world["admin"])
    _start(client, world["run"])
    case = ErrorCase.objects.filter(tags__tagger=world["alice"]).first()
    alice_tag = case.tags.get(tagger=world["alice"])
    outsider = (
        world["walt"] if not case.tags.filter(tagger=world["walt"]).exists() else world["bob"]
    )
    client.force_login(world["alice"])
    home = client.get("/").content.decode()
    assert 'id="error-cases-link"' in home and "Error analysis" in home
    assert _tag(client, case, ["domain"], note="alice's private note").status_code == 302
    assert alice_tag.__class__.objects.get(pk=alice_tag.pk).categories == ["domain"]

    client.force_login(outsider)  # eligible, but not a tagger of this case
    refused = client.get(f"/errors/cases/{case.pk}/")
    assert refused.status_code == 403 and b"not assigned to you" in refused.content
    assert _tag(client, case, ["other"]).status_code == 403
    assert not case.tags.filter(tagger=outsider).exists()
    mine = client.get("/errors/").content.decode()
    assert f"/errors/cases/{case.pk}/" not in mine and "alice's private note" not in mine
    for name in ("outsider", "cvonly", "annotator"):
        user = outsider if name == "outsider" else world[name]
        client.force_login(user)
        for url in ("tags.csv", "cases.csv", "analysis.json"):
            got = client.get(f"/manage/evaluation/errors/{case.analysis_id}/{url}")
            assert got.status_code == 403 and b"alice's private note" not in got.content
    client.force_login(world["cvonly"])
    assert 'id="error-cases-link"' not in client.get("/").content.decode()


def test_a_tagger_who_lost_eligibility_is_refused_and_bad_tags_are_said_and_kept(client, world):
    client.force_login(world["admin"])
    _start(client, world["run"])
    case = ErrorCase.objects.filter(tags__tagger=world["bob"]).first()
    client.force_login(world["bob"])
    empty = _tag(client, case, [], note="kept note")
    assert empty.status_code == 400 and b"Choose at least one error type." in empty.content
    assert b"kept note" in empty.content
    long = _tag(client, case, ["visual"], note="x" * 5001)
    assert long.status_code == 400 and b"5,000" in long.content and b"x" * 5001 in long.content
    assert not case.tags.get(tagger=world["bob"]).submitted
    with pytest.raises(ErrorAnalysisRefused, match="5,000"):  # the service holds it too
        services_errors.submit_tag(
            case=case, by=world["bob"], categories=["visual"], note="x" * 5001
        )
    world["bob"].expert.subfields.clear()  # no longer an expert of cs.CL
    refused = _tag(client, case, ["visual"])
    assert (
        refused.status_code == 403 and b"no longer an eligible expert of cs.CL" in refused.content
    )


def test_one_eligible_expert_is_incomplete_for_agreement_none_waits_on_the_page(client, world):
    first, second = world["pairs"]
    first.__class__.objects.filter(pk=first.pk).update(subfield_code="cs.RO")
    second.__class__.objects.filter(pk=second.pk).update(subfield_code="cs.IR")
    rob = make_expert("rob", codes=("cs.RO",))
    client.force_login(world["admin"])
    page = _start(client, world["run"]).content.decode()
    analysis = ErrorAnalysis.objects.get()
    assert {c.subfield_code: c.tags.count() for c in analysis.cases.all()} == {
        "cs.RO": 1,
        "cs.IR": 0,
    }
    assert "2 case(s) with only one eligible expert (incomplete for agreement)" in page
    assert "2 case(s) wait: no eligible expert of their subfield" in page
    client.force_login(rob)
    for case in analysis.cases.filter(subfield_code="cs.RO"):
        _tag(client, case, ["other"])
    client.force_login(world["admin"])
    report = json.loads(
        client.get(f"/manage/evaluation/errors/{analysis.pk}/analysis.json").content
    )
    assert {(a["complete"], a["incomplete"]) for a in report["agreement"]} == {(0, 2)}
    make_expert("iris", codes=("cs.IR",))
    make_expert("ivan", codes=("cs.IR",))
    client.post(f"/manage/evaluation/errors/{analysis.pk}/")
    assert {c.tags.count() for c in analysis.cases.filter(subfield_code="cs.IR")} == {2}


def test_a_run_on_a_release_this_database_did_not_export_is_refused_on_the_page(client, tmp_path):
    folder = write_small_release(tmp_path)  # pair ids "v1", …: no claim here
    run = _run_on(load_part(folder, "validation"), wrong={1, 2})
    client.force_login(AdminFactory())
    page = _start(client, run).content.decode()
    assert "No error analysis: 2 of the run&#x27;s 2 wrong answers are not claims of this" in page
    assert not ErrorAnalysis.objects.exists() and not Claim.objects.exists()
    zero = _start(client, run, size="0").content.decode()
    assert "sample_size: 0 is not between 1 and 500." in zero


def test_a_hidden_test_part_finds_its_claims_through_the_organisers_labels_file(
    client, world, tmp_path
):
    part = _our_release(tmp_path / "hidden", world["pairs"], part="test", hidden=True)
    assert part.hidden and "label" not in part.items[0].record
    run = _run_on(part, wrong={11, 12, 13, 14})
    client.force_login(world["admin"])
    _start(client, run, size="1")
    cases = ErrorAnalysis.objects.get(run=run).cases.select_related("claim")
    assert {c.subset for c in cases} == {"direct", "parallel"}  # one per subset
    assert all(c.claim.label == c.outcome.gold and c.tags.count() == 2 for c in cases)


def test_every_error_route_for_every_role(client, world):
    run = world["run"]
    client.force_login(world["admin"])
    _start(client, run)
    analysis = ErrorAnalysis.objects.get()
    case = ErrorCase.objects.filter(tags__tagger=world["alice"]).first()
    admin_routes = [
        ("post", f"/manage/evaluation/runs/{run.pk}/errors/start/", 302),
        ("get", "/manage/evaluation/errors/", 200),
        ("get", f"/manage/evaluation/errors/{analysis.pk}/", 200),
        ("get", f"/manage/evaluation/errors/{analysis.pk}/tags.csv", 200),
        ("get", f"/manage/evaluation/errors/{analysis.pk}/cases.csv", 200),
        ("get", f"/manage/evaluation/errors/{analysis.pk}/analysis.json", 200),
    ]
    visual = case.claim.evidence.filter(kind__in=["table", "chart"]).first()
    _with_image(visual)
    tagger_routes = [
        ("get", "/errors/", 200),
        ("get", f"/errors/cases/{case.pk}/", 200),
        ("get", f"/errors/cases/{case.pk}/images/{visual.pk}/", 200),
    ]
    apps = [p for p in get_resolver().url_patterns if getattr(p, "namespace", None) == "evaluation"]
    named = {route.name for app in apps for route in app.url_patterns}
    assert {n for n in named if "error" in n} == ERROR_ROUTES
    client.logout()
    for method, url, _ in admin_routes + tagger_routes:
        response = getattr(client, method)(url)
        assert response.status_code == 302 and "/accounts/login/" in response.url, url
    for name in ("annotator", "alice"):
        client.force_login(world[name])
        for method, url, _ in admin_routes:
            assert getattr(client, method)(url).status_code == 403, (name, url)
    client.force_login(world["alice"])
    for method, url, status in tagger_routes:
        assert getattr(client, method)(url).status_code == status, url
    client.force_login(world["annotator"])
    assert client.get("/errors/").status_code == 200
    assert client.get(f"/errors/cases/{case.pk}/").status_code == 403
    assert client.get(f"/errors/cases/{case.pk}/images/{visual.pk}/").status_code == 403
    client.force_login(world["admin"])
    for method, url, status in admin_routes:
        assert getattr(client, method)(url).status_code == status, url
    assert client.get(f"/errors/cases/{case.pk}/").status_code == 200  # admins: every tag
    assert client.get(f"/errors/cases/{case.pk}/images/{visual.pk}/").status_code == 200
    assert ErrorAnalysis.objects.count() == 1  # the second start was refused


def test_a_case_shows_the_tables_and_charts_its_claim_rests_on_to_its_taggers_only(client, world):
    """Telling a misread chart from a reasoning slip needs the chart: the case page shows each
    table and chart of the evidence, through the case's own route, which serves the case's
    readers (its taggers, admins) and only the evidence's tables and charts."""
    client.force_login(world["admin"])
    _start(client, world["run"])
    case = ErrorCase.objects.filter(tags__tagger=world["alice"]).first()
    evidence = list(case.claim.evidence.all())
    visuals = [e for e in evidence if e.kind in ("table", "chart")]
    assert visuals
    for element in visuals:
        _with_image(element)
    elsewhere = Element.objects.filter(paper=visuals[0].paper, kind__in=["table", "chart"]).exclude(
        pk__in=[e.pk for e in evidence]
    )[0]
    _with_image(elsewhere)
    url = f"/errors/cases/{case.pk}/images/{{}}/"

    client.force_login(world["alice"])
    page = client.get(f"/errors/cases/{case.pk}/").content.decode()
    shown = re.findall(r'<img src="/errors/cases/\d+/images/(\d+)/"', page)
    assert sorted(map(int, shown)) == sorted(e.pk for e in visuals)
    for element in visuals:
        assert f"<strong>{element.display_name}</strong>" in page
        image = client.get(url.format(element.pk))
        assert image.status_code == 200 and image["Content-Type"] == "image/png"
        assert b"".join(image.streaming_content) == png()
    paragraph = Element.objects.filter(paper=visuals[0].paper, kind="paragraph")[0]
    assert client.get(url.format(paragraph.pk)).status_code == 404  # not a table or chart
    assert client.get(url.format(elsewhere.pk)).status_code == 404  # not the claim's evidence

    tagged = set(case.tags.values_list("tagger__username", flat=True))
    outsider = next(n for n in ("walt", "bob") if n not in tagged)
    client.force_login(world[outsider])  # eligible, not a tagger of this case
    refused = client.get(url.format(visuals[0].pk))
    assert refused.status_code == 403 and b"not assigned to you" in refused.content
    client.logout()
    assert "/accounts/login/" in client.get(url.format(visuals[0].pk)).url
