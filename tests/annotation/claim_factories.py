"""Builders for claim-writing tests: a curated paper ready for claims, and a valid pair."""

from __future__ import annotations

import uuid

from annotation.curation import services as curation_services
from annotation.evidence import visuals_needed
from annotation.models import ClaimPair, CuratedContext, WorkItem
from annotation.writing import services as writing
from papers.models import Element, Paper, Section
from tests.annotation.factories import make_paper

CELLS = [
    [
        [{"text": "Model"}, {"text": "BLEU"}, {"text": "F1"}],
        [{"text": "Ours"}, {"text": "73.2"}, {"text": "80.1"}],
        [{"text": "Baseline"}, {"text": "68.9"}, {"text": "75.0"}],
    ]
]

ENTAILED = "Ours reaches a BLEU of 73.2, which is higher than the Baseline model."
REFUTED = "Ours reaches a BLEU of 68.9, which is higher than the Baseline model."


def curated_paper(curator, *, layout=None, **paper_fields) -> tuple[Paper, CuratedContext]:
    """A parsed paper with tables (with cells), charts and referencing paragraphs, curated by
    `curator` (who must be staff or the paper's writer) keeping every body section."""
    paper = make_paper(layout=layout, **paper_fields)
    tables = list(Element.objects.filter(paper=paper, kind="table"))
    for table in tables:
        table.cells = CELLS
    Element.objects.bulk_update(tables, ["cells"])
    paragraphs = list(Element.objects.filter(paper=paper, kind="paragraph").order_by("order"))
    visuals = list(Element.objects.filter(paper=paper, kind__in=["table", "chart"]))
    for paragraph, visual in zip(paragraphs[::2], visuals, strict=False):
        paragraph.references.add(visual)
    kept_sections = set(
        Section.objects.filter(paper=paper, kind__in=["body", "abstract"]).values_list(
            "pk", flat=True
        )
    )
    context = curation_services.save_curated_context(
        paper=paper,
        user=curator,
        kept_section_ids=kept_sections,
        kept_element_ids=set(Element.objects.filter(paper=paper).values_list("pk", flat=True)),
        not_chart_ids=(),
        latest_seen=None,
    )
    return paper, context


def pair_fields(item: WorkItem, **overrides) -> dict:
    """Valid submission fields for the item's task: as evidence, the first sampled tables/charts,
    as many as the evidence rule asks of its subset (one, or two for parallel/sequential)."""
    item.refresh_from_db()
    fields = {
        "entailed": ENTAILED,
        "evidence_ids": item.task.sampled_ids[: visuals_needed(item.task.subset)],
        "refuted": REFUTED,
        "explanation": "Table 1 gives Ours a BLEU of 73.2, not 68.9.",
        "perturbation_kind": "number",
        "suggestion": REFUTED,
    }
    return fields | overrides


def submit(item: WorkItem, user, **overrides) -> ClaimPair:
    item.refresh_from_db()
    return writing.submit_claim_pair(
        item=item,
        user=user,
        version=item.version,
        token=overrides.pop("token", uuid.uuid4()),
        **pair_fields(item, **overrides),
    )
