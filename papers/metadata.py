"""A paper's row without its content: the arXiv metadata stored (and fitted to its columns),
and an outcome recorded with no page behind it (no HTML, fetch failed, parse failed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction

from papers.models import Paper
from papers.storable import Unstorable, fit_values, storable_text


@dataclass
class PaperMetadata:
    arxiv_id: str
    version: int
    title: str = ""
    authors: list[str] = field(default_factory=list)
    abstract: str = ""
    primary_category: str = ""
    categories: list[str] = field(default_factory=list)
    published: datetime | None = None
    updated: datetime | None = None
    comment: str = ""
    journal_ref: str = ""
    license_url: str = ""
    license_name: str = ""
    acceptance: str = Paper.Acceptance.UNKNOWN
    venue: str = ""
    acceptance_phrase: str = ""

    def field_values(self) -> dict[str, object]:
        values = {k: v for k, v in self.__dict__.items() if k not in ("arxiv_id", "version")}
        # An empty licence never overwrites one already found.
        for key in ("license_url", "license_name"):
            if not values[key]:
                del values[key]
        return values


# Metadata columns whose value may be cut: what people read, never a key.
CUT_METADATA = frozenset({"primary_category", "venue", "license_name"})


def storable_metadata(metadata: PaperMetadata) -> dict[str, object]:
    """The metadata's field values as the paper's columns hold them; Unstorable for an id,
    a version or a licence address that does not fit."""
    return fit_values(Paper, metadata.field_values(), truncate=CUT_METADATA)


def check_paper_key(arxiv_id: str, version: int) -> None:
    """Unstorable when no paper row can be keyed by this id and version."""
    fit_values(Paper, {"arxiv_id": arxiv_id, "version": version})
    if storable_text(arxiv_id) != arxiv_id:
        raise Unstorable("Paper.arxiv_id", f"{arxiv_id!r} holds control characters")


def upsert_paper_metadata(*, metadata: PaperMetadata) -> Paper:
    """Create the paper (status "found") or refresh its metadata; never touches its content.
    Raises Unstorable, writing nothing, when the metadata cannot be stored."""
    check_paper_key(metadata.arxiv_id, metadata.version)
    values = storable_metadata(metadata)
    paper, created = Paper.objects.get_or_create(
        arxiv_id=metadata.arxiv_id, version=metadata.version, defaults=values
    )
    if not created:
        for key, value in values.items():
            setattr(paper, key, value)
        paper.save()
    return paper


def mark_paper_status(
    *,
    arxiv_id: str,
    version: int,
    status: str,
    reason: str,
    metadata: PaperMetadata | None = None,
) -> Paper:
    """Record an outcome without content (no HTML, fetch failed, parse failed)."""
    if status not in Paper.Status.values:
        raise ValueError(f"unknown paper status {status!r}")
    with transaction.atomic():
        if metadata is not None:
            paper = upsert_paper_metadata(metadata=metadata)
        else:
            paper, _ = Paper.objects.get_or_create(arxiv_id=arxiv_id, version=version)
        paper.status = status
        paper.status_reason = storable_text(reason)[:5000]
        paper.save(update_fields=["status", "status_reason", "updated_at"])
    return paper
