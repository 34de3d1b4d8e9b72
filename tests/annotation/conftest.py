"""Fixtures of the annotation tests: corpus papers imported with their images."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.review import services as review
from papers.local_pages import locate_page
from papers.models import Paper
from tests.annotation.review_factories import FLIP, crew, writer_evidence, written_pair
from tests.corpus import corpus_folders


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


@pytest.fixture
def annotated():
    """Pair 1: both claims agreed. Pair 2: its entailed claim's label flipped, a paragraph added
    to its refuted claim's evidence (Jaccard 0.5). Pair 3: not annotated yet (two incomplete
    items)."""
    c = crew("alice", "bob", "carol", "dave")
    one = written_pair(c["alice"], c["boss"], seed=1)
    two = written_pair(c["alice"], c["boss"], seed=2)
    for person in ("bob", "carol", "bob", "carol"):
        item = review.take_next(user=c[person], kind="evidence")
        claim = item.claim
        ev = writer_evidence(claim.pair, claim.label)
        label = (
            FLIP[claim.label]
            if claim.pair_id == two.pk and claim.label == "entailed"
            else claim.label
        )
        if claim.pair_id == two.pk and claim.label == "refuted":
            # The writer cites one table/chart (the evidence rule): Jaccard 1/2 with a paragraph.
            ev = [*ev, claim.pair.task.paragraph_ids[0]]
        review.submit_second_annotation(
            item=item,
            user=c[person],
            version=item.version,
            token=uuid.uuid4(),
            label=label,
            evidence_ids=ev,
        )
    written_pair(c["alice"], c["boss"], seed=3)
    item = review.take_next(user=c["dave"], kind="adjudicate")
    review.submit_adjudication(
        item=item,
        user=c["dave"],
        version=item.version,
        token=uuid.uuid4(),
        decision="decided",
        label=item.claim.label,
        evidence_ids=writer_evidence(item.claim.pair, item.claim.label),
        confidence="high",
        reason="second_annotator_error",
        notes="",
    )
    return c, one, two
