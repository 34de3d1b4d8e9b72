"""What a refused export says: each claim or element named, why, and what brings it back.
Claims and pairs are named by their keys, as the pages name them (a claim's page, the
validation list). Where the fix is a new split, a message says "make a new split" (`NEW_SPLIT`):
the pages offer the split form beside it (`offers_new_split`), the command line the command
(`with_command_hint`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from papers.models import Element, ElementPanel
from validation.export.rows import ReleaseElement, item_number
from validation.models import SplitVersion
from validation.release.records import image_name

SHOWN = 50  # claims named in a refusal; the rest are counted
NEW_SPLIT = "make a new split"  # the words a refusal that a new split fixes says
MAKE_SPLIT_COMMAND = "python manage.py make_split --validation N --test M"


def offers_new_split(message: str) -> bool:
    """Whether a refusal's fix is a new split (the pages then offer the split form)."""
    return NEW_SPLIT in (message or "").casefold()


def with_command_hint(message: str) -> str:
    """A refusal as the command line says it: where a new split is the fix, with its command."""
    if not offers_new_split(message):
        return message
    return f"{message}\nTo make a new split from the command line: {MAKE_SPLIT_COMMAND} …"


def claim_ref(key: str, label: str, pair_key: str, paper: str, subset: str = "") -> str:
    """`claim Ab3… (refuted, pair Xy9…, paper 2410.01234v1)`: a claim as pages name it."""
    kind = f"{label}, {subset}" if subset else label
    return f"claim {key} ({kind}, pair {pair_key}, paper {paper})"


def shown(items: list[str]) -> str:
    more = f"; … and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return "; ".join(items[:SHOWN]) + more


def rule_message(split: SplitVersion, broken: list[str]) -> str:
    return (
        f"split {split.name}: {len(broken)} claim(s) rest on final evidence that breaks the "
        "evidence rule (exactly one table or chart for a direct or analytical claim, exactly "
        "two for a parallel or sequential one, at least one of them sampled), so their "
        "records would show a model other tables/charts than the claims need: "
        f"{shown(broken)}. Nothing was written. Re-open their validation (Validation, "
        "/manage/validation/, Re-open, with the reason) so that a validator fixes the "
        "evidence, then export again; or make a new split without these pairs and export "
        "that one."
    )


EVIDENCE_FIX = (
    "for a claim whose evidence is not in its record's context, re-open its validation so that "
    "the validator picks its evidence from the paper's current curated context (its pair was "
    "written on an earlier one), or make a new split without it"
)


def unfaithful_message(split: SplitVersion, found: list[tuple[str, str]]) -> str:
    fixes = list(dict.fromkeys(fix for _, fix in found))
    return (
        f"split {split.name}: {len(found)} record(s), read as SciVer's own code reads a "
        f"release, would not give a model what their claims need: "
        f"{shown([what for what, _ in found])}. Nothing was written. To fix: "
        + "; ".join(fix[:1].upper() + fix[1:] for fix in fixes)
        + "."
    )


def _element_ref(element: ReleaseElement) -> str:
    """`Table 3 (element S4.T3, admin /admin/papers/element/12/change/)`: enough to find it."""
    admin = reverse("admin:papers_element_change", args=[element.pk])
    return f"{element.label or element.kind} (element {element.anchor}, admin {admin})"


@dataclass(frozen=True, slots=True)
class StaleClaim:
    """A claim of a frozen split that may no longer be released, and why."""

    claim: str  # the claim's key
    pair: str  # the pair's key
    paper: str  # arXiv id with version
    label: str
    why: str


def stale_message(split: SplitVersion, stale: list[StaleClaim]) -> str:
    shown = "; ".join(
        f"{claim_ref(c.claim, c.label, c.pair, c.paper)}: {c.why}" for c in stale[:50]
    )
    more = f"; … and {len(stale) - 50} more" if len(stale) > 50 else ""
    return (
        f"split {split.name}: {len(stale)} claim(s) changed since the split was frozen and are "
        f"no longer validated: {shown}{more}. Unresolved, pending and dropped claims never reach "
        "a release: validate the re-opened claims again (Validation, /manage/validation/), then "
        "export again; or make a new split and export that one."
    )


def no_image(element: ReleaseElement, paperid: str) -> str:
    if element.image:
        why = f"its image file {element.image} is missing from MEDIA_ROOT"
    else:
        error = element.image_error.strip()
        why = "it has no image" + (f" (render error: {error[:300]})" if error else "")
    return f"paper {paperid}: {_element_ref(element)}: {why}. {_image_fix(element)}"


def _image_fix(element: ReleaseElement) -> str:
    """What brings the image back: tables and SVG charts are rendered again from what the
    database holds; a chart or an image-table made from arXiv's image files cannot be."""
    row = (
        Element.objects.filter(pk=element.pk)
        .values("is_image_table", "paper__arxiv_id", "paper__version", "paper__media_dir")
        .first()
    )
    if row is None:  # pragma: no cover - the element was read moments ago
        return "Make a new split without this pair, then export it."
    versioned = f"{row['paper__arxiv_id']}v{row['paper__version']}"
    svg = ElementPanel.objects.filter(element_id=element.pk, svg__gt="").exists()
    if element.kind == "table" and not row["is_image_table"]:
        return (
            "Render the paper's table screenshots again from their stored HTML "
            f"(`python manage.py render_images {versioned}`), then export again."
        )
    if svg:
        return (
            "Rasterise the chart's SVG again (needs Chromium: "
            f"`python manage.py render_images {versioned}`), then export again."
        )
    what = "table" if element.kind == "table" else "chart"
    if element.image:
        return (
            f"The {what}'s image came from the paper's own image files on arXiv and cannot be "
            f"made again offline: restore {element.image} under MEDIA_ROOT from a backup, then "
            "export again (or make a new split without this pair)."
        )
    return (
        f"The {what}'s image comes from the paper's own image files on arXiv, which were never "
        "stored (they could not be fetched when the paper was imported), and the paper cannot "
        "be imported again now that it holds expert work: make a new split without this pair "
        "and export that one."
    )


def same_number(first: ReleaseElement, second: ReleaseElement, paperid: str) -> str:
    item = item_number(second)
    return (
        f"paper {paperid}: {_element_ref(first)} and {_element_ref(second)} are both "
        f"{second.kind} {item}, so they would share one image "
        f"({image_name(paperid, second.kind, item)}) and one caption entry. Give one of them "
        "a distinct number in the admin (e.g. the appendix's A1), then export again."
    )
