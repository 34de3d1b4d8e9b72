"""Dataset statistics (SciVer's Table 2, evidence counts, subsets, subfields, stage progress)
and the inline SVG bar charts that show them. The figures are pure functions of records."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from charts import svg
from validation.release.formats import sciver_paper, sciver_record
from validation.release.reading import model_input
from validation.release.records import ReleaseClaim, ReleasePaper

# Table 2's "words in paragraphs" is measured on what a model reads: the context SciVer's own
# code builds from the record's `section` list (`validation.release.reading`). The curated
# context (every paragraph the curator kept) is counted apart: it is not what a model sees.
MODEL_WORDS = "words in paragraphs"
CURATED_WORDS = "words in the curated context"
MODEL_WORDS_NOTE = (
    "words in paragraphs: of the context SciVer's own code builds from each record (the "
    "paper-file sections its `section` list reaches, with their headings), i.e. what a model "
    "reads; words in the curated context: every paragraph the curator kept, counted apart"
)


@dataclass(frozen=True)
class StatRecord:
    """What the statistics need of one claim."""

    paper: str
    subset: str
    subfield: str
    label: str
    claim_words: int
    evidence: int
    tables: int
    charts: int
    table_caption_words: tuple[int, ...] = ()
    chart_caption_words: tuple[int, ...] = ()
    context_words: int = 0  # of the context SciVer's reading gives a model for the record
    curated_words: int = 0  # of the whole curated context's paragraphs


def words(text: str) -> int:
    return len(text.split())


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0


def table2(records: Sequence[StatRecord]) -> dict[str, float | int]:
    """The figures of SciVer's Table 2 for one split (or the pool)."""
    table_captions = [n for r in records for n in r.table_caption_words]
    chart_captions = [n for r in records for n in r.chart_caption_words]
    return {
        "claims": len(records),
        MODEL_WORDS: _mean([r.context_words for r in records]),
        CURATED_WORDS: _mean([r.curated_words for r in records]),
        "tables per example": _mean([r.tables for r in records]),
        "table caption length": _mean(table_captions),
        "charts per example": _mean([r.charts for r in records]),
        "chart caption length": _mean(chart_captions),
        "claim length": _mean([r.claim_words for r in records]),
        "entailed": sum(r.label == "entailed" for r in records),
        "refuted": sum(r.label == "refuted" for r in records),
        "evidence pieces": _mean([r.evidence for r in records]),
        "papers": len({r.paper for r in records}),
    }


def evidence_breakdown(records: Iterable[StatRecord]) -> dict[str, int]:
    """Claims by number of evidence pieces: one, two, three, more (SciVer's Fig. 4)."""
    counts = {"one": 0, "two": 0, "three": 0, "more than three": 0}
    for r in records:
        if r.evidence <= 1:
            counts["one"] += 1
        elif r.evidence == 2:
            counts["two"] += 1
        elif r.evidence == 3:
            counts["three"] += 1
        else:
            counts["more than three"] += 1
    return counts


def count_by(records: Iterable[StatRecord], attribute: str) -> dict[str, dict[str, int]]:
    """Claims per subset (or subfield), entailed and refuted."""
    counts: dict[str, Counter[str]] = {}
    for r in records:
        counts.setdefault(getattr(r, attribute) or "—", Counter())[r.label] += 1
    return {
        key: {"entailed": c["entailed"], "refuted": c["refuted"], "total": c.total()}
        for key, c in sorted(counts.items())
    }


def model_words(claim: ReleaseClaim, paper_file: Mapping) -> int:
    """Words of the text SciVer's reading gives a model for `claim` (headings included)."""
    return words(model_input(sciver_record(claim), paper_file).context)


def release_table(
    claims: Sequence[ReleaseClaim],
    papers: Mapping[str, ReleasePaper] | None = None,
    *,
    files: Mapping[str, Mapping] | None = None,
    context_words: Mapping[int, int] | None = None,
    curated_words: Mapping[str, int] | None = None,
) -> dict[str, float | int]:
    """Table 2 from release records (for the dataset card); with the release's `papers`,
    "words in paragraphs" is what SciVer's reading gives a model and the curated context is
    the paper file's text. `files` (the papers' files) and `context_words` (request_id →
    `model_words`) and `curated_words` (paperid → words of its file's sections) may be given
    when the caller has them already."""
    if files is None:
        files = {k: sciver_paper(p) for k, p in (papers or {}).items()}
    context_words = context_words or {}
    curated = curated_words
    if curated is None:
        curated = {k: sum(words(s.text) for s in p.sections) for k, p in (papers or {}).items()}
    records = [
        StatRecord(
            paper=c.paperid,
            subset=c.claim_type,
            subfield=c.subfield,
            label="entailed" if c.label else "refuted",
            claim_words=words(c.claim),
            evidence=len(c.evidence),
            tables=sum(e.kind == "table" for e in c.evidence),
            charts=sum(e.kind == "chart" for e in c.evidence),
            table_caption_words=tuple(words(e.text) for e in c.evidence if e.kind == "table"),
            chart_caption_words=tuple(words(e.text) for e in c.evidence if e.kind == "chart"),
            context_words=context_words[c.request_id]
            if c.request_id in context_words
            else model_words(c, files[c.paperid])
            if c.paperid in files
            else 0,
            curated_words=curated.get(c.paperid, 0),
        )
        for c in claims
    ]
    table = table2(records)
    evidence_words = [
        sum(words(e.text) for e in c.evidence if e.kind == "paragraph") for c in claims
    ]
    table = {k: v for k, v in table.items() if papers or k not in (MODEL_WORDS, CURATED_WORDS)} | {
        "words in evidence paragraphs": _mean(evidence_words)
    }
    return table | {f"evidence: {k}": v for k, v in evidence_breakdown(records).items()}


# --- Plots (drawn with the app's one chart kit, `charts.svg`) -------------------------------


def bar_chart(
    bars: Sequence[tuple[str, float]], *, title: str, width: int = 460, unit: str = ""
) -> str:
    """A horizontal bar chart as an inline SVG string (labels escaped; no script)."""
    row, left, top = 22, 150, 28
    height = top + row * max(len(bars), 1) + 10
    peak = max((v for _, v in bars), default=0) or 1
    span = width - left - 60
    parts = [svg.heading(title)]
    for i, (label, value) in enumerate(bars):
        y = top + i * row
        length = round(span * value / peak, 1)
        shown = f"{value:g}{unit}"
        parts.append(
            svg.text(left - 6, y + 14, label, font_size=12, text_anchor="end")
            + svg.rect(
                left,
                y + 3,
                length,
                row - 7,
                svg.PALETTE[i % len(svg.PALETTE)],
                hint=f"{label}: {shown}",
            )
            + svg.text(left + length + 4, y + 14, shown, font_size=12)
        )
    return svg.svg(width, height, title, parts)


def stacked_pairs_chart(rows: dict[str, dict[str, int]], *, title: str, width: int = 460) -> str:
    """Entailed/refuted per key as two-colour stacked bars."""
    row, left, top = 22, 150, 28
    height = top + row * max(len(rows), 1) + 26
    peak = max((r["total"] for r in rows.values()), default=0) or 1
    span = width - left - 60
    parts = [svg.heading(title)]
    for i, (key, counts) in enumerate(rows.items()):
        y = top + i * row
        a = round(span * counts["entailed"] / peak, 1)
        b = round(span * counts["refuted"] / peak, 1)
        parts.append(
            svg.text(left - 6, y + 14, key, font_size=12, text_anchor="end")
            + svg.rect(
                left, y + 3, a, row - 7, svg.PALETTE[0], hint=f"entailed {counts['entailed']}"
            )
            + svg.rect(
                left + a, y + 3, b, row - 7, svg.PALETTE[1], hint=f"refuted {counts['refuted']}"
            )
            + svg.text(left + a + b + 4, y + 14, counts["total"], font_size=12)
        )
    y = height - 8
    parts.append(
        svg.swatch(left, y, svg.PALETTE[0], "entailed")
        + svg.swatch(left + 80, y, svg.PALETTE[1], "refuted")
    )
    return svg.svg(width, height, title, parts)
