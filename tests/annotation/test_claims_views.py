"""The claim-writing pages over HTTP: writing, refusals that keep the text, idempotent and stale
submissions, autosave, suggestions, the pair's history, and a constant number of queries."""

from __future__ import annotations

import json
import uuid

import pytest
from django.test import Client

from annotation.assignment import services as assignment_services
from annotation.evidence import rule_text
from annotation.models import Claim, ClaimPair, ClaimTask, WorkEvent, WorkItem
from annotation.queue import work
from annotation.writing import services as writing
from papers.models import Element
from tests.annotation.claim_factories import ENTAILED, REFUTED, curated_paper
from tests.annotation.factories import make_expert
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    alice, admin = make_expert("alice"), AdminFactory(username="boss")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=alice, count=2, seed=7)
    client = Client()
    client.force_login(alice)
    response = client.post("/claims/next/")
    item = WorkItem.objects.get(holder=alice)
    assert response.url == f"/claims/write/{item.key}/"
    return client, item, alice, admin


def form(item: WorkItem, **changes) -> dict:
    item.refresh_from_db()
    data = {
        "version": item.version,
        "token": str(uuid.uuid4()),
        "entailed": ENTAILED,
        "evidence": [str(pk) for pk in item.task.sampled_ids[:2]],
        "refuted": REFUTED,
        "explanation": "Table 1 says 73.2, not 68.9.",
        "perturbation_kind": "number",
        "suggestion": REFUTED,
    }
    return data | changes


def test_the_writing_page_shows_the_task(setup):
    client, item, *_ = setup
    html = client.get(f"/claims/write/{item.key}/").content.decode()
    subset = item.task.subset
    assert f"Write a {subset} claim" in html and "Example:" in html
    assert html.count('class="ev-item ev-') >= 3 and "Ctrl</kbd>+<kbd>Enter" in html
    for label in ("Table 1", "Table 2"):
        if label in html:
            break
    else:
        pytest.fail("no sampled table shown")


def test_submitting_twice_records_once_and_both_land_on_the_pair(setup):
    client, item, *_ = setup
    data = form(item)
    first = client.post(f"/claims/write/{item.key}/", data)
    second = client.post(f"/claims/write/{item.key}/", data)
    pair = ClaimPair.objects.get()
    assert first.url == second.url == f"/claims/pairs/{pair.key}/"
    page = client.get(first.url).content.decode()
    assert ENTAILED in page and REFUTED in page and "submitted" in page


def test_a_stale_form_is_refused_with_a_message_and_keeps_the_text(setup):
    client, item, *_ = setup
    data = form(item, version=item.version - 1, entailed=ENTAILED + " Typed text.")
    response = client.post(f"/claims/write/{item.key}/", data)
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed since you opened the page" in html and "Typed text." in html
    assert not ClaimPair.objects.exists()


def test_a_broken_rule_shows_the_field_error_and_keeps_everything(setup):
    client, item, *_ = setup
    response = client.post(f"/claims/write/{item.key}/", form(item, refuted=ENTAILED, evidence=[]))
    assert response.status_code == 400
    html = response.content.decode()
    assert "must differ from the entailed one" in html and "Mark the evidence" in html
    assert html.count(ENTAILED) >= 2 and "Table 1 says 73.2" in html
    assert not ClaimPair.objects.exists()


def test_autosave_keeps_the_draft_for_a_reload(setup):
    client, item, *_ = setup
    body = {
        "version": item.version,
        "draft": {"entailed": "Half a claim", "evidence": item.task.sampled_ids[:1]},
    }
    response = client.post(
        f"/claims/write/{item.key}/draft/", json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 200 and "saved_at" in response.json()
    html = client.get(f"/claims/write/{item.key}/").content.decode()
    assert "Half a claim" in html
    assert f'value="{item.task.sampled_ids[0]}" form="writing" checked' in html
    body["version"] = item.version - 1
    stale = client.post(
        f"/claims/write/{item.key}/draft/", json.dumps(body), content_type="application/json"
    )
    assert stale.status_code == 409 and "changed since" in stale.json()["error"]


def test_the_page_offers_different_evidence_for_the_refuted_claim_and_hand_back(setup):
    client, item, *_ = setup
    html = client.get(f"/claims/write/{item.key}/").content.decode()
    assert "The refuted claim uses different evidence" in html
    toggle = html.split('name="split_evidence"')[1][:40]
    assert "checked" not in toggle
    assert html.count('name="refuted_evidence"') == html.count('name="evidence"') >= 3
    assert 'id="ref-summary" aria-live="polite" hidden' in html
    assert f'action="/claims/write/{item.key}/release/"' in html and "Hand back" in html


def test_the_refuted_claim_can_cite_different_evidence(setup):
    client, item, *_ = setup
    sampled = item.task.sampled_ids
    response = client.post(
        f"/claims/write/{item.key}/",
        form(item, split_evidence="1", refuted_evidence=[str(pk) for pk in sampled[1:]]),
    )
    assert response.status_code == 302
    pair = ClaimPair.objects.get()
    claims = {c.label: sorted(c.evidence.values_list("pk", flat=True)) for c in pair.claims.all()}
    assert claims == {"entailed": sorted(sampled[:2]), "refuted": sorted(sampled[1:])}


def test_without_the_toggle_the_refuted_claim_shares_the_evidence(setup):
    client, item, *_ = setup
    sampled = item.task.sampled_ids
    response = client.post(
        f"/claims/write/{item.key}/", form(item, refuted_evidence=[str(pk) for pk in sampled[2:]])
    )
    assert response.status_code == 302
    refuted = ClaimPair.objects.get().claims.get(label="refuted")
    assert sorted(refuted.evidence.values_list("pk", flat=True)) == sorted(sampled[:2])


def test_refuted_evidence_breaking_the_subset_rule_is_refused(setup):
    client, item, *_ = setup
    paragraph = item.task.paragraph_ids[0]
    response = client.post(
        f"/claims/write/{item.key}/",
        form(item, split_evidence="1", refuted_evidence=[str(paragraph)]),
    )
    assert response.status_code == 400
    html = response.content.decode()
    # The evidence rule, named, with what to mark (no table/chart at all is marked).
    assert 'id="err-refuted-evidence"' in html and "none is marked" in html
    assert rule_text(item.task.subset) in html and "the three sampled" in html
    assert 'id="err-evidence"' not in html
    # What was typed and marked stays: the toggle, and the refuted claim's evidence.
    assert 'name="split_evidence" value="1" checked' in html
    assert f'name="refuted_evidence" value="{paragraph}" form="writing" checked' in html
    assert not ClaimPair.objects.exists() and not Claim.objects.exists()
    item.refresh_from_db()
    assert item.status == "leased"


def _as_subset(item: WorkItem, subset: str) -> None:
    ClaimTask.objects.filter(pk=item.task_id).update(subset=subset)
    item.task.refresh_from_db()


@pytest.mark.parametrize(
    ("subset", "ticked", "untick"),
    [("direct", 2, "one"), ("analytical", 3, "two"), ("parallel", 3, "one")],
)
def test_one_table_too_many_is_refused_naming_the_rule_and_nothing_is_lost(
    setup, subset, ticked, untick
):
    """The evidence rule: exactly one table/chart for direct/analytical, two for the others."""
    client, item, *_ = setup
    _as_subset(item, subset)
    sampled = item.task.sampled_ids
    paragraph = item.task.paragraph_ids[0]
    marked = [str(pk) for pk in [*sampled[:ticked], paragraph]]
    response = client.post(f"/claims/write/{item.key}/", form(item, evidence=marked))
    assert response.status_code == 400
    html = response.content.decode()
    error = html.split('id="err-evidence">')[1].split("</p>")[0]
    assert rule_text(subset) in error and f"{ticked} are marked" in error
    assert f"Untick {untick}" in error
    labels = Element.objects.filter(pk__in=sampled[:ticked]).values_list("label", flat=True)
    assert all(label in error for label in labels)  # it names them: "Table 1, Figure 2"
    for pk in marked:  # every box stays ticked, the text stays
        assert f'name="evidence" value="{pk}" form="writing" checked' in html
    assert ENTAILED in html and not ClaimPair.objects.exists()
    need = 1 if subset in ("direct", "analytical") else 2
    fixed = form(item, evidence=[str(pk) for pk in [*sampled[:need], paragraph]])
    assert client.post(f"/claims/write/{item.key}/", fixed).status_code == 302
    pair = ClaimPair.objects.get()
    assert pair.subset == subset
    assert pair.claims.get(label="entailed").evidence.count() == need + 1


def test_a_refuted_claims_own_evidence_is_held_to_the_rule_too(setup):
    client, item, *_ = setup
    _as_subset(item, "direct")
    sampled = item.task.sampled_ids
    response = client.post(
        f"/claims/write/{item.key}/",
        form(
            item,
            evidence=[str(sampled[0])],
            split_evidence="1",
            refuted_evidence=[str(pk) for pk in sampled[1:]],
        ),
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="err-evidence"' not in html
    error = html.split('id="err-refuted-evidence">')[1].split("</p>")[0]
    assert "A direct claim rests on exactly one table or chart" in error and "Untick one" in error
    response = client.post(
        f"/claims/write/{item.key}/",
        form(
            item, evidence=[str(sampled[0])], split_evidence="1", refuted_evidence=[str(sampled[1])]
        ),
    )
    assert response.status_code == 302


def test_the_page_states_the_rule_for_the_tasks_subset(setup):
    client, item, *_ = setup
    _as_subset(item, "analytical")
    html = client.get(f"/claims/write/{item.key}/").content.decode()
    assert "An analytical claim rests on exactly one table or chart, one of the three" in html
    assert 'data-visuals-needed="1"' in html and "(exactly 1)" in html


def test_the_draft_keeps_the_refuted_claims_evidence(setup):
    client, item, *_ = setup
    sampled = item.task.sampled_ids
    body = {
        "version": item.version,
        "draft": {
            "entailed": "Half a claim",
            "evidence": sampled[:1],
            "split_evidence": True,
            "refuted_evidence": [sampled[2]],
        },
    }
    response = client.post(
        f"/claims/write/{item.key}/draft/", json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 200
    item.refresh_from_db()
    assert item.draft["split_evidence"] is True and item.draft["refuted_evidence"] == [sampled[2]]
    html = client.get(f"/claims/write/{item.key}/").content.decode()
    assert 'name="split_evidence" value="1" checked' in html
    assert f'name="refuted_evidence" value="{sampled[2]}" form="writing" checked' in html
    assert f'name="refuted_evidence" value="{sampled[0]}" form="writing" checked' not in html
    assert 'id="ref-summary" aria-live="polite">' in html


def test_hand_back_releases_the_task_with_its_draft(setup):
    client, item, alice, _ = setup
    work.save_draft(item=item, user=alice, version=item.version, draft={"entailed": "Half"})
    item.refresh_from_db()
    stale = client.post(f"/claims/write/{item.key}/release/", {"version": item.version - 1})
    assert stale.url == f"/claims/write/{item.key}/"
    response = client.post(f"/claims/write/{item.key}/release/", {"version": item.version})
    assert response.url == "/"
    item.refresh_from_db()
    assert item.status == "open" and item.holder is None and item.draft == {"entailed": "Half"}
    assert WorkEvent.objects.filter(item=item, action="released", actor=alice).exists()
    released = client.get(f"/claims/write/{item.key}/")
    assert released.status_code == 403 and "press Next" in released.content.decode()
    client.post("/claims/next/")
    item.refresh_from_db()
    assert item.holder == alice  # the oldest item she may take: this one again
    assert "Half" in client.get(f"/claims/write/{item.key}/").content.decode()


def test_suggestions_come_from_the_claim_and_the_evidence_tables(setup):
    client, item, *_ = setup
    html = client.post(
        f"/claims/write/{item.key}/suggest/",
        {"entailed": ENTAILED, "evidence": [str(pk) for pk in item.task.candidate_ids]},
    ).content.decode()
    assert "68.9" in html and "lower than the Baseline" in html and 'data-kind="number"' in html
    # Each suggestion says where its value comes from.
    number = html.split('data-kind="number"')[1].split("</li>")[0]
    assert 'data-source="cell"' in number and "row “Baseline”, column “BLEU”" in number
    flip = html.rsplit("lower than the Baseline", 1)[1].split("</li>")[0]
    assert "Direction flipped: no new value" in flip


def test_a_charts_suggestions_come_from_its_caption_and_the_paragraphs_citing_it(setup):
    """A chart's values are those its caption and citing paragraphs state: the page names the
    one a suggestion's value comes from."""
    client, item, *_ = setup
    task = item.task
    chart = Element.objects.filter(pk__in=task.candidate_ids, kind="chart").first()
    chart.caption = "Recall at 5 passages (61.2%) and at 20 passages (74.8%)."
    chart.save(update_fields=["caption"])
    claim = "Recall reaches 74.8% with 20 passages in this experiment."
    html = client.post(
        f"/claims/write/{item.key}/suggest/", {"entailed": claim, "evidence": [str(chart.pk)]}
    ).content.decode()
    assert "Recall reaches 61.2% with 20 passages" in html
    assert f"Value from the caption of {chart.label}: “Recall at 5 passages (61.2%)" in html
    assert "59.8" not in html and "93.5" not in html  # no ×0.8 or ×1.25 of a chart value


def test_the_whole_context_loads_on_demand(setup):
    client, item, *_ = setup
    html = client.get(f"/claims/write/{item.key}/context/").content.decode()
    assert "shown above" in html and "Conclusion" in html and "Related Work" not in html


def test_an_admin_sees_the_page_read_only_and_the_overview(setup):
    client, item, alice, admin = setup
    staff = Client()
    staff.force_login(admin)
    html = staff.get(f"/claims/write/{item.key}/").content.decode()
    assert "only its holder can write" in html and "held by alice" in html
    client.post(f"/claims/write/{item.key}/", form(item))
    overview = staff.get("/manage/claims/").content.decode()
    assert "pair " in overview and "alice" in overview
    home = staff.get("/").content.decode()
    assert "Admin: claim writing" in home and "alice 1" in home


def test_the_workspace_offers_next_and_task_creation(setup):
    client, item, alice, admin = setup
    html = client.get("/").content.decode()
    assert "Claims to write" in html and "Continue" in html
    other, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[other], experts=[alice], assigned_by=admin)
    from annotation.models import Assignment

    Assignment.objects.filter(paper=other).update(status="curated")
    html = client.get("/").content.decode()
    assert f"/claims/tasks/{other.versioned_id}/" in html
    response = client.post(f"/claims/tasks/{other.versioned_id}/")
    assert response.status_code == 302
    assert WorkItem.objects.filter(paper=other).count() == 4  # CLAIM_TASKS_PER_PAPER


def _page_queries(django_assert_max_num_queries, client, item) -> None:
    with django_assert_max_num_queries(14):
        assert client.get(f"/claims/write/{item.key}/").status_code == 200


def test_the_writing_page_runs_a_fixed_number_of_queries(django_assert_max_num_queries):
    alice, admin = make_expert("alice"), AdminFactory()
    big = [("body", f"Section {n}", None, "ptpcpp") for n in range(60)]
    for layout in (None, big):
        paper, _ = curated_paper(admin, layout=layout)
        assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
        writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=3)
        item = work.next_item(user=alice, kind="write")
        # A draft citing many elements must not add queries either.
        context_ids = list(item.task.candidate_ids)
        work.save_draft(
            item=item,
            user=alice,
            version=item.version,
            draft={"entailed": "x", "evidence": context_ids},
        )
        client = Client()
        client.force_login(alice)
        _page_queries(django_assert_max_num_queries, client, item)
        WorkItem.objects.filter(pk=item.pk).update(status="cancelled")


def test_the_writing_page_says_an_analytical_claim(setup):
    client, item, _alice, _admin = setup
    ClaimTask.objects.filter(pk=item.task_id).update(subset="analytical")
    page = client.get(f"/claims/write/{item.key}/").content.decode()
    assert "Write an analytical claim." in page
