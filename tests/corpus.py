"""The fixture corpus (papers/corpus): its folders, and the largest paper in it."""

from __future__ import annotations

from pathlib import Path

from papers.local_pages import locate_page
from papers.parsing import parse_paper

CORPUS = Path(__file__).resolve().parents[1] / "papers" / "corpus"


def corpus_folders() -> list[Path]:
    return sorted(p.parent for p in CORPUS.glob("*/paper.html"))


def largest_corpus_folder() -> Path:
    """The corpus paper with the most elements (paragraphs, tables, charts)."""

    def size(folder: Path) -> int:
        page = locate_page(folder)
        return len(
            parse_paper(page.html_path.read_bytes(), page.html_path.resolve().as_uri()).elements
        )

    return max(corpus_folders(), key=size)
