"""Builders for annotation tests: experts with publications and training, synthetic papers."""

from __future__ import annotations

import datetime as dt
import io
import itertools

from PIL import Image

from annotation.models import ExpertProfile, Publication, Subfield, Training
from papers.models import Element, Paper, Section
from tests.factories import UserFactory

_ids = itertools.count(1)


def make_expert(
    username: str | None = None,
    codes: tuple[str, ...] = ("cs.CL",),
    *,
    publications: int = 2,
    trained: bool = True,
    active: bool = True,
    **user_fields,
):
    """A user with an expert profile: `publications` papers in each subfield of `codes`."""
    Subfield.ensure_sciver_subfields()
    user = UserFactory(**({"username": username} if username else {}), **user_fields)
    profile, _ = ExpertProfile.objects.get_or_create(user=user, defaults={"active": active})
    subfields = list(Subfield.objects.filter(code__in=codes))
    profile.subfields.set(subfields)
    for subfield in subfields:
        for n in range(publications):
            Publication.objects.create(
                expert=profile,
                title=f"Paper {n} in {subfield.code}",
                venue="ACL",
                year=2023,
                subfield=subfield,
            )
    if trained:
        Training.objects.create(expert=profile, completed_on=dt.date(2024, 11, 1), trainer="t")
    return user


# (kind, title, parent index or None, [element kinds]) ; p = paragraph, t = table, c = chart
DEFAULT_LAYOUT: list[tuple[str, str, int | None, str]] = [
    ("abstract", "Abstract", None, "p"),
    ("body", "Introduction", None, "pp"),
    ("related_work", "Related Work", None, "p"),
    ("related_work", "Older work", 2, "pc"),
    ("body", "Method", None, "pt"),
    ("body", "Experiments", None, "ptcpc"),
    ("body", "Conclusion", None, "p"),
    ("acknowledgments", "Acknowledgments", None, "p"),
    ("references", "References", None, ""),
    ("appendix", "Appendix A", None, "pt"),
]


def make_paper(
    *,
    category: str = "cs.CL",
    layout: list[tuple[str, str, int | None, str]] | None = None,
    title: str = "A synthetic paper",
    acceptance: str = Paper.Acceptance.UNKNOWN,
    status: str = Paper.Status.PARSED,
    license_url: str = "http://creativecommons.org/licenses/by/4.0/",
) -> Paper:
    """A parsed paper with sections and elements, built directly (no HTML, no images), under
    CC BY unless told (a default split takes only redistributable papers)."""
    n = next(_ids)
    paper = Paper.objects.create(
        arxiv_id=f"2410.{90000 + n:05d}",
        version=1,
        title=title,
        primary_category=category,
        categories=[category],
        status=status,
        acceptance=acceptance,
        license_url=license_url,
    )
    sections: list[Section] = []
    order = itertools.count()
    counts = {"p": 0, "t": 0, "c": 0}
    rows = []
    for index, (kind, name, parent, elements) in enumerate(layout or DEFAULT_LAYOUT):
        section = Section.objects.create(
            paper=paper,
            anchor=f"S{index + 1}",
            number=str(index + 1),
            title=name,
            level=1 if parent is None else 2,
            parent=sections[parent] if parent is not None else None,
            order=index,
            kind=kind,
        )
        sections.append(section)
        for code in elements:
            counts[code] += 1
            kind_name = {"p": "paragraph", "t": "table", "c": "chart"}[code]
            label = {"p": "", "t": f"Table {counts['t']}", "c": f"Figure {counts['c']}"}[code]
            rows.append(
                Element(
                    paper=paper,
                    section=section,
                    kind=kind_name,
                    anchor=f"S{index + 1}.{code}{counts[code]}",
                    order=next(order),
                    label=label,
                    caption=f"Caption of {label}" if label else "",
                    text=f"Paragraph {counts['p']} of {name}." if code == "p" else "",
                    table_html="<table><tr><td>1</td></tr></table>" if code == "t" else "",
                )
            )
    Element.objects.bulk_create(rows)
    paper.table_count, paper.chart_count, paper.paragraph_count = (
        counts["t"],
        counts["c"],
        counts["p"],
    )
    paper.save(update_fields=["table_count", "chart_count", "paragraph_count"])
    return paper


def all_ids(paper: Paper) -> tuple[set[int], set[int]]:
    return (
        set(Section.objects.filter(paper=paper).values_list("pk", flat=True)),
        set(Element.objects.filter(paper=paper).values_list("pk", flat=True)),
    )


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(buffer, "PNG")
    return buffer.getvalue()
