"""What the release reads of the database, as light rows (tuples and frozen dataclasses, not
model instances: tens of thousands per release at SciVer's scale)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet

from annotation.models import Claim, ClaimPair
from papers.models import Paper

ELEMENT_FIELDS = (
    "id",
    "paper_id",
    "kind",
    "anchor",
    "order",
    "label",
    "number",
    "caption",
    "text",
    "image",
    "image_error",
    "section_id",
    "section__number",
    "section__title",
    "section__anchor",
)


@dataclass(frozen=True, slots=True)
class ReleaseSection:
    pk: int
    number: str
    title: str
    anchor: str


@dataclass(frozen=True, slots=True)
class ReleaseElement:
    """What the release reads of an element; `image` is the file's name under MEDIA_ROOT
    ("" when there is none)."""

    pk: int
    paper_id: int
    kind: str
    anchor: str
    order: int
    label: str
    number: str
    caption: str
    text: str
    image: str
    image_error: str
    section: ReleaseSection

    @classmethod
    def from_row(cls, row: tuple) -> ReleaseElement:
        """From a `values_list(*ELEMENT_FIELDS)` row (the section's four fields last)."""
        *fields, section_pk, number, title, anchor = row
        fields[9] = fields[9] or ""  # image
        section = ReleaseSection(section_pk, number, title, anchor)
        return cls(*fields, section=section)  # type: ignore[misc]  # mypy cannot count a row


@dataclass(frozen=True, slots=True)
class ReleasePaperRow:
    """What the release reads of a paper."""

    pk: int
    arxiv_id: str
    version: int
    license_url: str
    license_name: str
    venue: str
    synthetic: bool
    archived_at: datetime | None

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"


@dataclass(frozen=True, slots=True)
class PairClaim:
    """What the release reads of a current claim, its final review and its validation (the
    review's and the validation's fields are None when it has none)."""

    pk: int
    label: str
    text: str
    explanation: str
    replaces_id: int | None
    review_state: str | None
    final_label: str | None
    validation_status: str | None
    validator_id: int | None
    revisions: int | None
    reopen_reason: str | None
    key: str = ""  # as pages name the claim (refusals name it so)


CLAIM_FIELDS = (
    "pair_id",
    "id",
    "label",
    "text",
    "explanation",
    "replaces_id",
    "review__state",
    "review__final_label",
    "validation__status",
    "validation__validator_id",
    "validation__revisions",
    "validation__reopen_reason",
    "key",
)

PAPER_FIELDS = (
    "id",
    "arxiv_id",
    "version",
    "license_url",
    "license_name",
    "venue",
    "synthetic",
    "archived_at",
)


@dataclass(frozen=True, slots=True)
class ReleasePair:
    """What the release reads of a claim pair: its current claims, in label order."""

    pk: int
    paper_id: int
    context_id: int
    writer_id: int
    subset: str
    subfield: str
    sampled_ids: tuple[int, ...]
    paper: ReleasePaperRow
    claims: tuple[PairClaim, ...]
    key: str = ""  # as pages name the pair (refusals name it so)


def read_pairs(pair_ids: QuerySet) -> dict[int, ReleasePair]:
    """The pairs `pair_ids` (a subquery of ids), their papers and current claims as light
    rows (three queries; model instances cost more than the queries at SciVer's scale)."""
    claims: dict[int, list[PairClaim]] = defaultdict(list)
    # Superseded claims (a perturbation found true, then rewritten) never ship.
    for pair_id, *values in (
        Claim.objects.current().filter(pair_id__in=pair_ids).order_by().values_list(*CLAIM_FIELDS)
    ):
        claims[pair_id].append(PairClaim(*values))
    rows = list(
        ClaimPair.objects.filter(pk__in=pair_ids)
        .order_by()
        .values_list(
            "pk",
            "paper_id",
            "context_id",
            "writer_id",
            "subset",
            "subfield_code",
            "task__sampled_ids",
            "key",
        )
    )
    papers = {
        values[0]: ReleasePaperRow(*values)
        for values in Paper.objects.filter(
            pk__in=ClaimPair.objects.filter(pk__in=pair_ids).values("paper_id")
        )
        .order_by()
        .values_list(*PAPER_FIELDS)
    }
    return {
        pk: ReleasePair(
            pk,
            paper_id,
            context_id,
            writer_id,
            subset,
            subfield,
            tuple(sampled),
            papers[paper_id],
            tuple(sorted(claims[pk], key=lambda c: c.label)),
            key,
        )
        for pk, paper_id, context_id, writer_id, subset, subfield, sampled, key in rows
    }


def item_number(element: ReleaseElement) -> str:
    """The table or figure number as a string (`3`), from the parsed number or the label."""
    if element.number:
        return element.number
    if element.label:
        return element.label.split()[-1]
    return str(element.pk)
