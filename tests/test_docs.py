"""The README and the guides in docs/: every relative link reaches a file that exists (and, for an
`#anchor`, a heading of that file, by GitHub's anchor rules), the README links every guide, and
the README stays short enough to read in a few minutes."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`]*`")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans (links there are not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a heading: its text (link targets and emphasis marks dropped),
    lower-cased, every character but letters, digits, `_`, `-` and spaces removed, spaces to
    hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", path.read_text())):
        slug = github_anchor(heading)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def relative_links(path: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(prose(path.read_text()))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target, re.I)  # http:, https:, mailto:
    ]


def test_the_anchor_rule_is_githubs():
    assert github_anchor("Writing claims (SciVer steps 4–5)") == "writing-claims-sciver-steps-45"
    assert github_anchor("Demo data (`simulate_annotation`)") == "demo-data-simulate_annotation"
    assert (
        github_anchor("As an annotator (with `make run`: `alice` / `sciver-demo`)")
        == "as-an-annotator-with-make-run-alice--sciver-demo"
    )
    assert github_anchor("Retrieval baselines and the RAG setting (SciVer §4.4, Table 4)") == (
        "retrieval-baselines-and-the-rag-setting-sciver-44-table-4"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_heading_that_exist(page: Path):
    broken = []
    for target in relative_links(page):
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / unquote(file_part)).resolve() if file_part else page
        if not linked.exists():
            broken.append(f"{target}: no file {linked.relative_to(ROOT)}")
        elif anchor and linked.suffix == ".md" and unquote(anchor) not in anchors(linked):
            broken.append(f"{target}: no heading with that anchor in {linked.relative_to(ROOT)}")
    assert broken == []


def test_every_docs_page_is_linked_from_the_readme_and_links_back():
    linked = {
        (ROOT / t.partition("#")[0]).resolve()
        for t in relative_links(README)
        if t.partition("#")[0]
    }
    for page in PAGES[1:]:
        assert page.resolve() in linked, f"{page.name} is not in the README's guides"
        assert "](../README.md)" in page.read_text(), (
            f"{page.name} does not link back to the README"
        )


def test_the_readme_is_short():
    assert len(README.read_text().splitlines()) <= 300
