"""Markup in a claim (HTML tags and entities, LaTeX) is released exactly as typed and shown as
text: the writer is warned as they type, never blocked; ordinary text, prices and comparisons
with < and > are not markup."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.assignment import services as assignment_services
from annotation.queue import work
from annotation.writing import services as writing
from annotation.writing import warnings as claim_warnings
from tests.annotation.claim_factories import ENTAILED, REFUTED, curated_paper
from tests.annotation.factories import make_expert
from tests.factories import AdminFactory


@pytest.mark.parametrize(
    ("text", "kind", "span"),
    [
        ("Ours wins <script>alert(1)</script> on BLEU.", "html", "<script>"),
        ("Ours wins <img src=x onerror=alert(1)> on BLEU.", "html", "<img src=x onerror=alert(1)>"),
        ("Ours <b>wins</b> on BLEU.", "html", "<b>"),
        ("Precision &amp; recall both rise.", "html", "&amp;"),
        (r"Accuracy goes from 61 $\rightarrow$ 70 with routing.", "latex", r"$\rightarrow$"),
        (r"Routing keeps $70\%$ of the gain.", "latex", r"$70\%$"),
        (r"Routing keeps 70\% of the gain.", "latex", r"\%"),
        (r"The loss \mathcal{L}_{\text{bal}} falls.", "latex", r"\mathcal"),
        (r"The loss L_{bal} falls below 0.1.", "latex", "_{"),
        (r"Routing with \(k=1\) recovers most of it.", "latex", r"\("),
    ],
)
def test_markup_is_found_and_named(text, kind, span):
    found = claim_warnings.markup_in(text)
    assert list(found) == [kind] and found[kind][0] == span
    (warning,) = claim_warnings.markup(text)
    assert warning.code == f"{kind}_markup" and span[:39] in warning.message


@pytest.mark.parametrize(
    "text",
    [
        ENTAILED,
        "A run costs $5 and a sweep $10 on the cloud.",
        "With k<5 and k>2 the router is stable.",
        "Precision < recall > F1 on every split.",
        "Table 1 gives 45.9 for RouteAdapt (E=16, r=8, k=2).",
        "The gain is 70% on Swahili & Yoruba.",
    ],
)
def test_plain_text_is_not_markup(text):
    assert claim_warnings.markup_in(text) == {} and claim_warnings.markup(text) == []


def test_every_claim_warning_list_carries_the_markup_warnings():
    codes = [
        w.code for w in claim_warnings.claim_warnings(text=r"Ours <i>wins</i> by $3\%$ overall.")
    ]
    assert codes[-2:] == ["html_markup", "latex_markup"]


@pytest.mark.django_db
def test_the_writer_is_warned_as_they_type_and_a_submission_is_not_blocked(client):
    admin = AdminFactory(username="boss")
    writer = make_expert("wendy")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[writer], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=writer, count=1, seed=3)
    item = work.next_item(user=writer, kind="write")
    client.force_login(writer)
    html = client.post(
        reverse("annotation:write_warnings", args=[item.key]),
        {"entailed": ENTAILED + " <script>alert(1)</script>", "refuted": REFUTED + r" $\alpha$"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert 'data-code="html_markup" data-claim="entailed"' in html
    assert 'data-code="latex_markup" data-claim="refuted"' in html
    assert "&lt;script&gt;" in html and "<script>alert" not in html  # shown as text
