"""Writes of the guidelines app: publishing a guideline version, the version an item is done
under (set as it is submitted), flags and the fixes admins make (one transaction each, domain
errors). Text longer than its limit is refused with the field, the limit and the length, never
cut, whoever calls (a page, a command, the shell)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Subquery
from django.utils import timezone

from annotation import access
from annotation.errors import AnnotationError, too_long
from annotation.models import CuratedElement, WorkItem
from guidelines.models import (
    FixAction,
    Flag,
    FlagFix,
    FlagKind,
    FlagStatus,
    GuidelineVersion,
)
from jobs import dispatch
from jobs.models import Job
from papers.drawing import render_paper_images
from papers.models import Element, Paper

MAX_NOTE = 5000  # a version's note, a flag's, a fix's note or reason
MAX_KEY, MAX_TITLE, MAX_BODY = 64, 200, 20000  # a guideline section's key, title and text
# What the pages' counters show (`data-max`): the same limits the services refuse beyond.
LIMITS = {"note": MAX_NOTE, "key": MAX_KEY, "title": MAX_TITLE, "body": MAX_BODY}


class GuidelineError(AnnotationError):
    pass


def _staff(by: AbstractBaseUser) -> None:
    access.require_staff(by, lambda message: GuidelineError(message, reason="forbidden"))


def _refuse_long(nothing: str, fields: Sequence[tuple[str, str, int]]) -> None:
    """Refuse (`nothing`: what was not done) when any (name, text, limit) is longer than its
    limit, naming each such field with its limit and length: text is never cut."""
    problems = [message for name, text, limit in fields if (message := too_long(name, text, limit))]
    if problems:
        raise GuidelineError(f"{nothing}: " + " ".join(problems))


# --- Guidelines ------------------------------------------------------------------------------


def current_version() -> GuidelineVersion | None:
    return GuidelineVersion.objects.order_by("-number").first()


@transaction.atomic
def publish_guidelines(
    *,
    by: AbstractBaseUser,
    sections: Sequence[Mapping[str, str]],
    note: str,
    based_on: int | None,
) -> GuidelineVersion:
    """Publish the next version (the old ones stay). `based_on` is the number the editor
    started from: if another admin published meanwhile, nothing is written."""
    _staff(by)
    current = GuidelineVersion.objects.select_for_update().order_by("-number").first()
    number = current.number if current else 0
    if (based_on or 0) != number:
        raise GuidelineError(
            f"Version {number} was published while you edited version {based_on or 0}: "
            "nothing was saved. Open the editor again and re-apply your changes.",
            reason="stale",
        )
    note = note.strip()
    texts = [
        {name: str(s.get(name, "")).strip() for name in ("key", "title", "body")} for s in sections
    ]
    _refuse_long(
        "Nothing was published",
        [
            (f"Section {i}'s {what}", section[name], limit)
            for i, section in enumerate(texts, start=1)
            for name, what, limit in (
                ("key", "key", MAX_KEY),
                ("title", "title", MAX_TITLE),
                ("body", "text", MAX_BODY),
            )
        ]
        + [("note", note, MAX_NOTE)],
    )
    cleaned = []
    for s in texts:
        title, body = s["title"], s["body"]
        if not title and not body:
            continue  # an emptied section is removed
        if not title or not body:
            raise GuidelineError("Every section needs a title and a text.")
        key = s["key"] or f"section-{len(cleaned) + 1}"
        cleaned.append({"key": key, "title": title, "body": body})
    if not cleaned:
        raise GuidelineError("The guidelines cannot be empty.")
    if current is not None and cleaned == current.sections:
        raise GuidelineError("Nothing changed: no new version was made.")
    if not note:
        raise GuidelineError("Say in a note what changed (annotators read it).")
    try:
        with transaction.atomic():
            return GuidelineVersion.objects.create(
                number=number + 1, sections=cleaned, note=note, created_by=by
            )
    except IntegrityError as exc:  # the first version, published twice at once
        raise GuidelineError(
            "Another admin published at the same time: open the editor again.", reason="stale"
        ) from exc


def guideline_in_force(item: WorkItem) -> dict[str, Any]:
    """The version in force, for the UPDATE that marks `item` done (`lifecycle.on_enter_set`):
    a subquery, so the database reads it in that statement rather than in a read and a write
    of their own."""
    latest = GuidelineVersion.objects.order_by("-number").values("pk")[:1]
    return {"guideline_id": Subquery(latest)}


# --- Flags -----------------------------------------------------------------------------------


def item_context_id(item: WorkItem) -> int | None:
    """The curated context an item's page shows (a writing item's task's, else its pair's)."""
    if item.pair_id:
        return item.pair.context_id
    if item.task_id:
        return item.task.context_id
    return None


@transaction.atomic
def raise_flag(
    *,
    user: AbstractBaseUser,
    kind: str,
    note: str,
    item: WorkItem | None = None,
    paper: Paper | None = None,
    element_id: int | None = None,
) -> Flag:
    """Flag an element shown on a task page, or the item itself (no element)."""
    note = str(note).strip()
    errors = []
    if kind not in FlagKind.values:
        errors.append("Choose what is wrong.")
    if not note:
        errors.append("Say in a note what is wrong.")
    elif problem := too_long("note", note, MAX_NOTE):
        errors.append(problem)
    if item is not None:
        if not access.worked_on(user, item):
            raise GuidelineError(
                "You can flag only an item you hold or submitted.", reason="forbidden"
            )
        paper_id = item.paper_id
    elif paper is not None:
        if not access.writes_paper(user, paper.pk):
            raise GuidelineError("This paper is not assigned to you.", reason="forbidden")
        paper_id = paper.pk
    else:
        raise GuidelineError("A flag needs an item or a paper.")
    element = None
    if element_id is not None:
        element = Element.objects.filter(pk=element_id, paper_id=paper_id).first()
        context_id = item_context_id(item) if item is not None else None
        shown = element is not None and (
            context_id is None
            or CuratedElement.objects.filter(
                context_id=context_id, element_id=element_id, in_context=True
            ).exists()
        )
        if not shown:
            errors.append("That element is not shown on this task's page.")
    elif item is None:
        errors.append("Choose the element you flag.")
    if errors:
        raise GuidelineError("Nothing was flagged: " + " ".join(errors))
    return Flag.objects.create(
        paper_id=paper_id, item=item, element=element, kind=kind, note=note, by=user
    )


def _open_flag(flag: Flag) -> Flag:
    return Flag.objects.select_for_update(of=("self",)).select_related("element").get(pk=flag.pk)


def _fix(flag: Flag, *, by, action: str, before=None, after=None, note: str = "") -> FlagFix:
    """A fix's record; its note whole (each service refuses a note over MAX_NOTE first)."""
    note = note.strip()
    _refuse_long("Nothing was recorded", [("note", note, MAX_NOTE)])
    return FlagFix.objects.create(
        flag=flag, action=action, before=before or {}, after=after or {}, note=note, by=by
    )


@transaction.atomic
def edit_flagged_element(
    *,
    flag: Flag,
    by: AbstractBaseUser,
    caption: str | None = None,
    text: str | None = None,
    note: str = "",
) -> list[FlagFix]:
    """Correct the flagged element's caption or text in place; each changed field a fix. A
    caption or text longer than MAX_BODY is refused whole, as the page refuses it."""
    _staff(by)
    _refuse_long(
        "Nothing was recorded",
        [
            ("note", note.strip(), MAX_NOTE),
            ("caption", str(caption or "").strip(), MAX_BODY),
            ("text", str(text or "").strip(), MAX_BODY),
        ],
    )
    flag = _open_flag(flag)
    element = flag.element
    if element is None:
        raise GuidelineError("This flag is about the item, not an element.")
    element = Element.objects.select_for_update().get(pk=element.pk)
    fixes, changed = [], []
    for field, action, value in (
        ("caption", FixAction.CAPTION, caption),
        ("text", FixAction.TEXT, text),
    ):
        if value is None:
            continue
        value = str(value).strip()
        if value != getattr(element, field):
            fixes.append(
                _fix(
                    flag,
                    by=by,
                    action=action,
                    before={field: getattr(element, field)},
                    after={field: value},
                    note=note,
                )
            )
            setattr(element, field, value)
            changed.append(field)
    if not changed:
        raise GuidelineError("Nothing changed.")
    element.save(update_fields=changed)
    return fixes


@transaction.atomic
def mark_flagged_element(*, flag: Flag, by: AbstractBaseUser, reason: str) -> FlagFix:
    """Mark the flagged element degraded (the pages and the release check show it), with why."""
    _staff(by)
    reason = str(reason).strip()
    _refuse_long("Nothing was recorded", [("reason", reason, MAX_NOTE)])
    flag = _open_flag(flag)
    if flag.element is None:
        raise GuidelineError("This flag is about the item, not an element.")
    if not reason:
        raise GuidelineError("Say why the element is marked.")
    element = Element.objects.select_for_update().get(pk=flag.element_id)
    before = {"degraded": element.degraded, "degraded_reasons": list(element.degraded_reasons)}
    element.degraded = True
    element.degraded_reasons = [*element.degraded_reasons, f"flagged: {reason}"]
    element.save(update_fields=["degraded", "degraded_reasons"])
    after = {"degraded": True, "degraded_reasons": element.degraded_reasons}
    return _fix(flag, by=by, action=FixAction.MARKED, before=before, after=after, note=reason)


RERENDER_KIND = "rerender_flagged_element"  # the Job kind; its params hold the flag's id


def _rerenderable(element: Element | None) -> Element:
    """The flagged element, if a render can draw it again (else why not, refused)."""
    if element is None or element.kind == Element.Kind.PARAGRAPH:
        raise GuidelineError("Only a table or a chart can be re-rendered.")
    if element.kind == Element.Kind.TABLE and element.is_image_table:
        raise GuidelineError(
            "This table is an image in the paper: there are no cells to "
            "render again. Correct its caption or mark it degraded."
        )
    if element.kind == Element.Kind.CHART and not element.panels.filter(svg__gt="").exists():
        raise GuidelineError(
            "This chart is an image in the paper, not an SVG: there is nothing "
            "to render again. Correct its caption or mark it degraded."
        )
    return element


def rerender_jobs(flag: Flag):
    """The re-render jobs started from this flag's page, newest first."""

    return Job.objects.filter(kind=RERENDER_KIND, params__flag_id=flag.pk).order_by(
        "-created_at", "-id"
    )


@transaction.atomic
def start_rerender(*, flag: Flag, by: AbstractBaseUser):
    """Start re-rendering the flagged table or SVG chart in the background (RQ's render queue
    with Redis, else a thread), as the paper renders are; the job records the fix when it is
    done. Refused while an earlier re-render of this flag is still queued or running."""

    _staff(by)
    flag = _open_flag(flag)  # one start at a time per flag
    _rerenderable(flag.element)
    running = rerender_jobs(flag).filter(status__in=Job.ACTIVE).first()
    if running is not None:
        raise GuidelineError(
            f"A re-render of this element is already {running.status} "
            f"(job {running.pk}): wait for it to end.",
            reason="stale",
        )
    return dispatch.start_job(
        kind=RERENDER_KIND,
        function="guidelines.jobs.rerender_flagged_element",
        params={"flag_id": flag.pk, "by_id": by.pk},
        queue="render",
        timeout=900,
        mode="thread",
    )


def rerender_flagged_element(
    *, flag: Flag, by: AbstractBaseUser, progress=None, job_id: int | None = None
) -> FlagFix:
    """Render the flagged table or SVG chart again and record it (what the job of
    `start_rerender` runs; `progress(done, total, message)` as the paper renders take)."""

    _staff(by)
    element = _rerenderable(flag.element)
    before = {"image": element.image.name, "renderer": element.image_renderer}
    result = render_paper_images(
        paper_id=element.paper_id, element_ids=[element.pk], progress=progress
    )
    element.refresh_from_db()
    after = {
        "image": element.image.name,
        "renderer": element.image_renderer,
        "problems": list(result["problems"]),
    }
    if job_id is not None:
        after["job"] = job_id
    with transaction.atomic():
        return _fix(
            _open_flag(flag), by=by, action=FixAction.RERENDERED, before=before, after=after
        )


@transaction.atomic
def close_flag(*, flag: Flag, by: AbstractBaseUser, status: str, note: str) -> FlagFix:
    """Close a flag as fixed or dismissed, with a note (kept with the flag's fixes)."""
    _staff(by)
    _refuse_long("Nothing was recorded", [("note", note.strip(), MAX_NOTE)])
    flag = _open_flag(flag)
    if status not in (FlagStatus.FIXED, FlagStatus.DISMISSED):
        raise GuidelineError("Close a flag as fixed or dismissed.")
    if flag.status != FlagStatus.OPEN:
        raise GuidelineError(f"This flag is already {flag.get_status_display()}.", reason="stale")
    if status == FlagStatus.DISMISSED and not note.strip():
        raise GuidelineError("Say why the flag is dismissed.")
    before = {"status": flag.status}
    flag.status = status
    flag.save(update_fields=["status"])
    action = FixAction.FIXED if status == FlagStatus.FIXED else FixAction.DISMISSED
    return _fix(
        flag,
        by=by,
        action=action,
        before=before,
        after={"status": status, "at": timezone.now().isoformat()},
        note=note,
    )
