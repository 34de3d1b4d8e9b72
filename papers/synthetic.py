"""Synthetic papers for demo and benchmark data: imports of the bundled fixture papers under ids
that can never be mistaken for arXiv's (`synthetic-00001`), flagged `synthetic` everywhere.

Copy n is made from fixture (n - 1) mod 6, so the same copy always holds the same paper. The
first copy of each fixture is a full import (parse, chart images, table screenshots); later
copies are parsed and stored the same way but share the first copy's screenshots (hard links,
or copies where links are impossible), since rendering the same table again gives the same
picture and costs a browser.

Licences: the fixtures are our own text (papers/corpus/README.md), under the licences their
`meta.json` gives them, two of which forbid redistribution with adaptations
(offline-rl-curriculum: CC BY-NC-SA 4.0; tactile-regrasp: arXiv's non-exclusive licence). Copies
1 to `FIXTURE_LICENCES_UP_TO` (24, the demo `make run` loads) keep their fixture's licence, so
that the demo's licence filter has papers to leave out (copies 4, 6, 10, …, 24); from copy 25
on, copies of those two fixtures are CC BY 4.0 (`OPEN_LICENCE`). So nearly every claim of a
large simulation may enter a default split: SciVer's 1,000 + 2,000 can be made from
`simulate_annotation --papers 1100`."""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db import transaction

from papers.assets import FolderAssets
from papers.importing import PaperImportError, PreparedPage, import_paper, prepare_page
from papers.licences import allows_redistribution, licence_code
from papers.local_pages import locate_page
from papers.metadata import PaperMetadata
from papers.models import Element, Paper

PREFIX = "synthetic-"
# The fixtures of papers/corpus, in a fixed order (one per subfield they cover).
FIXTURES = (
    "sparse-adapter-mt",
    "listwise-distill",
    "occlusion-depth",
    "offline-rl-curriculum",
    "seedsmith-fuzzing",
    "tactile-regrasp",
)


class SyntheticError(Exception):
    pass


def synthetic_id(number: int) -> str:
    return f"{PREFIX}{number:05d}"


def fixture_of(number: int) -> str:
    return FIXTURES[(number - 1) % len(FIXTURES)]


OPEN_LICENCE = ("http://creativecommons.org/licenses/by/4.0/", "CC BY 4.0")
FIXTURE_LICENCES_UP_TO = 24  # see the module's docstring


def _metadata(page, arxiv_id: str, number: int) -> PaperMetadata | None:
    if page.metadata is None:
        return None
    meta = dataclasses.replace(page.metadata, arxiv_id=arxiv_id, version=1)
    code = licence_code(meta.license_url, meta.license_name)
    if number > FIXTURE_LICENCES_UP_TO and not allows_redistribution(code):
        meta.license_url, meta.license_name = OPEN_LICENCE  # see the module's docstring
    return meta


def _link(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _share_table_images(paper: Paper, template: Paper) -> None:
    """Point the copy's tables (and rasterised SVG charts) at the template's pictures."""
    media = Path(settings.MEDIA_ROOT)
    source = {
        e.anchor: e
        for e in Element.objects.filter(paper=template)
        .exclude(image="")
        .only("anchor", "image", "image_renderer", "image_error")
    }
    updated = []
    for element in Element.objects.filter(paper=paper, image="").only("id", "anchor"):
        original = source.get(element.anchor)
        if original is None or not (media / original.image.name).is_file():
            continue
        name = f"{paper.media_dir}/{Path(original.image.name).name}"
        _link(media / original.image.name, media / name)
        element.image.name = name
        element.image_renderer = original.image_renderer
        element.image_error = original.image_error
        updated.append(element)
    Element.objects.bulk_update(updated, ["image", "image_renderer", "image_error"])
    Paper.objects.filter(pk=paper.pk).update(images_status=template.images_status)


def make_copy(number: int, prepared: dict[str, PreparedPage] | None = None) -> Paper:
    """Import fixture copy `number` (idempotent: an existing copy is returned as it is).
    `prepared`: fixture pages parsed before, by fixture (filled as pages are parsed), so that
    many copies parse each fixture once."""
    arxiv_id = synthetic_id(number)
    existing = Paper.objects.filter(arxiv_id=arxiv_id, version=1).first()
    if existing is not None:
        if not existing.synthetic:
            raise SyntheticError(f"{arxiv_id} exists and is not synthetic: refusing to touch it.")
        return existing
    page = locate_page(settings.SAMPLE_PAPERS_DIR / fixture_of(number))
    template_number = (number - 1) % len(FIXTURES) + 1
    template = None
    if template_number != number:
        template = make_copy(template_number, prepared)
    html = page.html_path.read_bytes()
    page_url = f"https://arxiv.org/html/{page.arxiv_id}v{page.version}"
    assets = FolderAssets(page.folder)
    try:
        ready = None
        if prepared is not None:
            ready = prepared.get(fixture_of(number))
            if ready is None or (ready.html, ready.page_url) != (html, page_url):
                ready = prepared[fixture_of(number)] = prepare_page(
                    html=html, page_url=page_url, assets=assets
                )
        result = import_paper(
            html=html,
            page_url=page_url,
            assets=assets,
            prepared=ready,
            arxiv_id=arxiv_id,
            version=1,
            metadata=_metadata(page, arxiv_id, number),
            images="now" if template is None else "none",
        )
    except PaperImportError as exc:  # a fixture that no longer parses is our bug: say which
        raise SyntheticError(f"fixture {fixture_of(number)}: {exc.reason}") from None
    paper = result.paper
    with transaction.atomic():
        Paper.objects.filter(pk=paper.pk).update(synthetic=True)
        if template is not None:
            _share_table_images(paper, template)
    paper.refresh_from_db()
    return paper


def ensure_copies(
    count: int, *, progress: Callable[[int, int, str], None] | None = None
) -> list[Paper]:
    """Synthetic copies 1..count, importing the missing ones."""
    papers = []
    prepared: dict[str, PreparedPage] = {}
    for number in range(1, count + 1):
        papers.append(make_copy(number, prepared))
        if progress is not None:
            progress(number, count, papers[-1].arxiv_id)
    return papers
