"""The audit log's payloads have shapes (`annotation.events`): every action declares one, a
payload that does not fit is refused when written, and every event a whole workflow writes
(writing, blind review, adjudication, a new perturbation, edits, validation, hand-overs,
re-opening, dropping) parses with its action's shape."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation import events, lifecycle
from annotation.models import ClaimPair, WorkAction, WorkEvent, WorkItem, WorkKind
from annotation.queue import work
from annotation.review import edits as review_edits
from annotation.review import services as review
from annotation.writing import services as writing
from tests.annotation.factories import make_expert
from tests.annotation.reperturbation import NEW, WHY, found_true
from tests.annotation.review_factories import adjudicate, annotate
from tests.validation.factories import validate_all
from validation import edits as validation_edits
from validation import services as validation


def test_every_action_declares_a_shape():
    assert set(events.SHAPES) == set(WorkAction.values)
    with pytest.raises(events.PayloadError, match="declares no payload shape"):
        events.check("made up", {}, {})


def test_a_payload_that_does_not_fit_is_refused():
    events.check(WorkAction.CLAIMED, {"holder": None}, {"holder": 3, "version": 2})
    with pytest.raises(events.PayloadError, match="'holdr' is not one of its keys"):
        events.check(WorkAction.CLAIMED, {"holdr": 1}, {})
    with pytest.raises(events.PayloadError, match="new does not fit Holder: 'version' is '2'"):
        events.check(WorkAction.CLAIMED, {}, {"version": "2"})
    with pytest.raises(events.PayloadError, match="'overrides_both' is 1"):
        events.check(WorkAction.ANSWER_EDITED, {}, {"overrides_both": 1})
    nested = {"refuted": {"text": "t", "evidence": ["x"]}}
    with pytest.raises(events.PayloadError, match="'refuted'"):
        events.check(WorkAction.SUBMITTED, {}, nested)
    assert events.problems(events.PairDropped, {"states": {"4": "unanimous"}}) == []


def test_a_reader_gets_only_the_shapes_keys():
    assert events.read(events.Holder, {"holder": 1, "stray": 2}) == {"holder": 1}
    assert events.read(events.Holder, None) == {}


@pytest.mark.django_db
def test_nothing_is_written_when_a_payload_does_not_fit():
    c, pair = found_true()
    before = WorkEvent.objects.count()
    with pytest.raises(events.PayloadError):
        lifecycle.record(pair, actor=c["boss"], action=WorkAction.FLAGGED, new={"who": 1})
    assert WorkEvent.objects.count() == before


def _revise(user, item) -> None:
    """Validate `item`'s claim failing a criterion, its text revised."""
    claim = item.claim
    validation.submit_validation(
        item=item,
        user=user,
        version=item.version,
        token=uuid.uuid4(),
        criteria_failed=["language"],
        text=claim.text + " Indeed.",
        subset=claim.pair.subset,
        label=claim.review.final_label,
        evidence_ids=list(claim.review.final_evidence.values_list("pk", flat=True)),
        explanation=claim.explanation,
    )


def _workflow() -> dict:
    """A pair through every stage: its perturbation found true and replaced, the new claim's
    second annotator editing their answer, adjudication, a lease renewed and one handed back,
    validations passed, revised and edited, one re-opened and handed to another subfield's
    expert by an admin, and the pair dropped at the end."""
    c, pair = found_true()
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    writing.submit_reperturbation(
        item=item,
        user=c["wendy"],
        version=item.version,
        token=uuid.uuid4(),
        refuted=NEW,
        explanation=WHY,
        perturbation_kind="number",
    )
    blind = annotate(c["val"])
    review_edits.edit_second_annotation(
        item=blind,
        user=c["val"],
        label="entailed",
        evidence_ids=list(blind.claim.evidence.values_list("pk", flat=True)),
    )
    adjudicate(c["nia"], label="refuted", reason="second_annotator_error")
    vic = make_expert("vic")
    taken = validation.take_next(user=vic)
    WorkItem.objects.filter(pk=taken.pk).update(lease_expires_at=timezone.now() - timedelta(1))
    taken = validation.take_next(user=vic)  # the same item: its lease renewed
    work.release_item(item=taken, user=vic, version=taken.version)
    first = validation.take_next(user=vic)
    _revise(vic, first)
    wes = make_expert("wes")
    assert validate_all(None, wes) == 1
    second = WorkItem.objects.get(kind=WorkKind.VALIDATE, done_by=wes)
    claim = second.claim
    validation_edits.edit_validation(
        item=second,
        user=wes,
        criteria_failed=["language"],
        text=claim.text + " Edited.",
        evidence_ids=list(claim.review.final_evidence.values_list("pk", flat=True)),
        explanation=claim.explanation,
    )
    validation.reopen_validation(claim=first.claim, by=c["boss"], reason="check again")
    waiting = WorkItem.objects.get(claim=first.claim, kind=WorkKind.VALIDATE, status="open")
    outsider = make_expert("cyd", codes=("cs.CV",))
    review.allow_expert(item=waiting, expert=outsider, by=c["boss"], note="no one else")
    review.drop_pair(pair=ClaimPair.objects.get(pk=pair.pk), by=c["boss"], reason="a test")
    return c


@pytest.mark.django_db
def test_every_event_of_a_whole_workflow_parses_with_its_actions_shape():
    _workflow()
    rows = list(WorkEvent.objects.values_list("id", "action", "old", "new"))
    misfits = []
    for pk, action, old, new in rows:
        try:
            events.check(action, old, new)
        except events.PayloadError as exc:
            misfits.append(f"event {pk}: {exc}")
    assert misfits == []
    seen = {action for _, action, _, _ in rows}
    # The workflow reaches the actions that carry payloads, so their shapes are tried.
    assert {
        WorkAction.CREATED,
        WorkAction.CLAIMED,
        WorkAction.LEASE_RENEWED,
        WorkAction.RELEASED,
        WorkAction.SUBMITTED,
        WorkAction.COMPARED,
        WorkAction.ADJUDICATED,
        WorkAction.SENT_BACK,
        WorkAction.PERTURBATION_REPLACED,
        WorkAction.ANSWER_EDITED,
        WorkAction.VALIDATED,
        WorkAction.REOPENED,
        WorkAction.OVERRIDE,
        WorkAction.PAIR_DROPPED,
        WorkAction.CANCELLED,
        WorkAction.OPENED,
    } <= seen


def test_a_history_page_reads_an_event_through_its_actions_shape():
    event = WorkEvent(
        action=WorkAction.RELEASED, old={"holder": 2, "gone": 1}, new={"holder": None}
    )
    assert events.old_of(event) == {"holder": 2}
    assert events.new_of(event) == {"holder": None}
    assert events.old_of(WorkEvent(action="made up", old={"holder": 2})) == {}
