"""Checks when claims are written (issue 43): a claim naming a table or figure not among its
evidence, and a refuted claim that only negates its entailed claim, are warned about to the
writer (who may give a reason) and the validator; blind annotators and adjudicators never see
either warning nor the reason."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client
from django.urls import reverse

from annotation.assignment import services as assignment_services
from annotation.models import ClaimPair
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import services as writing
from annotation.writing import warnings as checks
from papers.models import Element
from tests.annotation.claim_factories import ENTAILED, REFUTED, curated_paper, pair_fields
from tests.annotation.review_factories import annotate, crew
from validation import services as validation

# --- The pure checks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Ours wins on BLEU (Table 2).", [("table", "2")]),
        ("As Tab. 3 and Fig. 3 show, ours wins.", [("table", "3"), ("chart", "3")]),
        ("Figure 1(b) shows the loss falling.", [("chart", "1")]),
        ("Fig. 4a shows the loss falling.", [("chart", "4a")]),
        ("TABLE II lists ours first.", [("table", "II")]),
        ("Tables 2 and 3 list ours first.", [("table", "2"), ("table", "3")]),
        ("Figs. 1, 2 & 5 show it.", [("chart", "1"), ("chart", "2"), ("chart", "5")]),
        ("Tables 2–4 list it.", [("table", "2"), ("table", "3"), ("table", "4")]),
        ("Table 2 and 3 baselines.", [("table", "2")]),  # a singular names one
        ("The table shows 3 results.", []),
        ("Table 2, then table 2 again.", [("table", "2")]),
    ],
)
def test_named_elements(text, named):
    assert checks.named_elements(text) == named


@pytest.mark.parametrize(
    ("a", "b"), [("II", "2"), ("iv", "4"), ("4a", "4"), ("1(b)", "1"), ("A.1", "A1")]
)
def test_numbers_compare_whatever_their_style(a, b):
    assert checks.number_key(a) == checks.number_key(b)


FIGURE_1 = ("chart", "Figure 1", "1")
TABLE_2 = ("table", "TABLE II", "II")


@pytest.mark.parametrize(
    ("text", "evidence", "missing"),
    [
        ("Ours reaches a BLEU of 73.2 (Table 2).", [FIGURE_1], "Table 2, which is"),
        ("Ours reaches 73.2 (Tables 2 and 3).", [TABLE_2], "Table 3, which is"),
        ("Fig. 3 and Table 5 show ours ahead.", [FIGURE_1], "Figure 3 and Table 5, which are"),
        ("Ours reaches 73.2 (Table 2).", [], "Table 2, which is"),
        ("Ours reaches 73.2 in TABLE II and Fig. 1(b).", [FIGURE_1, TABLE_2], None),
        ("Ours reaches 73.2 in Table 2 and Figure 1.", [FIGURE_1, TABLE_2], None),
        ("Ours reaches 73.2 on the test set.", [FIGURE_1], None),
    ],
)
def test_a_claim_naming_what_its_evidence_lacks_is_warned_with_the_names(text, evidence, missing):
    found = checks.reference_mismatch(text, evidence)
    if missing is None:
        assert found is None
        return
    assert found is not None and found.code == "reference_mismatch"
    assert f"names {missing} not among its evidence (" in found.message
    shown = ", ".join(label for _, label, _ in evidence) or "no table or chart marked"
    assert f"({shown})" in found.message


NEGATED = ENTAILED.replace("reaches", "does not reach")
OPPOSITE = ENTAILED.replace("higher", "lower")


@pytest.mark.parametrize(
    ("refuted", "code"),
    [(NEGATED, "negation_artifact"), (OPPOSITE, "antonym_artifact"), (REFUTED, None)],
)
def test_a_refuted_claim_that_only_negates_is_warned(refuted, code):
    codes = [
        w.code for w in checks.claim_warnings(text=refuted, entailed=ENTAILED, refuted=refuted)
    ]
    assert ("negation_artifact" in codes or "antonym_artifact" in codes) == (code is not None)
    if code:
        assert code in codes
        (warning,) = [
            w
            for w in checks.claim_warnings(text=refuted, entailed=ENTAILED, refuted=refuted)
            if w.code == code
        ]
        assert "introduce a factual error that contradicts the evidence" in warning.message


# --- Over HTTP: the writer, the blind pages, the validator ---------------------------------


def _label(pk: int) -> str:
    return Element.objects.get(pk=pk).label


def _page(user, url: str) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


@pytest.mark.django_db
def test_writer_and_validator_are_warned_and_blind_pages_never_are(client):
    c = crew("wren", "ann", "bob", "cleo")
    paper, _ = curated_paper(c["boss"])
    assignment_services.assign_papers(papers=[paper], experts=[c["wren"]], assigned_by=c["boss"])
    writing.create_claim_tasks(paper=paper, by=c["wren"], count=1, seed=3)
    item = work.next_item(user=c["wren"], kind="write")
    fields = pair_fields(item)
    evidence = [str(pk) for pk in fields["evidence_ids"]]
    shown = ", ".join(_label(int(pk)) for pk in evidence)
    warning = f"names Table 9, which is not among its evidence ({shown})"
    claim = ENTAILED + " (Table 9)"
    refuted = NEGATED + " (Table 9)"
    reason = "Table 9 holds the baseline scores, cited for context only."
    client.force_login(c["wren"])

    # As the writer types: the warning with the names, and the negation.
    url = reverse("annotation:write_warnings", args=[item.key])
    html = client.post(url, {"entailed": claim, "evidence": evidence}).content.decode()
    assert 'data-code="reference_mismatch" data-claim="entailed"' in html
    assert warning in html
    html = client.post(url, {"entailed": ENTAILED, "refuted": NEGATED}).content.decode()
    assert 'data-code="negation_artifact" data-claim="refuted"' in html
    assert "introduce a factual error that contradicts the evidence" in html

    # The draft keeps the reason: the page opens with the warning and the reason box filled.
    draft = {"entailed": claim, "evidence": [int(pk) for pk in evidence], "reference_note": reason}
    item.refresh_from_db()
    work.save_draft(item=item, user=c["wren"], version=item.version, draft=draft)
    writer_page = client.get(reverse("annotation:write", args=[item.key])).content.decode()
    assert warning in writer_page
    assert 'id="reference-reason" class="reference-reason">' in writer_page  # shown, not hidden
    assert reason in writer_page

    item.refresh_from_db()
    data = {
        "version": item.version,
        "token": str(uuid.uuid4()),
        "entailed": claim,
        "evidence": evidence,
        "refuted": refuted,
        "explanation": fields["explanation"],
        "perturbation_kind": "number",
        "reference_note": reason,
    }
    response = client.post(reverse("annotation:write", args=[item.key]), data, follow=True)
    assert response.status_code == 200
    pair = ClaimPair.objects.get()
    assert pair.reference_note == reason
    assert reason in response.content.decode()  # the pair's page shows it to its writer
    assert any("names Table 9" in str(m) for m in response.context["messages"])

    never = [warning, "not among its evidence", reason, "introduce a factual error"]
    never += ['"reference_mismatch"', '"negation_artifact"', "reference_note", "reference-reason"]

    # The blind second annotation page: neither warning, nor the reason.
    ann_item = review.take_next(user=c["ann"], kind="evidence")
    blind = _page(c["ann"], reverse("annotation:annotate", args=[ann_item.key]))
    assert ann_item.claim.text in blind
    assert not [text for text in never if text in blind]
    review.submit_second_annotation(
        item=ann_item,
        user=c["ann"],
        version=ann_item.version,
        token=uuid.uuid4(),
        label="refuted" if ann_item.claim.label == "entailed" else "entailed",  # disagrees
        evidence_ids=[int(pk) for pk in evidence],
    )
    annotate(c["bob"])  # agrees with the writer: his claim is final
    # The adjudication page of ann's claim: neither.
    adjudication = review.take_next(user=c["bob"], kind="adjudicate")
    adjudicating = _page(c["bob"], reverse("annotation:adjudicate", args=[adjudication.key]))
    assert adjudication.claim.text in adjudicating
    assert not [text for text in never if text in adjudicating]

    # The validator of bob's claim: both warnings, with the names, and the writer's reason.
    to_validate = validation.take_next(user=c["cleo"])
    checked = _page(c["cleo"], reverse("validation:validate", args=[to_validate.key]))
    assert warning in checked
    assert 'data-code="negation_artifact"' in checked
    assert "introduce a factual error that contradicts the evidence" in checked
    assert reason in checked
