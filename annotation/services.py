"""Writes of the annotation workflow: accounts, experts, assignment, curation (one transaction
each, keyword-only arguments, domain errors from annotation.errors)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.tokens import default_token_generator
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from annotation import selectors
from annotation.context_rules import count_context, proposed_for_removal, sections_in_context
from annotation.errors import (
    AccountError,
    AlreadyAssigned,
    AnnotationError,
    IneligibleExpert,
    InvalidCuration,
    InvalidTransition,
    NotAssigned,
    StaleContext,
)
from annotation.models import (
    Assignment,
    AssignmentEvent,
    AssignmentStatus,
    CuratedContext,
    CuratedElement,
    CuratedSection,
    ExpertProfile,
    PaperSubfield,
    Publication,
    Role,
    Subfield,
    Training,
)
from annotation.models.experts import MAX_PUBLICATION_TITLE
from annotation.spreading import spread_balanced
from papers.models import Element, Paper, Section

User = get_user_model()
log = logging.getLogger(__name__)


# --- Accounts ------------------------------------------------------------------------------


def password_reset_path(*, user: AbstractBaseUser) -> str:
    """The path of a link that lets `user` choose a password. It works once: Django's token
    covers the password hash, which changes when the link is used."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})


@transaction.atomic
def create_account(
    *,
    username: str,
    first_name: str = "",
    last_name: str = "",
    email: str = "",
    is_staff: bool = False,
    created_by: AbstractBaseUser | None = None,
) -> tuple[AbstractBaseUser, str]:
    """A new account without a password, and its expert profile; returns the user and the path
    of the one-time link with which they choose their password (no e-mail is sent)."""
    username = username.strip()
    if not username:
        raise AccountError("A username is required.")
    if User.objects.filter(username__iexact=username).exists():
        raise AccountError(f"The username {username!r} is taken.")
    user = User(
        username=username,
        first_name=first_name.strip(),
        last_name=last_name.strip(),
        email=email.strip(),
        is_staff=is_staff,
        is_superuser=is_staff,
    )
    user.set_unusable_password()
    user.save()
    ExpertProfile.objects.create(user=user)
    log.info("account %s created by %s", username, created_by)
    return user, password_reset_path(user=user)


@transaction.atomic
def reset_password(*, user: AbstractBaseUser, by: AbstractBaseUser | None = None) -> str:
    """Disable the current password (and so any earlier link and the user's sessions) and
    return the path of a fresh one-time link for choosing a new one."""
    user = User.objects.select_for_update().get(pk=user.pk)
    user.set_unusable_password()
    user.save(update_fields=["password"])
    log.info("password of %s reset by %s", user.get_username(), by)
    return password_reset_path(user=user)


# --- Experts -------------------------------------------------------------------------------


def ensure_expert_profile(*, user: AbstractBaseUser) -> ExpertProfile:
    return ExpertProfile.objects.get_or_create(user=user)[0]


@transaction.atomic
def update_expert_profile(
    *,
    profile: ExpertProfile,
    subfields: Iterable[Subfield],
    active: bool,
    notes: str = "",
) -> ExpertProfile:
    profile.active = active
    profile.notes = notes
    profile.save(update_fields=["active", "notes", "updated_at"])
    profile.subfields.set(list(subfields))
    return profile


@transaction.atomic
def add_publication(
    *, profile: ExpertProfile, title: str, venue: str, year: int, subfield: Subfield
) -> Publication:
    title, venue = title.strip(), venue.strip()
    if not title or not venue:
        raise AccountError("A publication needs a title and a venue.")
    if len(title) > MAX_PUBLICATION_TITLE:
        raise AccountError(
            f"This title has {len(title):,} characters; at most {MAX_PUBLICATION_TITLE:,} are "
            "accepted. Nothing was saved."
        )
    if not 1950 <= year <= timezone.now().year + 1:
        raise AccountError(f"{year} is not a plausible publication year.")
    return Publication.objects.create(
        expert=profile, title=title, venue=venue, year=year, subfield=subfield
    )


@transaction.atomic
def remove_publication(*, publication: Publication) -> None:
    publication.delete()


@transaction.atomic
def record_training(
    *,
    profile: ExpertProfile,
    completed_on: dt.date,
    trainer: str,
    notes: str = "",
    recorded_by: AbstractBaseUser | None = None,
) -> Training:
    if completed_on > timezone.localdate():
        raise AccountError("Training can only be recorded once it has taken place.")
    if not trainer.strip():
        raise AccountError("Say who gave the training.")
    return Training.objects.create(
        expert=profile,
        completed_on=completed_on,
        trainer=trainer.strip(),
        notes=notes,
        recorded_by=recorded_by,
    )


# --- Assignment ----------------------------------------------------------------------------


@transaction.atomic
def set_paper_subfield(
    *, papers: Sequence[Paper], subfield: Subfield, changed_by: AbstractBaseUser | None
) -> int:
    """Choose the subfield of papers (overriding their primary category). Open assignments are
    kept: the admin decides whether to reassign."""
    for paper in papers:
        PaperSubfield.objects.update_or_create(
            paper=paper, defaults={"subfield": subfield, "changed_by": changed_by}
        )
    return len(papers)


def _transition(
    assignment: Assignment, to: AssignmentStatus, *, actor: AbstractBaseUser | None, note: str
) -> None:
    if not assignment.can_become(to):
        raise InvalidTransition(
            f"An assignment that is {assignment.get_status_display()} cannot become "
            f"{AssignmentStatus(to).label}."
        )
    AssignmentEvent.objects.create(
        assignment=assignment, from_status=assignment.status, to_status=to, actor=actor, note=note
    )
    assignment.status = to
    assignment.status_changed_at = timezone.now()
    assignment.save(update_fields=["status", "status_changed_at"])


def _open(
    assignment_paper: Paper,
    expert: AbstractBaseUser,
    *,
    role: str,
    by: AbstractBaseUser | None,
    note: str,
) -> Assignment:
    try:
        with transaction.atomic():
            assignment = Assignment.objects.create(
                paper=assignment_paper, expert=expert, role=role, assigned_by=by
            )
    except IntegrityError as exc:  # a concurrent assignment won the race
        raise AlreadyAssigned(f"{assignment_paper.versioned_id} is already assigned.") from exc
    AssignmentEvent.objects.create(
        assignment=assignment, to_status=AssignmentStatus.ASSIGNED, actor=by, note=note
    )
    return assignment


@dataclass
class AssignmentResult:
    created: list[Assignment] = field(default_factory=list)
    closed: list[Assignment] = field(default_factory=list)
    left_over: list[Paper] = field(default_factory=list)
    # Chosen experts eligible for none of the papers (username, why), so given none.
    not_eligible: list[tuple[str, str]] = field(default_factory=list)

    def count_by_expert(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for a in self.created:
            name = a.expert.get_username()
            counts[name] = counts.get(name, 0) + 1
        return dict(sorted(counts.items()))


def _lock_papers(papers: Sequence[Paper]) -> list[Paper]:
    ids = [p.pk for p in papers]
    locked = {
        p.pk: p
        for p in selectors.papers_with_subfield(
            Paper.objects.filter(pk__in=ids).defer("raw_html_compressed").order_by("pk")
        ).select_for_update()
    }
    missing = [pk for pk in ids if pk not in locked]
    if missing:
        raise AnnotationError(f"Papers {missing} no longer exist.")
    return [locked[pk] for pk in ids]


@transaction.atomic
def assign_papers(
    *,
    papers: Sequence[Paper],
    experts: Sequence[AbstractBaseUser],
    assigned_by: AbstractBaseUser | None,
    per_expert: int | None = None,
    reassign: bool = False,
    leave_over: bool = False,
    note: str = "",
    role: str = Role.WRITER,
) -> AssignmentResult:
    """Assign papers to one expert, or spread them over several balanced by each one's open
    workload. Every paper must go to an expert eligible for its subfield. Papers already
    assigned are refused unless `reassign` (then the old assignment is closed, with history).
    With `leave_over` (the command), papers nobody can take are reported instead of refused.
    """
    if not papers:
        raise IneligibleExpert("Select at least one paper.")
    if not experts:
        raise IneligibleExpert("Choose at least one expert.")
    if len({p.pk for p in papers}) != len(papers):
        raise IneligibleExpert("A paper is listed twice.")
    locked = _lock_papers(papers)
    not_parsed = [p.versioned_id for p in locked if p.status != Paper.Status.PARSED]
    if not_parsed:
        raise IneligibleExpert(
            f"Only parsed papers can be assigned; not parsed: {', '.join(not_parsed)}."
        )
    archived = [p.versioned_id for p in locked if p.archived_at is not None]
    if archived:
        raise IneligibleExpert(
            f"Archived papers cannot be assigned (un-archive them first on Papers): "
            f"{', '.join(archived)}."
        )
    current = {
        a.paper_id: a
        for a in Assignment.objects.select_for_update()
        .filter(paper__in=locked, role=role, status__in=Assignment.OPEN)
        .select_related("expert")
    }
    if current and not reassign:
        taken = ", ".join(
            f"{p.versioned_id} ({current[p.pk].expert.get_username()})"
            for p in locked
            if p.pk in current
        )
        raise AlreadyAssigned(f"Already assigned: {taken}. Tick 'reassign' to move them.")

    codes = sorted({p.subfield_code or "" for p in locked})
    eligibility = selectors.eligibility_by_expert([e.pk for e in experts], codes)
    eligible = {
        p.pk: [
            e
            for e in experts
            if eligibility[e.pk][p.subfield_code or ""].eligible
            and not (p.pk in current and current[p.pk].expert_id == e.pk)
        ]
        for p in locked
    }
    if len(experts) == 1 and not leave_over:
        expert = experts[0]
        refused = [p for p in locked if not eligible[p.pk]]
        if refused:
            first = refused[0]
            why = eligibility[expert.pk][first.subfield_code or ""].explain()
            if first.pk in current and current[first.pk].expert_id == expert.pk:
                why = "it is already assigned to them"
            raise IneligibleExpert(
                f"{expert.get_username()} cannot take {len(refused)} of the selected papers "
                f"({', '.join(p.versioned_id for p in refused)}): for "
                f"{first.versioned_id} ({first.subfield_code or 'no subfield'}): {why}."
            )
    load = selectors.open_workload([e.pk for e in experts])
    by_pk = {p.pk: p for p in locked}
    spread = spread_balanced(
        [p.pk for p in locked],
        {pk: [e.pk for e in candidates] for pk, candidates in eligible.items()},
        {e.pk: load.get(e.pk, 0) for e in experts},
        per_expert=per_expert,
    )
    if spread.left_over and not leave_over:
        names = ", ".join(by_pk[pk].versioned_id for pk in spread.left_over[:10])
        subject = {by_pk[pk].subfield_code or "no subfield" for pk in spread.left_over}
        raise IneligibleExpert(
            f"No chosen expert is eligible (or has room) for {len(spread.left_over)} paper(s): "
            f"{names} (subfield {', '.join(sorted(subject))})."
        )
    result = AssignmentResult(left_over=[by_pk[pk] for pk in spread.left_over])
    for expert in experts:
        if not any(expert in candidates for candidates in eligible.values()):
            judged = [eligibility[expert.pk][code] for code in codes]
            why = (
                "; ".join(
                    f"{code or 'no subfield'}: {e.explain()}"
                    for code, e in zip(codes, judged, strict=True)
                    if not e.eligible
                )
                or "the papers are already theirs"
            )
            result.not_eligible.append((expert.get_username(), why))
    experts_by_pk = {e.pk: e for e in experts}
    for paper_pk, expert_pk in spread.assigned.items():
        paper, expert = by_pk[paper_pk], experts_by_pk[expert_pk]
        previous = current.get(paper_pk)
        if previous is not None:
            _transition(
                previous,
                AssignmentStatus.UNASSIGNED,
                actor=assigned_by,
                note=f"reassigned to {expert.get_username()}",
            )
            result.closed.append(previous)
        text = note or (
            f"reassigned from {previous.expert.get_username()}" if previous is not None else ""
        )
        result.created.append(_open(paper, expert, role=role, by=assigned_by, note=text))
    return result


@transaction.atomic
def unassign(
    *, papers: Sequence[Paper], by: AbstractBaseUser | None, note: str = "", role: str = Role.WRITER
) -> list[Assignment]:
    """Close the open assignments of these papers; their curated contexts stay."""
    locked = _lock_papers(papers)
    assignments = list(
        Assignment.objects.select_for_update().filter(
            paper__in=locked, role=role, status__in=Assignment.OPEN
        )
    )
    if not assignments:
        raise NotAssigned("None of the selected papers is assigned.")
    for assignment in assignments:
        _transition(assignment, AssignmentStatus.UNASSIGNED, actor=by, note=note or "unassigned")
    return assignments


# --- Curation ------------------------------------------------------------------------------


def _same_decisions(
    context: CuratedContext, sections: set[int], elements: set[int], not_charts: set[int]
) -> bool:
    kept_sections = set(
        CuratedSection.objects.filter(context=context, kept=True).values_list(
            "section_id", flat=True
        )
    )
    kept_elements, flagged = set(), set()
    for pk, kept, not_a_chart in CuratedElement.objects.filter(context=context).values_list(
        "element_id", "kept", "not_a_chart"
    ):
        if kept:
            kept_elements.add(pk)
        if not_a_chart:
            flagged.add(pk)
    return (kept_sections, kept_elements, flagged) == (sections, elements, not_charts)


@transaction.atomic
def save_curated_context(
    *,
    paper: Paper,
    user: AbstractBaseUser,
    kept_section_ids: Iterable[int],
    kept_element_ids: Iterable[int],
    not_chart_ids: Iterable[int],
    latest_seen: int | None,
    based_on: int | None = None,
    note: str = "",
) -> CuratedContext:
    """Save the curator's decisions as the paper's next context version. `latest_seen` is the
    newest version when the page was opened: if someone saved since, nothing is written. The
    same decisions as the latest version (and no new note) write nothing and return it."""
    paper = Paper.objects.select_for_update().only("id", "arxiv_id", "version").get(pk=paper.pk)
    if not selectors.can_curate(user, paper.pk):
        raise NotAssigned(f"{paper.versioned_id} is not assigned to you.")
    latest = selectors.latest_context(paper.pk)
    if (latest.number if latest else None) != latest_seen:
        raise StaleContext(
            f"Version {latest.number} of this context was saved by "
            f"{latest.created_by.get_username() if latest.created_by else 'someone'} since you "
            "opened the page. Nothing was overwritten, and your choices are still on this page, "
            f"not saved yet: keep them as version {latest.number + 1}, or take version "
            f"{latest.number}."
            if latest
            else "The context changed since you opened the page; reload."
        )
    sections = list(Section.objects.filter(paper=paper).values_list("pk", "parent_id", "kind"))
    elements = list(Element.objects.filter(paper=paper).values_list("pk", "section_id", "kind"))
    section_ids = {pk for pk, _, _ in sections}
    element_kind = {pk: kind for pk, _, kind in elements}
    kept_sections, kept_elements, not_charts = (
        set(kept_section_ids),
        set(kept_element_ids),
        set(not_chart_ids),
    )
    foreign = (kept_sections - section_ids) | (kept_elements - element_kind.keys())
    if foreign:
        raise InvalidCuration(f"Items {sorted(foreign)[:5]} are not part of this paper.")
    wrong = sorted(pk for pk in not_charts if element_kind.get(pk) != Element.Kind.CHART)
    if wrong:
        raise InvalidCuration(f"Only figures can be marked 'not a chart' (got {wrong[:5]}).")

    if (
        latest is not None
        and note.strip() in ("", latest.note)
        and _same_decisions(latest, kept_sections, kept_elements, not_charts)
    ):
        return latest  # nothing changed: no new version (the caller sees latest_seen again)

    live_sections = sections_in_context({pk: parent for pk, parent, _ in sections}, kept_sections)
    in_context = {
        pk: pk in kept_elements and section_id in live_sections for pk, section_id, _ in elements
    }
    counts = count_context((kind, pk in not_charts) for pk, _, kind in elements if in_context[pk])
    base = None
    if based_on is not None:
        base = CuratedContext.objects.filter(paper=paper, number=based_on).first()
    context = CuratedContext.objects.create(
        paper=paper,
        number=(latest.number + 1) if latest else 1,
        based_on=base or latest,
        created_by=user,
        note=note.strip(),
        table_count=counts.tables,
        chart_count=counts.charts,
        not_chart_count=counts.not_charts,
        paragraph_count=counts.paragraphs,
        removed_section_count=len(section_ids - live_sections),
    )
    CuratedSection.objects.bulk_create(
        CuratedSection(
            context=context,
            section_id=pk,
            kept=pk in kept_sections,
            proposed_removal=proposed_for_removal(kind),
        )
        for pk, _, kind in sections
    )
    CuratedElement.objects.bulk_create(
        (
            CuratedElement(
                context=context,
                element_id=pk,
                kept=pk in kept_elements,
                in_context=in_context[pk],
                not_a_chart=pk in not_charts,
            )
            for pk, _, _ in elements
        ),
        batch_size=500,
    )
    for assignment in Assignment.objects.select_for_update().filter(
        paper=paper, role=Role.WRITER, status=AssignmentStatus.ASSIGNED
    ):
        _transition(
            assignment, AssignmentStatus.CURATED, actor=user, note=f"context v{context.number}"
        )
    return context
