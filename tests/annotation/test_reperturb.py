"""A perturbation that turned out true goes back to its writer: the item (opened by adjudication
or a validator's revision, once per pair), its page and permissions, the replacement of the
refuted claim, and the whole loop to a pair that may enter a split."""

from __future__ import annotations

import json
import uuid

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotation.errors import AnnotationError, InvalidTransition
from annotation.models import Claim, CuratedElement, PairRole, WorkEvent, WorkItem, WorkKind
from annotation.queue import work
from annotation.review import selectors as review_selectors
from annotation.review import services as review
from annotation.review.stats import agreement_items
from annotation.writing import reperturbation
from annotation.writing import selectors as writing_selectors
from annotation.writing import services as writing
from papers.models import Element
from tests.annotation.claim_factories import ENTAILED
from tests.annotation.factories import make_expert
from tests.annotation.reperturbation import (
    NEW,
    NOTES,
    WHY,
    found_true,
    reperturb_form,
    reperturb_item,
)
from tests.annotation.review_factories import crew, written_pair
from tests.validation.factories import validate_all
from validation import selectors as validation_selectors
from validation import services as validation
from validation.models import Validation
from validation.split import services as split_services

pytestmark = pytest.mark.django_db


def submit_new(item: WorkItem, user, **overrides) -> Claim:
    item.refresh_from_db()
    values = {"refuted": NEW, "explanation": WHY, "perturbation_kind": "number"} | overrides
    return writing.submit_reperturbation(
        item=item,
        user=user,
        version=item.version,
        token=overrides.pop("token", uuid.uuid4()),
        **{k: v for k, v in values.items() if k != "token"},
    )


def test_an_adjudication_that_finds_the_perturbation_true_sends_it_back_to_its_writer():
    c, pair = found_true()
    old = pair.claims.get(label="refuted")
    item = reperturb_item(pair)
    assert (item.assignee, item.claim, item.subfield_code) == (c["wendy"], old, "cs.CL")
    sent = WorkEvent.objects.get(item=item, action="sent back to writer")
    assert sent.pair == pair and NOTES in sent.note and sent.actor == c["ada"]
    # Idempotent: asking again returns the open item; the database refuses a second one.
    assert reperturbation.open_reperturbation(claim=old, actor=None, why="again") == item
    with pytest.raises(IntegrityError), transaction.atomic():
        WorkItem.objects.create(
            kind=WorkKind.REPERTURB, paper=pair.paper, pair=pair, subfield_code="cs.CL"
        )
    # The claim found true is not validated (its replacement will be); the pair waits.
    opened = Validation.objects.filter(claim__pair=pair)
    assert {v.claim.label for v in opened} == {"entailed"}
    assert validation_selectors.complete_pair_ids() == ([], [pair.pk])
    assert writing_selectors.writing_queue(c["wendy"], []).reperturb_to_write == 1


def test_only_the_writer_may_take_and_write_it_and_admins_look_or_hand_it_over(client):
    c, pair = found_true()
    item = reperturb_item(pair)
    url = reverse("annotation:reperturb", args=[item.key])
    for name in ("sam", "tom", "ada", "val", "nia"):
        with pytest.raises(work.NothingToDo):
            work.next_item(user=c[name], kind=WorkKind.REPERTURB)
        client.force_login(c[name])  # never held it: as for a key that names no item
        assert client.get(url).status_code == 404
        assert client.post(url, {"refuted": NEW}).status_code == 404
        assert (
            client.post(reverse("annotation:reperturb_suggest", args=[item.key])).status_code == 404
        )
    client.logout()
    assert client.get(url).status_code == 302  # to the login page
    # The writer takes it from their workspace and sees the claim found true, and why.
    client.force_login(c["wendy"])
    home = client.get(reverse("annotation:home")).content.decode()
    assert 'id="next-reperturb"' in home
    assert client.post(reverse("annotation:next_reperturbation")).url == url
    page = client.get(url).content.decode()
    assert ENTAILED in page and NOTES in page and 'id="failed-label">entailed' in page
    suggested = client.post(reverse("annotation:reperturb_suggest", args=[item.key]))
    assert suggested.status_code == 200 and "take-suggestion" in suggested.content.decode()
    assert pair.claims.get(label="refuted").text not in suggested.content.decode()  # not again
    # An admin may look (read-only) but not write it.
    client.force_login(c["boss"])
    assert "only its holder can write" in client.get(url).content.decode()
    back = client.get(reverse("validation:overview")).content.decode()
    assert f'data-pair="{pair.key}"' in back and url in back  # the admins' list, with the item
    item.refresh_from_db()
    data = {
        "version": item.version,
        "token": str(uuid.uuid4()),
        "refuted": NEW,
        "explanation": WHY,
        "perturbation_kind": "number",
    }
    assert client.post(url, data).status_code == 403
    assert not Claim.objects.filter(text=NEW).exists()
    # Handing it over: only to an expert with no other role on the pair, only by an admin.
    reassign = reverse("annotation:reassign_reperturbation", args=[item.key])
    client.force_login(c["nia"])
    assert client.post(reassign, {"expert": c["nia"].pk}).status_code == 403
    with pytest.raises(AnnotationError, match="Only admins"):
        writing.reassign_reperturbation(item=item, expert=c["nia"], by=c["nia"])
    with pytest.raises(InvalidTransition):  # wendy holds it now
        writing.reassign_reperturbation(item=item, expert=c["nia"], by=c["boss"])
    work.release_item(item=item, user=c["wendy"], version=item.version)
    with pytest.raises(AnnotationError, match="already holds a role"):
        writing.reassign_reperturbation(item=item, expert=c["sam"], by=c["boss"])
    client.force_login(c["boss"])
    client.post(reassign, {"expert": c["nia"].pk, "note": "wendy left"})
    item.refresh_from_db()
    assert item.assignee == c["nia"]
    assert PairRole.objects.get(pair=pair, expert=c["nia"]).role == "writer"
    assert WorkEvent.objects.filter(item=item, action=work.OVERRIDE_ACTION, note="wendy left")
    assert work.next_item(user=c["nia"], kind=WorkKind.REPERTURB) == item
    # Handed on again, nia (who wrote nothing) loses the writer role she was given, so she may
    # still annotate, adjudicate or validate the pair; wendy wrote it and keeps hers.
    item.refresh_from_db()
    work.release_item(item=item, user=c["nia"], version=item.version)
    item.refresh_from_db()
    with pytest.raises(AnnotationError, match="already holds this item"):
        writing.reassign_reperturbation(item=item, expert=c["nia"], by=c["boss"])
    outsider = make_expert("olga", ("cs.RO",))
    with pytest.raises(AnnotationError, match="olga is not eligible"):
        writing.reassign_reperturbation(item=item, expert=outsider, by=c["boss"])
    writing.reassign_reperturbation(item=item, expert=c["val"], by=c["boss"])
    writers = PairRole.objects.filter(pair=pair, role="writer").values_list("expert__username")
    assert sorted(writers.all()) == [("val",), ("wendy",)]
    item.refresh_from_db()
    writing.reassign_reperturbation(item=item, expert=c["wendy"], by=c["boss"])
    assert sorted(writers.all()) == [("wendy",)]


def test_a_bad_submission_records_nothing_and_says_which_field(client):
    c, pair = found_true()
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    old = pair.claims.get(label="refuted")
    cases = [
        ({"refuted": old.text}, "refuted"),  # the perturbation found true, again
        ({"refuted": ENTAILED.upper()}, "refuted"),
        ({"refuted": "Too short."}, "refuted"),
        ({"explanation": ""}, "explanation"),
        ({"perturbation_kind": "magic"}, "perturbation_kind"),
    ]
    for overrides, field in cases:
        with pytest.raises(writing.InvalidClaim) as refused:
            submit_new(item, c["wendy"], **overrides)
        assert field in refused.value.errors, overrides
    old.refresh_from_db()
    assert not old.superseded and pair.claims.count() == 2
    client.force_login(c["wendy"])
    item.refresh_from_db()
    response = client.post(
        reverse("annotation:reperturb", args=[item.key]),
        {
            "version": item.version,
            "token": str(uuid.uuid4()),
            "refuted": old.text,
            "explanation": WHY,
            "perturbation_kind": "number",
        },
    )
    assert response.status_code == 400
    assert "turned out true: write a new one" in response.content.decode()


def test_the_new_claim_replaces_the_old_one_which_is_kept_superseded():
    c, pair = found_true()
    old = pair.claims.get(label="refuted")
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    token = uuid.uuid4()
    new = submit_new(item, c["wendy"], token=token)
    assert submit_new(item, c["wendy"], token=token) == new  # a retry records once
    old.refresh_from_db()
    assert old.superseded and new.replaces == old and not new.superseded
    assert (new.text, new.explanation, new.perturbation_kind) == (NEW, WHY, "number")
    entailed = pair.claims.get(label="entailed")
    assert set(new.evidence.all()) == set(entailed.review.final_evidence.all())
    assert list(Claim.objects.current().filter(pair=pair)) == [entailed, new]
    assert old.review.state == "adjudicated"  # its history stays
    # The review overview counts current claims only: the old one is history.
    states = review_selectors.review_overview().states
    assert sum(states.values()) == Claim.objects.current().count() == 2
    item.refresh_from_db()
    assert item.status == "done"
    replaced = WorkEvent.objects.get(item=item, action="perturbation replaced")
    assert replaced.pair == pair and replaced.old["text"] == old.text
    assert replaced.new["claim"] == new.pk
    # Blind second annotation by someone with no role on the pair.
    evidence_item = WorkItem.objects.get(kind="evidence", claim=new)
    assert evidence_item.status == "open" and evidence_item.assignee is None
    for name in ("wendy", "sam", "tom", "ada"):
        with pytest.raises(work.NothingToDo):
            review.take_next(user=c[name], kind="evidence")
    assert review.take_next(user=c["nia"], kind="evidence") == evidence_item
    with pytest.raises(work.StaleWork):  # the item is done: a second submission is refused
        submit_new(
            item, c["wendy"], refuted="Ours reaches a BLEU of 80.1, higher than the Baseline model."
        )


def test_a_validators_revision_to_entailed_sends_it_back_and_back_to_refuted_withdraws_it(
    client,
):
    c = crew("wendy", "sam", "tom", "val", "vic")
    pair = written_pair(c["wendy"], c["boss"])
    for name in ("sam", "tom"):  # both agree with the writer: unanimous
        item = review.take_next(user=c[name], kind="evidence")
        review.submit_second_annotation(
            item=item,
            user=c[name],
            version=item.version,
            token=uuid.uuid4(),
            label=item.claim.label,
            evidence_ids=item.claim.evidence.values_list("pk", flat=True),
        )
    refuted = pair.claims.get(label="refuted")

    def validate(user, label):
        item = validation.take_next(user=user)
        while item.claim_id != refuted.pk:
            validate_one(item, user, item.claim.review.final_label)
            item = validation.take_next(user=user)
        return validate_one(item, user, label)

    def validate_one(item, user, label):
        claim = Claim.objects.select_related("review").get(pk=item.claim_id)
        return validation.submit_validation(
            item=item,
            user=user,
            version=item.version,
            token=uuid.uuid4(),
            criteria_failed=["label"] if label != claim.review.final_label else [],
            text=claim.text,
            subset=pair.subset,
            label=label,
            evidence_ids=list(claim.review.final_evidence.values_list("pk", flat=True)),
            explanation=claim.explanation,
        )

    validate(c["val"], "entailed")
    validate_all_for(c["val"])  # the other claim, if it became final (and so waits) later
    item = reperturb_item(pair)
    assert item.assignee == c["wendy"] and item.claim == refuted
    assert (
        "revised to entailed by its validator"
        in WorkEvent.objects.get(item=item, action="sent back to writer").note
    )
    assert validation_selectors.complete_pair_ids() == ([], [pair.pk])
    # The page says what the validator changed, and later why it was re-opened (an admin looks).
    client.force_login(c["boss"])
    url = reverse("annotation:reperturb", args=[item.key])
    why = client.get(url).content.decode()
    assert "Validation revised its label: refuted → entailed (criteria failed: label)" in why
    assert "Validation re-opened" not in why
    validation.reopen_validation(claim=refuted, by=c["boss"], reason="the label looks wrong")
    why = client.get(url).content.decode()
    assert "Validation revised its label: refuted → entailed" in why
    assert "Validation re-opened: “the label looks wrong”" in why
    validate(c["vic"], "refuted")  # a second validator says it is false after all
    item.refresh_from_db()
    assert item.status == "cancelled"
    assert validation_selectors.complete_pair_ids() == ([pair.pk], [])


def test_the_whole_loop_ends_in_a_pair_that_may_enter_a_split():
    c, pair = found_true()
    validate_all_for(c["val"])
    old = pair.claims.get(label="refuted")
    assert [p.pair_id for p in split_services.split_pool()] == []
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    new = submit_new(item, c["wendy"])
    # nia annotates the new claim blind and agrees: it is final (unanimous).
    evidence_item = review.take_next(user=c["nia"], kind="evidence")
    review.submit_second_annotation(
        item=evidence_item,
        user=c["nia"],
        version=evidence_item.version,
        token=uuid.uuid4(),
        label="refuted",
        evidence_ids=new.evidence.values_list("pk", flat=True),
    )
    new.review.refresh_from_db()
    assert (new.review.state, new.review.final_label) == ("unanimous", "refuted")
    # The pair's validator validates the new claim too.
    created = list(Validation.objects.filter(claim=new))  # opened when it became final
    assert [v.claim for v in created] == [new] and created[0].item.assignee == c["val"]
    assert validate_all_for(c["val"]) == 1
    assert validation_selectors.complete_pair_ids() == ([pair.pk], [])
    assert [p.pair_id for p in split_services.split_pool()] == [pair.pk]
    split = split_services.freeze_split(validation=2, test=0, seed=1, name="v-loop")
    assert list(split.members.values_list("pair_id", flat=True)) == [pair.pk]
    # Superseded claims are left out of everything that picks a pair's claims.
    assert old not in validation_selectors.final_claims()
    assert old.pk not in {i.item_id for i in agreement_items()}
    stats = validation_selectors.dataset_statistics("v-loop")
    assert stats["parts"]["validation"]["table2"]["claims"] == 2
    assert stats["parts"]["validation"]["table2"]["refuted"] == 1
    assert validation_selectors.dataset_statistics()["validated"] == 2


def validate_all_for(user) -> int:
    return validate_all(None, user)


# --- The new claim's evidence ---------------------------------------------------------------


def final_evidence(pair) -> list[int]:
    entailed = pair.claims.get(label="entailed")
    return sorted(entailed.review.final_evidence.values_list("pk", flat=True))


def evidence_of(claim: Claim) -> list[int]:
    return sorted(claim.evidence.values_list("pk", flat=True))


@pytest.mark.parametrize("choice", ["default", "different"])
def test_the_new_claim_cites_the_entailed_claims_final_evidence_or_what_the_writer_chose(choice):
    c, pair = found_true()
    old = pair.claims.get(label="refuted")
    task = pair.task
    # Another sampled table than the entailed claim's, and a paragraph around it.
    chosen = sorted({task.sampled_ids[2], task.paragraph_ids[0]})
    assert chosen != final_evidence(pair)
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    if choice == "default":
        new, expected = submit_new(item, c["wendy"]), final_evidence(pair)
    else:
        new, expected = submit_new(item, c["wendy"], refuted_evidence_ids=chosen), chosen
    assert evidence_of(new) == expected
    # A direct pair: its entailed claim cites one table/chart (the evidence rule).
    assert evidence_of(pair.claims.get(label="entailed")) == sorted(task.sampled_ids[:1])
    # The history says what the new claim cites, and what the old one cited.
    replaced = WorkEvent.objects.get(item=item, action="perturbation replaced")
    assert replaced.new["evidence"] == expected and replaced.old["evidence"] == evidence_of(old)
    assert WorkEvent.objects.get(item=item, action="submitted").new["evidence"] == expected
    # Blind second annotation judges the new claim with the evidence it cites.
    assert WorkItem.objects.get(kind="evidence", claim=new).status == "open"


def test_shared_final_evidence_that_breaks_the_rule_is_refused_until_other_evidence_is_cited():
    """A claim written before the evidence rule may cite two tables for a direct claim: the new
    perturbation cannot share that evidence, and says so next to its own evidence."""
    c, pair = found_true()
    task = pair.task
    pair.claims.get(label="entailed").review.final_evidence.set(task.sampled_ids[:2])
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    with pytest.raises(writing.InvalidClaim) as refused:
        submit_new(item, c["wendy"])
    assert set(refused.value.errors) == {"refuted_evidence"}
    assert "cannot share it" in refused.value.errors["refuted_evidence"]
    assert "2 are marked" in refused.value.errors["refuted_evidence"]
    new = submit_new(item, c["wendy"], refuted_evidence_ids=[task.sampled_ids[1]])
    assert evidence_of(new) == [task.sampled_ids[1]]


def _not_in_context(pair) -> int:
    kept = CuratedElement.objects.filter(context=pair.context, in_context=True)
    return (
        Element.objects.filter(paper=pair.paper, kind__in=["table", "chart"])
        .exclude(pk__in=kept.values("element_id"))
        .values_list("pk", flat=True)
        .first()
    )


@pytest.mark.parametrize(
    ("seed", "evidence", "message"),
    [
        (1, lambda p: [], "Mark the evidence"),
        (1, lambda p: [p.task.paragraph_ids[0]], "one of the three sampled"),
        (1, lambda p: [p.task.sampled_ids[0], _not_in_context(p)], "not part of this task's"),
        (5, lambda p: [p.task.sampled_ids[0]], "A parallel claim rests on exactly two tables"),
        (1, lambda p: p.task.sampled_ids[:2], "A direct claim rests on exactly one table or chart"),
    ],
    ids=[
        "none",
        "no-sampled-visual",
        "outside-the-context",
        "below-the-subset-rule",
        "above-the-subset-rule",
    ],
)
def test_evidence_breaking_the_writing_rules_is_refused_and_nothing_is_recorded(
    seed, evidence, message
):
    c, pair = found_true(seed=seed)
    old = pair.claims.get(label="refuted")
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    chosen = evidence(pair)
    assert None not in chosen
    with pytest.raises(writing.InvalidClaim) as refused:
        submit_new(item, c["wendy"], refuted_evidence_ids=chosen)
    assert set(refused.value.errors) == {"refuted_evidence"}
    assert message in refused.value.errors["refuted_evidence"]
    old.refresh_from_db()
    item.refresh_from_db()
    assert not old.superseded and pair.claims.count() == 2 and item.status == "leased"
    assert not WorkEvent.objects.filter(
        item=item, action__in=["submitted", "perturbation replaced"]
    )
    assert not WorkItem.objects.filter(kind="evidence", claim__replaces=old).exists()


def test_the_page_offers_the_context_to_cite_and_records_the_choice(client):
    c, pair = found_true()
    task = pair.task
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    url = reverse("annotation:reperturb", args=[item.key])
    client.force_login(c["wendy"])
    html = client.get(url).content.decode()
    assert "The new claim uses different evidence" in html
    assert "checked" not in html.split('name="split_evidence"')[1][:40]
    assert 'id="ref-summary" aria-live="polite" hidden' in html
    # The entailed claim's evidence, the sampled tables/charts and their paragraphs, each with a
    # box for the new claim (images through the item's route); no box for the entailed claim.
    for pk in {*final_evidence(pair), *task.sampled_ids, *task.paragraph_ids}:
        assert f'name="refuted_evidence" value="{pk}" form="writing" aria-label' in html
    assert 'name="evidence"' not in html
    assert reverse("annotation:reperturb_image", args=[item.key, task.sampled_ids[2]]) in html
    # Evidence the writing rules refuse comes back on the page, with what was marked.
    chosen = [task.sampled_ids[2], task.paragraph_ids[0]]
    refused = client.post(
        url, reperturb_form(item, refuted_evidence=[str(task.paragraph_ids[0])], split_evidence="1")
    )
    assert refused.status_code == 400
    page = refused.content.decode()
    assert 'id="err-refuted-evidence"' in page and "one of the three sampled" in page
    assert 'name="split_evidence" value="1" checked' in page  # what was marked stays
    assert f'name="refuted_evidence" value="{task.paragraph_ids[0]}" form="writing" checked' in page
    assert not Claim.objects.filter(text=NEW).exists()
    response = client.post(
        url, reperturb_form(item, split_evidence="1", refuted_evidence=[str(pk) for pk in chosen])
    )
    assert response.status_code == 302
    assert evidence_of(Claim.objects.get(text=NEW)) == sorted(chosen)


def test_without_the_toggle_the_new_claim_keeps_the_entailed_claims_evidence(client):
    c, pair = found_true()
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    client.force_login(c["wendy"])
    response = client.post(
        reverse("annotation:reperturb", args=[item.key]),
        reperturb_form(item, refuted_evidence=[str(pair.task.paragraph_ids[0])]),
    )
    assert response.status_code == 302
    assert evidence_of(Claim.objects.get(text=NEW)) == final_evidence(pair)


def test_the_draft_keeps_the_new_claims_evidence(client):
    c, pair = found_true()
    task = pair.task
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    client.force_login(c["wendy"])
    # An element of the context shown neither as evidence nor around the sampled ones.
    shown = {*final_evidence(pair), *task.sampled_ids, *task.paragraph_ids}
    kept = CuratedElement.objects.filter(context=pair.context, in_context=True)
    extra = kept.exclude(element_id__in=shown).values_list("element_id", flat=True).first()
    body = {
        "version": item.version,
        "draft": {
            "refuted": "Half a claim",
            "split_evidence": True,
            "refuted_evidence": [task.sampled_ids[2], extra],
        },
    }
    saved = client.post(
        reverse("annotation:reperturb_draft", args=[item.key]),
        json.dumps(body),
        content_type="application/json",
    )
    assert saved.status_code == 200
    item.refresh_from_db()
    assert item.draft["split_evidence"] is True
    assert item.draft["refuted_evidence"] == sorted([task.sampled_ids[2], extra])
    html = client.get(reverse("annotation:reperturb", args=[item.key])).content.decode()
    assert "Half a claim" in html and 'name="split_evidence" value="1" checked' in html
    assert "Other evidence you marked" in html
    for pk in (task.sampled_ids[2], extra):
        assert f'name="refuted_evidence" value="{pk}" form="writing" checked' in html
    assert (
        f'name="refuted_evidence" value="{task.sampled_ids[0]}" form="writing" checked' not in html
    )


def test_the_whole_context_loads_on_demand_for_those_who_may_see_the_item(client):
    c, pair = found_true()
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    url = reverse("annotation:reperturb_context", args=[item.key])
    assert client.get(url).status_code == 302  # to the login page
    for name in ("sam", "tom", "ada", "val", "nia"):
        client.force_login(c[name])
        assert client.get(url).status_code == 404
    client.force_login(c["wendy"])
    html = client.get(url).content.decode()
    kept = CuratedElement.objects.filter(context=pair.context, in_context=True)
    others = (
        set(kept.values_list("element_id", flat=True))
        - set(pair.task.paragraph_ids)
        - set(pair.task.sampled_ids)
    )
    for pk in others:
        assert f'name="refuted_evidence" value="{pk}" form="writing" aria-label' in html
    assert "shown above" in html and "/media/" not in html
    client.force_login(c["boss"])  # admins look: the boxes are disabled
    looked = client.get(url).content.decode()
    assert f'value="{min(others)}" form="writing" disabled' in looked
