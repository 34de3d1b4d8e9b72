"""Fixtures of the annotation tests: corpus papers imported with their images."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command

from papers.local_pages import locate_page
from papers.models import Paper
from papers.parsing import parse_paper

CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"


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


@pytest.fixture
def import_corpus(settings) -> Callable[[Path | None], Paper]:
    """Import a corpus folder (default: the first) with its images (Pillow tables: fast)."""
    settings.USE_CHROMIUM = False

    def run(folder: Path | None = None) -> Paper:
        folder = folder or corpus_folders()[0]
        page = locate_page(folder)
        with open(os.devnull, "w") as sink:
            call_command("import_arxiv_html", str(folder), "--images", "now", stdout=sink)
        return Paper.objects.get(arxiv_id=page.arxiv_id, version=page.version)

    return run
