"""Plain dataclasses for a release: claims, papers and their parts, checked on construction."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from annotation.evidence import VISUALS_PER_SUBSET

__all__ = [
    "CLAIM_TYPES",
    "EvidencePiece",
    "PaperSection",
    "ReleaseClaim",
    "ReleasePaper",
    "VisualElement",
    "image_name",
    "pseudonymise",
    "release_paperids",
]

CLAIM_TYPES = ("direct", "parallel", "sequential", "analytical")
# How many tables/charts the SciVer record names (one field group, or item1_*/item2_*): the
# evidence rule's count, since a record names exactly the claim's table/chart evidence.
ELEMENTS_PER_TYPE = dict(VISUALS_PER_SUBSET)
ELEMENT_TYPES = ("chart", "table")
EVIDENCE_KINDS = ("paragraph", "table", "chart")
# Unresolved items never reach a release, so they have no place here.
PROVENANCES = ("unanimous", "adjudicated")

K = TypeVar("K")


def image_name(paperid: str, element_type: str, item: str) -> str:
    """The release-relative image path: `images/<paperid>_<table|chart>_<number>.png`."""
    if element_type not in ELEMENT_TYPES:
        raise ValueError(f"element type must be chart or table, got {element_type!r}")
    return f"images/{paperid}_{element_type}_{item}.png"


def release_paperids(papers: Iterable[tuple[K, str, int]]) -> dict[K, str]:
    """Each paper's `paperid` in a release, from `(key, arxiv_id, version)`.

    The SciVer convention is the arXiv id without version, and it stays so for every id the
    release holds in one version only (nearly all). When a release holds two or more versions
    of one id (pairs written on v1 and on v2), each of those papers keeps its version
    (`2410.01234v2`): dropping either would silently change a frozen split's sizes, and one
    `papers/<paperid>.json` for both would mix two contexts, so that items would cite
    paragraphs and tables of the other version. The rule depends on the release alone, so a
    re-export of the same split gives the same ids.
    """
    rows = list(papers)
    versions: dict[str, set[int]] = {}
    for _, arxiv_id, version in rows:
        versions.setdefault(arxiv_id, set()).add(version)
    return {
        key: arxiv_id if len(versions[arxiv_id]) == 1 else f"{arxiv_id}v{version}"
        for key, arxiv_id, version in rows
    }


def pseudonymise(user_id: object, *, salt: str) -> str:
    """A stable anonymous expert id: the same person and salt give the same id in every export.

    Keyed (HMAC) rather than a bare hash so that nobody can confirm a guess of who an id is
    without the release's salt, which stays on the server.
    """
    if not salt:
        raise ValueError("a non-empty salt is needed to pseudonymise expert ids")
    digest = hmac.new(salt.encode(), str(user_id).encode(), hashlib.sha256).hexdigest()
    return f"E{digest[:10]}"


@dataclass(frozen=True)
class VisualElement:
    """A table or chart a claim needs; `image_path` is relative to the release folder."""

    type: str
    item: str
    image_path: str

    def __post_init__(self) -> None:
        if self.type not in ELEMENT_TYPES:
            raise ValueError(f"element type must be chart or table, got {self.type!r}")
        if not self.item:
            raise ValueError("an element needs its table or figure number")


@dataclass(frozen=True)
class EvidencePiece:
    """One piece of annotated evidence, which SciVer's release drops and ours keeps."""

    kind: str
    anchor: str
    label: str
    text: str = ""
    image_path: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"evidence kind must be one of {EVIDENCE_KINDS}, got {self.kind!r}")


@dataclass(frozen=True)
class ReleaseClaim:
    """One released claim; its pair's other claim shares `pair_id` and `origin_statement`."""

    request_id: int
    paperid: str
    claim_type: str
    label: bool
    origin_statement: str
    perturbed_statement: str
    perturbed_explanation: str
    section: tuple[str, ...]
    elements: tuple[VisualElement, ...]
    evidence: tuple[EvidencePiece, ...]
    provenance: str
    annotators: Mapping[str, str] = field(default_factory=dict)
    pair_id: int | str | None = None
    subfield: str = ""
    venue: str | None = None
    sampled: tuple[str, ...] = ()
    revisions: int = 0
    synthetic: bool = False
    # The guideline version each stage was done under ("writing", "second_annotation",
    # "adjudication", "validation"; a stage the claim did not pass through is absent).
    guideline_versions: Mapping[str, int | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.request_id, bool) or not isinstance(self.request_id, int):
            raise ValueError(f"request_id must be an int, got {self.request_id!r}")
        if not isinstance(self.label, bool):
            raise ValueError(f"label must be a bool, got {self.label!r}")
        if self.claim_type not in CLAIM_TYPES:
            raise ValueError(f"claim_type must be one of {CLAIM_TYPES}, got {self.claim_type!r}")
        wanted = ELEMENTS_PER_TYPE[self.claim_type]
        if len(self.elements) != wanted:
            raise ValueError(
                f"a {self.claim_type} claim names {wanted} table/chart element(s), "
                f"got {len(self.elements)} (request {self.request_id})"
            )
        if not self.section or not all(isinstance(s, str) and s for s in self.section):
            raise ValueError(
                f"a record names the sections of its evidence: section must be a non-empty "
                f"list of section ids, got {list(self.section)!r} (request {self.request_id})"
            )
        if self.provenance not in PROVENANCES:
            raise ValueError(
                f"provenance must be one of {PROVENANCES}, got {self.provenance!r} "
                f"(unresolved items never reach a release)"
            )

    @property
    def claim(self) -> str:
        """The statement to verify: the entailed claim if true, else its refuted rewrite."""
        return self.origin_statement if self.label else self.perturbed_statement


@dataclass(frozen=True)
class PaperSection:
    section_id: str
    section_name: str
    text: str


@dataclass(frozen=True)
class ReleasePaper:
    """A paper's curated context: `chart_captions` and `table_captions` map item → caption.

    In the SciVer paper file they become `image_paths: {item: {"caption"}}` and
    `tables: {item: {"capture"}}`.
    """

    paperid: str
    sections: tuple[PaperSection, ...]
    chart_captions: Mapping[str, str]
    table_captions: Mapping[str, str]
    licence: str
    # The arXiv id and version the paperid stands for (see `release_paperids`); empty when
    # the caller does not know them, and then the paperid is taken as the arXiv id.
    arxiv_id: str = ""
    version: int | None = None
    # A copy of a fixture paper made by simulate_annotation, never a real arXiv paper.
    synthetic: bool = False
