"""Freezing a validation/test split of the final claims (its pure rules:
`validation.split.rules`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from annotation.errors import AnnotationError
from annotation.models import (
    ClaimPair,
)
from papers.licences import (
    KNOWN_LICENCES,
    REDISTRIBUTABLE,
    allows_redistribution,
    licence_name,
    paper_licence,
)
from validation import selectors
from validation.models import (
    SplitMember,
    SplitVersion,
)
from validation.split.rules import (
    CLAIMS_PER_PAIR,
    PARTS,
    SplitError,
    SplitPair,
    check_licence_codes,
    check_new_split,
    check_split_name,
    chosen_licences,
    default_sizes,
    left_out_by_licence,
    make_split,
    reachable_sizes,
    shortfall_message,
)


def split_pool() -> list[SplitPair]:
    ok, _ = selectors.complete_pair_ids()
    pairs = (
        ClaimPair.objects.filter(pk__in=ok)
        .select_related("paper")
        .only("id", "subset", "paper_id", "paper__license_url", "paper__license_name")
    )
    return [
        SplitPair(pair_id=p.pk, subset=p.subset, paper=p.paper_id, licence=paper_licence(p.paper))
        for p in pairs
    ]


@dataclass(frozen=True)
class LicenceShare:
    """The complete pairs of one licence, and whether a default split takes them."""

    code: str
    name: str
    pairs: int
    by_default: bool

    @property
    def claims(self) -> int:
        return 2 * self.pairs


def licence_breakdown(pool: Sequence[SplitPair] | None = None) -> list[LicenceShare]:
    """The pool's complete pairs by their papers' licence (most first), for the releases page
    and the command: what a default split takes and what it leaves out."""
    counts = Counter(p.licence or "unknown" for p in (split_pool() if pool is None else pool))
    return [
        LicenceShare(code, licence_name(code), n, allows_redistribution(code))
        for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def default_pool_pairs() -> int:
    """Complete pairs a split made with the default licence filter may draw from."""
    return sum(share.pairs for share in licence_breakdown() if share.by_default)


def offered_sizes(pool: Sequence[SplitPair], seed: int) -> tuple[int, int]:
    """The sizes the releases page offers: SciVer's 1,000 + 2,000 claims when the default
    licence filter's pool holds them, else the whole pool in the same 1:2 proportion; and on a
    pool below twice that (the demo), the largest sizes in that proportion that a
    paper-disjoint draw with `seed` makes, rather than sizes the page would refuse."""
    default = [p for p in pool if p.licence in REDISTRIBUTABLE]
    validation, test = default_sizes(len(default))
    if validation + test == 0 or len(default) * CLAIMS_PER_PAIR >= 2 * (validation + test):
        return validation, test
    reachable = reachable_sizes(default, validation=validation, test=test, seed=seed)
    return reachable or (0, 0)


def next_split_name() -> str:
    n = SplitVersion.objects.count() + 1
    while SplitVersion.objects.filter(name=f"v{n}").exists():
        n += 1
    return f"v{n}"


@transaction.atomic
def freeze_split(
    *,
    validation: int,
    test: int,
    seed: int,
    licences: Iterable[str] | None = None,
    name: str | None = None,
    by: User | None = None,
    allow_shared_papers: bool = False,
) -> SplitVersion:
    """Draw and freeze a split over the complete validated pairs. A name is a version: an
    existing split is never changed. Without `licences`, only papers whose licence allows
    redistribution with adaptations take part (`papers.licences.REDISTRIBUTABLE`); the pairs
    left out are counted by licence on the split. The parts share no paper; with
    `allow_shared_papers` they may, only where no paper-disjoint draw exists (the split
    records it)."""
    name = (name or next_split_name()).strip()
    taken = SplitVersion.objects.filter(name=name).exists()
    licences = check_new_split(name, licences or (), known=KNOWN_LICENCES, taken=taken)
    pool = split_pool()
    licence_list, by_default = chosen_licences(licences, default=REDISTRIBUTABLE)
    try:
        split = make_split(
            pool,
            validation=validation,
            test=test,
            seed=seed,
            licences=licence_list,
            allow_shared_papers=allow_shared_papers,
        )
    except SplitError as exc:
        _, back = selectors.complete_pair_ids()
        raise AnnotationError(
            shortfall_message(
                str(exc),
                validated=selectors.validated_claims().count(),
                pairs=len(pool),
                waiting=len(back),
            )
        ) from exc
    version = SplitVersion.objects.create(
        name=name,
        seed=seed,
        validation_size=validation,
        test_size=test,
        licences=licence_list,
        licences_by_default=by_default,
        left_out=left_out_by_licence(pool, licence_list),
        created_by=by,
        counts={part: split.claims_by_subset(part) for part in PARTS},
        papers={part: len(split.papers(part)) for part in PARTS},
        shared_papers_allowed=split.shared_papers,
    )
    SplitMember.objects.bulk_create(
        SplitMember(split=version, pair_id=p.pair_id, part=part, subset=p.subset)
        for part in ("validation", "test")
        for p in split.pairs(part)
    )
    return version


def freeze_split_from_form(values: Mapping[str, Any], *, by: User | None) -> SplitVersion:
    """Freeze the split a SplitForm's values ask for: what the releases page's POST and the
    API's `POST /api/splits/` both do, so that one input makes one split and one refusal. The
    licence codes and the name are checked first (SplitError naming what is wrong); the pool
    refuses sizes it cannot draw (AnnotationError)."""
    name = values["name"].strip()
    return freeze_split(
        validation=values["validation"] or 0,
        test=values["test"] or 0,
        seed=values["seed"] or 0,
        licences=check_licence_codes(values["licenses"].split(","), sorted(KNOWN_LICENCES)),
        name=check_split_name(name) if name else None,
        by=by,
        allow_shared_papers=values["allow_shared_papers"],
    )
