"""The automatic warnings on the writer's page: recomputed as they type (an htmx endpoint that
returns a fragment), shown when the page opens and after a submission, and never blocking."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from annotation.assignment import services as assignment_services
from annotation.models import ClaimPair, WorkItem
from annotation.queue import work
from annotation.writing import services as writing
from tests.annotation.claim_factories import ENTAILED, REFUTED, curated_paper, pair_fields
from tests.annotation.factories import make_expert
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db

# "7" is in a paragraph ("Paragraph 7 of Experiments.") and in no sampled table or chart (their
# captions number 1–3; their cells hold 73.2, 68.9, 80.1, 75.0).
TEXT_ONLY = "The method improves the reported score by 7 points over the strong baseline."


@pytest.fixture
def setup():
    admin = AdminFactory(username="boss")
    writer = make_expert("wendy")
    other = make_expert("olga")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[writer], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=writer, count=1, seed=3)
    item = work.next_item(user=writer, kind="write")
    return {"admin": admin, "writer": writer, "other": other, "item": item}


def warnings_of(client, item, **fields) -> tuple[int, str]:
    response = client.post(
        reverse("annotation:write_warnings", args=[item.key]), fields, HTTP_HX_REQUEST="true"
    )
    return response.status_code, response.content.decode()


def codes(html: str, claim: str) -> set[str]:
    import re

    return set(re.findall(rf'data-code="([a-z_]+)" data-claim="{claim}"', html))


@pytest.mark.parametrize(
    ("fields", "claim", "code"),
    [
        ({"entailed": TEXT_ONLY}, "entailed", "text_only"),
        ({"entailed": ENTAILED, "refuted": ENTAILED.upper()}, "refuted", "trivial_perturbation"),
        (
            {"entailed": ENTAILED, "refuted": ENTAILED.replace("73.2", "73.20")},
            "refuted",
            "trivial_perturbation",
        ),
        (
            {"entailed": "In Table 1, " + ENTAILED, "refuted": "In Table 2, " + ENTAILED},
            "refuted",
            "trivial_perturbation",
        ),
        (
            {"entailed": "Ours reaches a BLEU of of 73.2 on the test set."},
            "entailed",
            "repeated_word",
        ),
        (
            {"entailed": ENTAILED, "refuted": "Ours acheives a BLEU of 68.9, higer than Baseline."},
            "refuted",
            "misspelling",
        ),
    ],
)
def test_the_endpoint_returns_each_kind_of_warning(client, setup, fields, claim, code):
    client.force_login(setup["writer"])
    status, html = warnings_of(client, setup["item"], **fields)
    assert status == 200
    assert code in codes(html, claim), html
    assert "<html" not in html  # a fragment for htmx, not a page


def test_a_claims_length_is_a_rule_listed_as_one_never_a_warning(client, setup):
    """For the writer a length outside CLAIM_MIN_WORDS–CLAIM_MAX_WORDS is refused (the rules):
    the warnings, which never block, do not list it; the rules line under them does."""
    client.force_login(setup["writer"])
    status, html = warnings_of(client, setup["item"], entailed="Ours wins.")
    assert status == 200 and "length" not in codes(html, "entailed")
    rules = html.split('id="claim-rules">')[1].split("</p>")[0]
    assert "Rules, which do block: a claim has 6–120 words" in rules


def test_a_clean_pair_has_no_warning(client, setup):
    client.force_login(setup["writer"])
    status, html = warnings_of(client, setup["item"], entailed=ENTAILED, refuted=REFUTED)
    assert status == 200 and 'id="no-warnings"' in html and "data-code" not in html


def test_the_endpoint_is_for_the_holder_and_admins_only(client, setup):
    item = setup["item"]
    assert warnings_of(client, item, entailed=TEXT_ONLY)[0] == 401  # signed out: say so
    client.force_login(setup["other"])
    assert (
        warnings_of(client, item, entailed=TEXT_ONLY)[0] == 404
    )  # never held: as for a key that names no item
    client.force_login(setup["admin"])
    assert warnings_of(client, item, entailed=TEXT_ONLY)[0] == 200
    assert client.get(reverse("annotation:write_warnings", args=[item.key])).status_code == 405


def test_the_page_shows_the_drafts_warnings_and_asks_for_them_as_the_writer_types(client, setup):
    item = setup["item"]
    WorkItem.objects.filter(pk=item.pk).update(draft={"entailed": TEXT_ONLY})
    client.force_login(setup["writer"])
    html = client.get(reverse("annotation:write", args=[item.key])).content.decode()
    assert 'data-code="text_only" data-claim="entailed"' in html
    assert f'hx-post="{reverse("annotation:write_warnings", args=[item.key])}"' in html


def test_a_submission_with_warnings_is_recorded_and_the_warnings_are_shown(client, setup):
    item = setup["item"]
    client.force_login(setup["writer"])
    fields = pair_fields(
        item, refuted="Ours acheives a BLEU of 68.9, which is higher than the the Baseline model."
    )
    data = {
        "version": item.version,
        "token": str(uuid.uuid4()),
        "entailed": fields["entailed"],
        "evidence": fields["evidence_ids"],
        "refuted": fields["refuted"],
        "explanation": fields["explanation"],
        "perturbation_kind": "number",
    }
    response = client.post(reverse("annotation:write", args=[item.key]), data, follow=True)
    assert response.status_code == 200
    pair = ClaimPair.objects.get()
    assert pair.claims.get(label="refuted").text == fields["refuted"]
    shown = [str(m) for m in response.context["messages"]]
    assert any("refuted claim" in m and "acheives → achieves" in m for m in shown), shown
    assert any("“the the”" in m for m in shown), shown
