"""Blind second annotation and adjudication through the services: who may take what, the
comparison, adjudication with provenance, reopening, dropping, overrides and queue order."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.assignment import services as assignment_services
from annotation.errors import AnnotationError, InvalidTransition
from annotation.models import (
    Adjudication,
    ClaimReview,
    CuratedElement,
    PairReview,
    PairRole,
    Subfield,
    WorkEvent,
    WorkItem,
)
from annotation.queue import work
from annotation.review import selectors
from annotation.review import services as review
from annotation.writing import selectors as writing_selectors
from annotation.writing import services as writing
from papers.models import Element
from tests.annotation.claim_factories import curated_paper, submit
from tests.annotation.factories import make_expert
from tests.annotation.review_factories import (
    adjudicate,
    annotate,
    crew,
    writer_evidence,
    written_pair,
)

pytestmark = pytest.mark.django_db


def states(pair) -> dict[str, str]:
    return dict(ClaimReview.objects.filter(claim__pair=pair).values_list("claim__label", "state"))


def test_a_written_pair_opens_two_blind_items_any_eligible_expert_may_take():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    items = WorkItem.objects.filter(pair=pair, kind="evidence")
    assert items.count() == 2 and not items.exclude(assignee=None).exists()
    assert states(pair) == {"entailed": "second", "refuted": "second"}
    assert not PairReview.objects.get(pair=pair).same_second_annotator
    with pytest.raises(work.NothingToDo):  # the writer never annotates her own claims
        review.take_next(user=c["alice"], kind="evidence")


def test_the_two_claims_go_to_different_second_annotators():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    # The workspace counts what bob can take: one claim of the pair, not two.
    assert selectors.review_queue(c["bob"]).evidence_available == 1
    first = annotate(c["bob"])
    with pytest.raises(work.NothingToDo):  # bob holds a role on the pair now
        review.take_next(user=c["bob"], kind="evidence")
    assert selectors.review_queue(c["bob"]).evidence_available == 0
    second = annotate(c["carol"])
    assert {first.claim_id, second.claim_id} == set(pair.claims.values_list("pk", flat=True))
    assert set(PairRole.objects.filter(pair=pair).values_list("expert__username", "role")) == {
        ("alice", "writer"),
        ("bob", "evidence"),
        ("carol", "evidence"),
    }


def test_with_one_eligible_expert_the_second_claim_waits_for_an_admin():
    """Strict blindness: bob may annotate one claim, never both; the other waits, visibly,
    with the reason, until an admin allows someone else."""
    c = crew("alice", "bob")
    pair = written_pair(c["alice"], c["boss"])
    assert not PairReview.objects.get(pair=pair).same_second_annotator
    assert not WorkItem.objects.filter(pair=pair, kind="evidence", assignee__isnull=False)
    first = annotate(c["bob"])
    with pytest.raises(work.NothingToDo):
        review.take_next(user=c["bob"], kind="evidence")
    total, waiting = work.waiting_items("evidence")
    assert total == 1 and waiting[0].item.claim_id != first.claim_id
    assert "alice wrote the pair" in waiting[0].reason
    assert "bob has seen the pair's other claim" in waiting[0].reason
    with pytest.raises(AnnotationError, match="may not take this item"):  # not even an admin
        review.allow_expert(item=waiting[0].item, expert=c["bob"], by=c["boss"])


def test_a_subfield_may_allow_the_flagged_behaviour_with_one_eligible_expert():
    c = crew("alice", "bob")
    Subfield.objects.filter(code="cs.CL").update(shared_second_annotator=True)
    pair = written_pair(c["alice"], c["boss"])
    assert PairReview.objects.get(pair=pair).same_second_annotator
    assert set(
        WorkItem.objects.filter(pair=pair, kind="evidence").values_list(
            "assignee__username", flat=True
        )
    ) == {"bob"}
    assert selectors.review_queue(c["bob"]).evidence_available == 2  # both are his
    annotate(c["bob"])
    annotate(c["bob"])
    assert states(pair) == {"entailed": "unanimous", "refuted": "unanimous"}
    flags = WorkEvent.objects.filter(item__pair=pair, action="flagged")
    assert flags.count() == 2
    assert "only bob is eligible besides the writer" in flags.first().note


def test_with_two_eligible_experts_each_annotates_one_claim_and_adjudicates_the_other():
    """Three experts in all (SciVer's usual): bob and carol annotate one claim each, blind;
    once both are submitted, each may adjudicate the other's claim, never their own."""
    c = crew("alice", "bob", "carol")
    pair = written_pair(c["alice"], c["boss"])
    assert not PairReview.objects.get(pair=pair).same_second_annotator
    bobs = annotate(c["bob"], flip=True)  # a disagreement on bob's claim
    with pytest.raises(work.NothingToDo):  # carol's blind annotation is not in yet
        review.take_next(user=c["carol"], kind="adjudicate")
    carols = annotate(c["carol"], flip=True)
    assert bobs.claim_id != carols.claim_id
    for person in ("alice",):
        with pytest.raises(work.NothingToDo):
            review.take_next(user=c[person], kind="adjudicate")
    assert adjudicate(c["carol"]).claim_id == bobs.claim_id
    assert adjudicate(c["bob"]).claim_id == carols.claim_id
    with pytest.raises(work.NothingToDo):
        review.take_next(user=c["bob"], kind="adjudicate")
    assert set(states(pair).values()) == {"adjudicated"}
    roles = set(
        PairRole.objects.filter(pair=pair).values_list("expert__username", "role", "claim_id")
    )
    assert roles == {
        ("alice", "writer", None),
        ("bob", "evidence", bobs.claim_id),
        ("carol", "evidence", carols.claim_id),
        ("carol", "adjudicator", bobs.claim_id),
        ("bob", "adjudicator", carols.claim_id),
    }


def test_an_adjudication_waits_while_its_only_possible_adjudicator_is_blind_on_the_pair():
    c = crew("alice", "bob", "carol")
    pair = written_pair(c["alice"], c["boss"])
    annotate(c["bob"], flip=True)
    carols = review.take_next(user=c["carol"], kind="evidence")  # taken, not submitted
    total, waiting = work.waiting_items("adjudicate")
    assert total == 1 and waiting[0].item.pair_id == pair.pk
    assert "bob annotated this claim" in waiting[0].reason
    assert "carol has not yet submitted their blind annotation" in waiting[0].reason
    assert carols.claim_id != waiting[0].item.claim_id


def test_with_three_eligible_experts_the_claims_are_split_and_one_is_left_to_adjudicate():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    annotate(c["carol"])
    disputed = annotate(c["dave"], flip=True)
    assert not PairReview.objects.get(pair=pair).same_second_annotator
    assert adjudicate(c["bob"]).claim_id == disputed.claim_id


def test_with_nobody_eligible_the_items_wait_with_the_reason_until_an_admin_allows_someone():
    c = crew("alice")
    outsider = make_expert("olga", ("cs.CV",))
    written_pair(c["alice"], c["boss"])
    total, waiting = work.waiting_items("evidence")
    assert total == 2
    assert all(
        "nobody eligible for cs.CL may take it (alice wrote the pair)" in w.reason for w in waiting
    )
    with pytest.raises(work.NothingToDo):
        review.take_next(user=outsider, kind="evidence")
    item = waiting[0].item
    with pytest.raises(AnnotationError):  # the writer may not be allowed on her own pair
        review.allow_expert(item=item, expert=c["alice"], by=c["boss"])
    with pytest.raises(AnnotationError):  # only admins
        review.allow_expert(item=item, expert=outsider, by=c["alice"])
    review.allow_expert(item=item, expert=outsider, by=c["boss"], note="no cs.CL expert left")
    event = WorkEvent.objects.get(item=item, action=work.OVERRIDE_ACTION)
    assert event.new == {"assignee": outsider.pk, "expert_subfields": ["cs.CV"]}
    assert event.note == "no cs.CL expert left" and event.actor == c["boss"]
    assert work.waiting_items("evidence")[0] == 1
    taken = review.take_next(user=outsider, kind="evidence")
    assert taken.pk == item.pk


def test_agreement_makes_the_claim_final_and_disagreement_sends_it_to_adjudication():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    first = annotate(c["bob"])
    annotate(c["carol"], flip=True)
    reviews = {r.claim_id: r for r in ClaimReview.objects.filter(claim__pair=pair)}
    assert reviews[first.claim_id].state == "unanimous"
    assert reviews[first.claim_id].final_label == first.claim.label
    assert set(reviews[first.claim_id].final_evidence.values_list("pk", flat=True)) == set(
        first.claim.evidence.values_list("pk", flat=True)
    )
    disputed = next(r for pk, r in reviews.items() if pk != first.claim_id)
    assert (disputed.state, disputed.disagreement) == ("adjudication", "label")
    assert WorkItem.objects.filter(kind="adjudicate", claim_id=disputed.claim_id).count() == 1


def _direct_pair_with_a_paragraph(c):
    """A direct pair whose claims cite one sampled table/chart and one paragraph."""
    paper, _ = curated_paper(c["boss"])
    assignment_services.assign_papers(papers=[paper], experts=[c["alice"]], assigned_by=c["boss"])
    writing.create_claim_tasks(paper=paper, by=c["alice"], count=1, seed=1)
    item = work.next_item(user=c["alice"], kind="write")
    task = item.task
    assert task.subset == "direct"
    return submit(item, c["alice"], evidence_ids=[task.sampled_ids[0], task.paragraph_ids[0]])


def test_evidence_overlap_counts_as_agreed_at_the_configured_threshold(settings):
    settings.EVIDENCE_JACCARD_THRESHOLD = 0.5
    c = crew("alice", "bob", "carol", "dave")
    pair = _direct_pair_with_a_paragraph(c)
    ev = writer_evidence(pair, "entailed")  # a table and a paragraph: one of them is Jaccard 0.5
    visual = [pk for pk in ev if pk in pair.task.sampled_ids]
    annotate(c["bob"], evidence=visual)
    settings.EVIDENCE_JACCARD_THRESHOLD = 1.0
    annotate(c["carol"], evidence=visual)
    got = sorted(
        ClaimReview.objects.filter(claim__pair=pair).values_list(
            "state", "disagreement", "evidence_jaccard"
        )
    )
    assert got == [("adjudication", "evidence", 0.5), ("unanimous", "", 0.5)]


def test_a_count_that_breaks_the_evidence_rule_is_a_disagreement_whatever_the_overlap(settings):
    """The second annotator is not held to the evidence rule, but a claim is only unanimous
    when the evidence meets it: two tables for a direct claim go to adjudication, even at a
    threshold they would pass, and even when both annotations agree on them."""
    settings.EVIDENCE_JACCARD_THRESHOLD = 0.5
    c = crew("alice", "bob", "carol", "dave")
    pair = _direct_pair_with_a_paragraph(c)
    sampled = pair.task.sampled_ids
    first = review.take_next(user=c["bob"], kind="evidence")
    ev = writer_evidence(pair, first.claim.label)
    # Bob is not held to the rule: his second table is recorded (Jaccard 2/3 ≥ 0.5)…
    once = review.submit_second_annotation(
        item=first,
        user=c["bob"],
        version=first.version,
        token=uuid.uuid4(),
        label=first.claim.label,
        evidence_ids=[*ev, sampled[1]],
    )
    assert once.evidence.count() == 3
    review_row = ClaimReview.objects.get(claim=first.claim)
    # …and the claim is an evidence disagreement, with the reason in its history.
    assert (review_row.state, review_row.disagreement) == ("adjudication", "evidence")
    assert review_row.evidence_jaccard == pytest.approx(2 / 3)
    compared = WorkEvent.objects.filter(action="compared", new__has_key="evidence_rule").get()
    assert "2 are marked" in compared.new["evidence_rule"]["second annotator"]
    assert WorkItem.objects.filter(kind="adjudicate", claim=first.claim, status="open").exists()
    # A writer's evidence that breaks it (a claim written before the rule), marked the same by
    # the second annotator, is not unanimous either.
    settings.EVIDENCE_JACCARD_THRESHOLD = 1.0
    other = pair.claims.exclude(pk=first.claim_id).get()
    other.evidence.set(sampled[:2])
    annotate(c["carol"], evidence=list(sampled[:2]))
    other_review = ClaimReview.objects.get(claim=other)
    assert (other_review.state, other_review.disagreement) == ("adjudication", "evidence")
    assert other_review.evidence_jaccard == 1.0 and not other_review.final_evidence.exists()


def test_the_second_annotation_is_validated_and_recorded_once():
    c = crew("alice", "bob", "carol", "dave")
    written_pair(c["alice"], c["boss"])
    item = review.take_next(user=c["bob"], kind="evidence")
    with pytest.raises(review.InvalidAnnotation) as refused:
        review.submit_second_annotation(
            item=item,
            user=c["bob"],
            version=item.version,
            token=uuid.uuid4(),
            label="maybe",
            evidence_ids=[],
        )
    assert set(refused.value.errors) == {"label", "evidence"}
    token = uuid.uuid4()
    kwargs = {
        "item": item,
        "user": c["bob"],
        "version": item.version,
        "token": token,
        "label": "entailed",
        "evidence_ids": item.claim.evidence.values_list("pk", flat=True),
    }
    once = review.submit_second_annotation(**kwargs)
    assert review.submit_second_annotation(**kwargs).pk == once.pk  # a retry records once
    with pytest.raises(work.StaleWork):
        review.submit_second_annotation(**kwargs | {"token": uuid.uuid4()})


def test_what_evidence_may_be_is_read_with_the_locked_item():
    """The context's elements (with their kinds, a figure marked 'not a chart' as a figure) and
    the writer's evidence come in the submission's one locking read: evidence outside the
    context is refused, a figure is not a table or chart, and they match the separate read."""
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    item = review.take_next(user=c["bob"], kind="evidence")
    context = pair.context
    kinds, written = writing_selectors.evidence_kinds_and_cited(context, item.claim_id)
    rows = CuratedElement.objects.filter(context=context, in_context=True)
    assert kinds == {r.element_id: r.element.kind for r in rows} and len(kinds) > 3
    assert written == set(item.claim.evidence.values_list("pk", flat=True))
    chart = rows.filter(element__kind=Element.Kind.CHART).first()
    outside = Element.objects.exclude(pk__in=kinds).first()

    def submitted(evidence: list[int]) -> dict[str, str]:
        with pytest.raises(review.InvalidAnnotation) as refused:
            review.submit_second_annotation(
                key=item.key,
                user=c["bob"],
                version=item.version,
                token=uuid.uuid4(),
                label="entailed",
                evidence_ids=evidence,
            )
        return refused.value.errors

    assert "not part of this paper" in submitted([*written, outside.pk])["evidence"]
    CuratedElement.objects.filter(pk=chart.pk).update(not_a_chart=True)
    assert "at least one table or chart" in submitted([chart.element_id])["evidence"]
    kinds, _ = writing_selectors.evidence_kinds_and_cited(context, item.claim_id)
    assert kinds[chart.element_id] == "figure"


def _disagree(c, pair, *, label_for: str = "carol"):
    """bob agrees on one claim; `label_for` disagrees on the label of the other."""
    annotate(c["bob"])
    return annotate(c[label_for], flip=True)


def test_adjudication_needs_a_third_expert_and_records_its_provenance():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    disputed = _disagree(c, pair)
    for person in (c["alice"], disputed.done_by):  # the writer and the claim's annotator
        with pytest.raises(work.NothingToDo):
            review.take_next(user=person, kind="adjudicate")
    item = review.take_next(user=c["dave"], kind="adjudicate")
    claim = item.claim
    wrong = "refuted" if claim.label == "entailed" else "entailed"
    base = {
        "item": item,
        "user": c["dave"],
        "version": item.version,
        "token": uuid.uuid4(),
        "decision": "decided",
        "label": wrong,
        "confidence": "medium",
        "reason": "ambiguous_claim",
        "notes": "",
        "evidence_ids": [*writer_evidence(pair, claim.label), pair.task.paragraph_ids[0]],
    }
    with pytest.raises(review.InvalidAnnotation) as refused:  # differs from both: notes needed
        review.submit_adjudication(**base)
    assert "notes" in refused.value.errors
    assert not Adjudication.objects.exists()
    decided = review.submit_adjudication(**base | {"notes": "The caption contradicts both."})
    assert decided.overrides_both
    r = ClaimReview.objects.get(claim=disputed.claim)
    assert (r.state, r.final_label) == ("adjudicated", wrong)
    assert PairRole.objects.get(pair=pair, expert=c["dave"]).role == "adjudicator"
    assert PairRole.objects.get(pair=pair, expert=c["dave"]).claim_id == disputed.claim_id
    assert set(selectors.releasable_claims().filter(pair=pair).values_list("pk", flat=True)) == set(
        pair.claims.values_list("pk", flat=True)
    )


def test_the_adjudicators_final_evidence_is_held_to_the_evidence_rule():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])  # direct: one table or chart
    disputed = _disagree(c, pair)
    item = review.take_next(user=c["dave"], kind="adjudicate")
    sampled = pair.task.sampled_ids
    base = {
        "item": item,
        "user": c["dave"],
        "version": item.version,
        "token": uuid.uuid4(),
        "decision": "decided",
        "label": item.claim.label,
        "confidence": "high",
        "reason": "second_annotator_error",
        "notes": "Both tables say so.",
    }
    with pytest.raises(review.InvalidAnnotation) as refused:
        review.submit_adjudication(**base, evidence_ids=sampled[:2])
    message = refused.value.errors["evidence"]
    assert "A direct claim rests on exactly one table or chart" in message
    assert "2 are marked" in message and "Untick one" in message
    labels = Element.objects.filter(pk__in=sampled[:2]).values_list("label", flat=True)
    assert all(label in message for label in labels)
    assert not Adjudication.objects.exists()
    with pytest.raises(review.InvalidAnnotation) as refused:  # a table that was not sampled
        review.submit_adjudication(**base, evidence_ids=[pair.task.paragraph_ids[0]])
    assert "none is marked" in refused.value.errors["evidence"]
    review.submit_adjudication(**base, evidence_ids=sampled[1:2])
    r = ClaimReview.objects.get(claim=disputed.claim)
    assert r.state == "adjudicated" and list(r.final_evidence.values_list("pk", flat=True)) == [
        sampled[1]
    ]


def test_notes_are_not_needed_when_siding_with_one_annotator():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    _disagree(c, pair)
    item = adjudicate(c["dave"])  # the writer's label and evidence, no notes
    assert not item.adjudication.overrides_both and item.adjudication.notes == ""


def test_the_database_refuses_an_unexplained_override():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    _disagree(c, pair)
    item = adjudicate(c["dave"])
    with pytest.raises(IntegrityError), transaction.atomic():
        Adjudication.objects.filter(pk=item.adjudication.pk).update(overrides_both=True)


def test_unresolved_claims_are_reopened_for_another_adjudicator_or_their_pair_dropped():
    c = crew("alice", "bob", "carol", "dave", "erin")
    pair = written_pair(c["alice"], c["boss"])
    disputed = _disagree(c, pair)
    with pytest.raises(review.InvalidAnnotation):
        adjudicate(c["dave"], decision="unresolved")  # notes required
    item = WorkItem.objects.get(kind="adjudicate", holder=c["dave"])
    review.submit_adjudication(
        item=item,
        user=c["dave"],
        version=item.version,
        token=uuid.uuid4(),
        decision="unresolved",
        label="",
        evidence_ids=[],
        confidence="low",
        reason="guideline_gap",
        notes="The guidelines say nothing.",
    )
    assert ClaimReview.objects.get(claim=disputed.claim).state == "unresolved"
    assert disputed.claim_id not in set(selectors.releasable_claims().values_list("pk", flat=True))
    with pytest.raises(AnnotationError):
        review.reopen_unresolved(claim=disputed.claim, by=c["alice"])
    review.reopen_unresolved(claim=disputed.claim, by=c["boss"], note="try erin")
    with pytest.raises(work.NothingToDo):  # never the same adjudicator again
        review.take_next(user=c["dave"], kind="adjudicate")
    assert adjudicate(c["erin"]).adjudication.decision == "decided"
    assert ClaimReview.objects.get(claim=disputed.claim).state == "adjudicated"
    with pytest.raises(InvalidTransition):
        review.reopen_unresolved(claim=disputed.claim, by=c["boss"])
    with pytest.raises(AnnotationError):
        review.drop_pair(pair=pair, by=c["boss"], reason="  ")
    review.drop_pair(pair=pair, by=c["boss"], reason="the table is misparsed")
    assert set(states(pair).values()) == {"dropped"}
    assert not selectors.releasable_claims().filter(pair=pair).exists()
    event = WorkEvent.objects.get(pair=pair, action="pair dropped", machine="pair")
    assert event.note == "the table is misparsed" and event.item is None
    assert (event.from_status, event.to_status) == ("active", "dropped")
    # Each claim's review moved too, each with its own row in the review's vocabulary.
    moved = WorkEvent.objects.filter(pair=pair, action="pair dropped", machine="review")
    reviewed = ClaimReview.objects.filter(claim__pair=pair).values_list("claim_id", flat=True)
    assert sorted(moved.values_list("claim_id", flat=True)) == sorted(reviewed)
    assert {e.to_status for e in moved} == {"dropped"}


def test_dropping_cancels_the_open_review_items():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    review.take_next(user=c["bob"], kind="evidence")
    review.drop_pair(pair=pair, by=c["boss"], reason="duplicate")
    assert set(
        WorkItem.objects.filter(pair=pair, kind="evidence").values_list("status", flat=True)
    ) == {"cancelled"}
    with pytest.raises(work.NothingToDo):
        review.take_next(user=c["carol"], kind="evidence")


def test_the_annotation_queue_is_shuffled_across_papers():
    c = crew("alice", "bob", "carol", "dave")
    for seed in range(6):
        written_pair(c["alice"], c["boss"], seed=seed)
    handed = []
    for _ in range(6):  # bob takes one claim per pair (the other is then not his)
        item = annotate(c["bob"])
        handed.append(item.pk)
    created = sorted(handed)
    assert handed != created
    # The first is the first open claim at or after bob's starting point in the random keys.
    start = WorkItem.objects.annotate(start=work.shuffle_start(c["bob"])).values("start")[:1]
    start = start[0]["start"]
    keys = dict(WorkItem.objects.filter(kind="evidence").values_list("pk", "shuffle_key"))
    assert handed[0] == min(keys, key=lambda pk: (keys[pk] < start, keys[pk]))


def test_claims_assigned_by_name_come_before_the_shuffled_ones():
    c = crew("alice", "bob", "carol", "dave")
    for seed in range(4):
        written_pair(c["alice"], c["boss"], seed=seed)  # free for bob, carol and dave
    mine = written_pair(c["alice"], c["boss"], seed=9)
    WorkItem.objects.filter(pair=mine, kind="evidence").update(assignee=c["bob"])
    first, second = annotate(c["bob"]), annotate(c["bob"])
    assert first.pair_id == second.pair_id == mine.pk
    assert annotate(c["bob"]).pair_id != mine.pk


def test_the_adjudication_queue_puts_label_disagreements_first():
    c = crew("alice", "bob", "carol", "dave")
    label_pair = written_pair(c["alice"], c["boss"], seed=1)
    written_pair(c["alice"], c["boss"], seed=2)
    for person in ("bob", "carol", "bob", "carol"):  # one claim of each pair each
        item = review.take_next(user=c[person], kind="evidence")
        claim = item.claim
        ev = writer_evidence(claim.pair, claim.label)
        wrong = "refuted" if claim.label == "entailed" else "entailed"
        on_label_pair = claim.pair_id == label_pair.pk
        review.submit_second_annotation(
            item=item,
            user=c[person],
            version=item.version,
            token=uuid.uuid4(),
            label=wrong if on_label_pair else claim.label,
            evidence_ids=ev if on_label_pair else [*ev, claim.pair.task.paragraph_ids[0]],
        )
    queue = WorkItem.objects.filter(kind="adjudicate")
    assert queue.count() == 4
    # The evidence-only disagreements are older: severity still comes first.
    queue.filter(claim__review__disagreement="evidence").update(
        created_at=timezone.now() - dt.timedelta(days=1)
    )
    handed = []
    for _ in range(4):
        item = adjudicate(c["dave"])
        handed.append(ClaimReview.objects.get(claim_id=item.claim_id).disagreement)
    assert handed == ["label", "label", "evidence", "evidence"]
