"""Validation (SciVer step 7): a final claim handed to a validator, checked against the five
criteria, revised where it fails, and reopened by an admin. The human baseline, the split and
the export are packages of their own (`baseline/`, `split/`, `export/`)."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotation import access, lifecycle
from annotation.errors import AnnotationError, InvalidTransition, too_long
from annotation.evidence import evidence_rule_problem
from annotation.experts import selectors as expert_selectors
from annotation.inputs import MAX_TEXT, id_set
from annotation.models import (
    Claim,
    ClaimPair,
    ClaimReview,
    PairRole,
    PairState,
    Role,
    Subset,
    WorkAction,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work
from annotation.review.services import element_labels
from annotation.writing import reperturbation
from annotation.writing import selectors as writing_selectors
from validation import routing, rules
from validation.models import (
    CRITERIA,
    Validation,
    ValidationRevision,
    ValidationStatus,
)


class InvalidValidation(AnnotationError):
    """A validation refused; `errors` maps each form field to what is wrong with it."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("Nothing was recorded: " + " ".join(errors.values()))
        self.errors = errors


def long_text_errors(**texts: str) -> dict[str, str]:
    """Field -> refusal for each text longer than MAX_TEXT (with the limit and its length): a
    validation or an answer refuses it whole, whoever calls, and never cuts it."""
    return {
        name: message for name, text in texts.items() if (message := too_long(name, text, MAX_TEXT))
    }


def labelled_rule_problem(
    subset: str, evidence: Collection[int], kinds: Mapping[int, str], sampled: Collection[int]
) -> str:
    """The evidence rule (`evidence_rule_problem`) for a validator's final evidence, its tables
    and charts named by their labels ("Table 2"; one query, only when the rule is broken); ""
    when the evidence meets it. A validation and an edit of one refuse with it."""
    return evidence_rule_problem(subset, evidence, kinds, sampled, labels=element_labels)


# --- Validation ------------------------------------------------------------------------------


def open_validation(review: ClaimReview, *, actor: AbstractBaseUser | None) -> Validation | None:
    """A claim that became final is handed to validation in the same transaction (registered
    with `annotation.lifecycle.on_enter` in `validation.apps`): its validation item goes to the
    pair's validator where the blindness rule lets them, else to anyone it lets (never the
    claim's writer, second annotator or adjudicator; with nobody, it waits for an admin). A perturbation found true is not validated: its writer replaces it, and
    the new claim is. A dropped pair's or a replaced claim's claims are not either."""
    claim = _cached(review, "claim")
    if claim is None or _cached(claim, "pair") is None:  # a caller that did not join them
        claim = Claim.objects.select_related("pair").get(pk=review.claim_id)
    pair = claim.pair
    if not rules.validates(
        superseded=claim.superseded,
        dropped=pair.state == PairState.DROPPED,
        written=claim.label,
        final=review.final_label,
    ):
        return None
    withdrawn = None
    if _has_validation(claim):
        # Only a validation withdrawn before anyone took it (its second annotator edited their
        # answer, `annotation.review.edits`) is handed out again, with a new item.
        withdrawn = Validation.objects.filter(
            claim=claim, status=ValidationStatus.PENDING, item__status=WorkStatus.CANCELLED
        ).first()
        if withdrawn is None:
            return None
    route = _route(claim, pair)
    item = work.create_item(
        kind=WorkKind.VALIDATE,
        paper_id=pair.paper_id,
        subfield_code=pair.subfield_code,
        actor=actor,
        pair=pair,
        claim=claim,
        assignee_id=route.assignee,
    )
    if route.assignee is not None:
        work.record(
            item, route.action, actor=actor, new={"assignee": route.assignee}, note=route.note
        )
    if withdrawn is not None:
        withdrawn.claim = claim
        return lifecycle.change(
            withdrawn,
            actor=actor,
            action=WorkAction.OPENED,
            changes={"item": item},
            old={"item": withdrawn.item_id},
            new={"item": item.pk},
        )
    validation = Validation.objects.create(claim=claim, item=item)
    lifecycle.opened(validation, actor=actor, action=WorkAction.OPENED)
    return validation


def _route(claim: Claim, pair: ClaimPair) -> routing.Route:
    """Where a claim's validation item goes. Only a pair with a validator routes its claim (to
    them): the full rule's three reads are asked only then. A caller that locked the pair's
    claim may have asked already (`has_validator` on the pair, e.g. the blind submission's one
    read)."""
    route = routing.Route(None)
    has_validator = getattr(pair, "has_validator", None)
    if has_validator is None:
        has_validator = PairRole.objects.filter(pair_id=pair.pk, role=Role.VALIDATOR).exists()
    if has_validator:
        roles, pending = work.pair_roles([pair.pk])
        eligible = [u.pk for u in expert_selectors.eligible_experts(pair.subfield_code)]
        route = routing.route_validation(claim.pk, eligible, roles[pair.pk], pending[pair.pk])
    return route


def _cached(obj, relation: str):
    """A forward relation already loaded with `obj` (select_related), else None."""
    return obj._state.fields_cache.get(relation)


def _has_validation(claim: Claim) -> bool:
    """Whether the claim has its validation row (read from the join when the caller made one:
    `select_related("claim__validation")` caches a missing one too)."""
    if "validation" in claim._state.fields_cache:
        return claim._state.fields_cache["validation"] is not None
    return Validation.objects.filter(claim=claim).exists()


@transaction.atomic
def take_next(*, user: AbstractBaseUser) -> WorkItem:
    """Lease the expert's next validation item, record their role on its claim, and name them
    for the pair's other claim where the blindness rule lets them."""
    item = work.next_item(user=user, kind=WorkKind.VALIDATE)
    PairRole.objects.get_or_create(
        pair_id=item.pair_id, claim_id=item.claim_id, expert=user, defaults={"role": Role.VALIDATOR}
    )
    for other in (
        WorkItem.objects.select_for_update(of=("self",))
        .filter(
            pair_id=item.pair_id,
            kind=WorkKind.VALIDATE,
            status=WorkStatus.OPEN,
            assignee__isnull=True,
            claim__validation__validator__isnull=True,  # a re-opened claim goes to another
        )
        .exclude(pk=item.pk)
    ):
        if not work.refusal_for(other, user.pk):
            work.assign(
                other, user.pk, actor=user, note="the pair's validator validates its claims"
            )
    return item


@transaction.atomic
def submit_validation(
    *,
    item: WorkItem,
    user: AbstractBaseUser,
    version: int | None,
    token: uuid.UUID,
    criteria_failed: Iterable[str],
    text: str,
    subset: str,
    label: str,
    evidence_ids: Iterable[object],
    explanation: str = "",
) -> Validation:
    """Pass (no criterion failed, nothing changed) or fail and revise: the claim's text, the
    pair's subset (both claims), the final label, evidence or explanation are changed in place
    and every changed field is kept as a revision."""
    item, replay = work.begin_submission(item=item, user=user, version=version, token=token)
    if replay:
        return Validation.objects.get(claim_id=item.claim_id)
    if item.kind != WorkKind.VALIDATE:
        raise AnnotationError("This is not a validation item.")
    claim, pair, review, validation = _lock_for_validation(item)
    failed, text, explanation, evidence, errors = read_answer(
        text, explanation, criteria_failed, evidence_ids
    )
    errors |= _answer_errors(claim, pair, subset, label, evidence, explanation)
    before = rules.answer_fields(
        text=claim.text,
        subset=pair.subset,
        label=review.final_label,
        evidence=review.final_evidence.values_list("pk", flat=True),
        explanation=claim.explanation,
    )
    after = rules.answer_fields(
        text=text,
        subset=subset,
        label=label,
        evidence=evidence,
        explanation=explanation,
        written=claim.label,
    )
    revision = rules.Revision(before, after, failed)
    if not errors and (problem := rules.criteria_error(failed, revision.changed)):
        errors["criteria"] = problem
    if errors:
        raise InvalidValidation(errors)
    _record_validation(validation, item, revision, pair=pair, review=review, user=user, token=token)
    return validation


def _lock_for_validation(item: WorkItem) -> tuple[Claim, ClaimPair, ClaimReview, Validation]:
    """The item's claim, pair and review, locked, and its validation, which must be pending."""
    claim = (
        Claim.objects.select_related("pair__context", "pair__task")
        .select_for_update(of=("self",))
        .get(pk=item.claim_id)
    )
    pair = ClaimPair.objects.select_for_update().get(pk=claim.pair_id)
    review = ClaimReview.objects.select_for_update().get(claim=claim)
    validation = Validation.objects.get(claim=claim)
    validation.claim = claim
    if validation.status != ValidationStatus.PENDING:
        raise InvalidTransition("This claim is already validated.")
    return claim, pair, review, validation


def _record_validation(
    validation: Validation,
    item: WorkItem,
    revision: rules.Revision,
    *,
    pair: ClaimPair,
    review: ClaimReview,
    user: AbstractBaseUser,
    token: uuid.UUID,
) -> None:
    """Write a checked validation: its revisions, the pair's subset and the final label it
    changes, the validation validated and the item finished."""
    claim, changed = validation.claim, revision.changed
    before, after, failed = revision.before, revision.after, revision.failed
    record_revisions(
        validation=validation,
        item=item,
        claim=claim,
        review=review,
        fields=changed,
        before=before,
        after=after,
        failed=failed,
        user=user,
    )
    _revise_pair_and_label(pair, claim, review, changed, after=after, failed=failed, user=user)
    outcome = revision.outcome
    lifecycle.move(
        validation,
        ValidationStatus.VALIDATED,
        actor=user,
        action=WorkAction.VALIDATED,
        changes={
            "validator": user,
            "validated_at": timezone.now(),
            "criteria_failed": failed,
            "revisions": validation.revisions + (1 if changed else 0),
            "reopen_reason": "",
        },
        new={"outcome": outcome, "criteria_failed": failed},
        refusal="This claim is already validated.",
    )
    work.finish_submission(
        item,
        user=user,
        token=token,
        pair=None,
        old={k: before[k] for k in changed} | {"draft": item.draft},
        new={k: after[k] for k in changed} | {"criteria_failed": failed, "outcome": outcome},
    )


def _answer_errors(
    claim: Claim, pair: ClaimPair, subset: str, label: str, evidence: set[int], explanation: str
) -> dict[str, str]:
    """`rules.answer_errors` with what it reads: the context's elements, the pair's validated
    other claim's evidence (when the subset changes), the labels of tables/charts to name."""
    kinds, _ = writing_selectors.evidence_kinds_and_texts(claim.pair.context)
    return rules.answer_errors(
        subset=subset,
        label=label,
        evidence=evidence,
        explanation=explanation,
        written=claim.label,
        kinds=kinds,
        pair_subset=pair.subset,
        sampled=claim.pair.task.sampled_ids,
        sibling_evidence=_validated_sibling_evidence(pair, claim, subset),
        labels=element_labels,
    )


def _validated_sibling_evidence(pair: ClaimPair, claim: Claim, subset: str) -> set[int] | None:
    """The final evidence of the pair's other claim when it is validated and `subset` would
    change the pair's (its evidence must meet the new subset's rule too); else None."""
    if subset not in Subset.values or subset == pair.subset:
        return None
    sibling = (
        ClaimReview.objects.filter(
            claim__pair=pair,
            claim__superseded_at__isnull=True,
            claim__validation__status=ValidationStatus.VALIDATED,
        )
        .exclude(claim=claim)
        .first()
    )
    return set(sibling.final_evidence.values_list("pk", flat=True)) if sibling else None


def _revise_pair_and_label(
    pair: ClaimPair,
    claim: Claim,
    review: ClaimReview,
    changed: Sequence[str],
    *,
    after: Mapping[str, object],
    failed: list[str],
    user: AbstractBaseUser,
) -> None:
    """A validator's revision of the subset (the pair's: both claims change) and of the final
    label: a refuted claim found true gets a new perturbation, one found false again no longer
    needs it."""
    if "subset" in changed:
        pair.subset = after["subset"]
        pair.save(update_fields=["subset"])
    if "label" not in changed:
        return
    review.final_label = after["label"]
    review.save(update_fields=["final_label", "updated_at"])
    if claim.label == "refuted" and after["label"] == "entailed":
        reperturbation.open_reperturbation(
            claim=claim,
            actor=user,
            why=f"revised to entailed by its validator ({', '.join(failed)})",
        )
    elif claim.label == "refuted":
        reperturbation.cancel_reperturbation(
            pair=pair,
            actor=user,
            note="its validator revised the refuted claim back to refuted",
        )


@transaction.atomic
def read_answer(
    text: object,
    explanation: object,
    criteria_failed: Iterable[str],
    evidence_ids: Iterable[object],
) -> tuple[list[str], str, str, set[int], dict[str, str]]:
    """A validator's answer as a validation and an edit of one read it: the criteria failed
    (sorted), the claim's text (whitespace collapsed) and explanation, the evidence's ids, and
    what is wrong so far (field -> why: an unknown criterion, an empty claim, a text too long)."""
    failed = sorted(set(criteria_failed))
    text, explanation = " ".join(str(text).split()), str(explanation).strip()
    evidence = id_set(evidence_ids)
    errors: dict[str, str] = long_text_errors(text=text, explanation=explanation)
    if any(c not in CRITERIA for c in failed):
        errors["criteria"] = "Unknown criterion."
    if not text:
        errors["text"] = "The claim cannot be empty."
    return failed, text, explanation, evidence, errors


def record_revisions(
    *,
    validation: Validation,
    item: WorkItem,
    claim: Claim,
    review: ClaimReview,
    fields: Sequence[str],
    before: Mapping[str, object],
    after: Mapping[str, object],
    failed: list[str],
    user: AbstractBaseUser,
) -> None:
    """A validator's revision of `fields`, as a validation and an edit of one record it: one
    revision row per field (before, after, the criteria it failed), the claim's text and
    explanation, and the claim's final evidence. The label and subset are the caller's."""
    for name in fields:
        ValidationRevision.objects.create(
            validation=validation,
            item=item,
            field=name,
            before=before[name],
            after=after[name],
            criteria_failed=failed,
            by=user,
        )
    if "text" in fields or "explanation" in fields:
        claim.text, claim.explanation = after["text"], after["explanation"]
        claim.save(update_fields=["text", "explanation"])
    if "evidence" in fields:
        review.final_evidence.set(after["evidence"])


def reopen_validation(*, claim: Claim, by: AbstractBaseUser, reason: str) -> Validation:
    """An admin sends a validated claim back to validation, with the reason; another validator
    takes it (the work queue never hands a re-opened claim to whoever did it before)."""
    access.require_staff(by)
    reason = reason.strip()
    if not reason:
        raise AnnotationError("Say why the item is re-opened.")
    if problem := too_long("reason", reason, MAX_TEXT):
        raise AnnotationError(f"Nothing was re-opened: {problem}")
    validation = Validation.objects.select_related("claim__pair").get(claim=claim)
    if validation.claim.superseded:
        raise InvalidTransition("A new perturbation replaced this claim: it is no longer released.")
    if validation.claim.pair.state == PairState.DROPPED:
        raise InvalidTransition("This claim's pair was dropped.")
    pair = validation.claim.pair
    previous = validation.item_id
    item = work.create_item(
        kind=WorkKind.VALIDATE,
        paper_id=pair.paper_id,
        subfield_code=pair.subfield_code,
        actor=by,
        pair=pair,
        claim=validation.claim,
    )
    lifecycle.move(
        validation,
        ValidationStatus.PENDING,
        actor=by,
        action=WorkAction.REOPENED,
        changes={"item": item, "reopen_reason": reason},
        old={"item": previous},
        new={"item": item.pk},
        note=reason,
        refusal="Only validated items can be re-opened.",
    )
    return validation


# --- Human baseline --------------------------------------------------------------------------
