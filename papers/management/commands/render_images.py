"""`render_images ARXIV_IDvN`: render a paper's table screenshots (and SVG charts) again from
what the database holds, and name the images that only a backup can bring back."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from papers.drawing import render_paper_images
from papers.models import Element, Paper

VERSIONED = re.compile(r"(?P<arxiv_id>.+)v(?P<version>\d+)")


class Command(BaseCommand):
    help = (
        "Render a paper's table screenshots again from their stored sanitized HTML (and "
        "rasterise its SVG charts, with Chromium). Works on papers with expert work: only the "
        "image files change. Charts from arXiv's image files cannot be made again offline: "
        "they are listed, to be restored from a backup of MEDIA_ROOT."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paper", help="arXiv id with version, e.g. 2409.13817v1")

    def handle(self, *args, **options) -> None:
        paper = self._paper(options["paper"])
        if not paper.media_dir:
            raise CommandError(
                f"{paper.versioned_id} has no media folder recorded (it was never imported with "
                "images); import its page with `python manage.py import_arxiv_html`"
            )

        def progress(done: int, total: int, message: str) -> None:
            self.stderr.write(f"\r{done}/{total} {message}"[:120].ljust(120), ending="")

        result = render_paper_images(paper_id=paper.pk, progress=progress)
        self.stderr.write("")
        self.stdout.write(
            f"{paper.versioned_id}: {result['tables']} table(s) rendered with "
            f"{result['renderer']}, {result['svg_charts']} SVG chart(s) rasterised"
        )
        for problem in result["problems"]:
            self.stdout.write(self.style.WARNING(f"  problem: {problem}"))
        lost = self._not_renderable(paper)
        if lost:
            self.stdout.write(
                self.style.WARNING(
                    f"{len(lost)} image(s) came from arXiv's image files and cannot be made again "
                    f"offline; restore them under MEDIA_ROOT ({settings.MEDIA_ROOT}) from a backup:"
                )
            )
            for line in lost:
                self.stdout.write(f"  {line}")
        missing = len(lost) + len(result["problems"])
        if missing:
            raise CommandError(f"{missing} image(s) of {paper.versioned_id} are still missing.")

    def _paper(self, given: str) -> Paper:
        match = VERSIONED.fullmatch(given.strip())
        paper = (
            Paper.objects.filter(arxiv_id=match["arxiv_id"], version=int(match["version"])).first()
            if match
            else None
        )
        if paper is None:
            bare = match["arxiv_id"] if match else given.strip()
            versions = [
                f"{bare}v{v}"
                for v in Paper.objects.filter(arxiv_id=bare)
                .order_by("version")
                .values_list("version", flat=True)
            ]
            raise CommandError(
                f"There is no paper {given!r}; give the arXiv id with its version"
                + (f" ({', '.join(versions)})." if versions else ", e.g. 2409.13817v1.")
            )
        return paper

    def _not_renderable(self, paper: Paper) -> list[str]:
        """Charts and image-tables without SVG whose image is gone: nothing stored makes them."""
        lines = []
        elements = (
            Element.objects.filter(paper=paper, kind__in=[Element.Kind.TABLE, Element.Kind.CHART])
            .exclude(kind=Element.Kind.TABLE, is_image_table=False)
            .exclude(panels__svg__gt="")
            .distinct()
            .order_by("order")
        )
        for element in elements:
            name = element.image.name
            if name and (Path(settings.MEDIA_ROOT) / name).is_file():
                continue
            where = name or f"{paper.media_dir}/ (no file recorded)"
            lines.append(f"{element.label or element.kind} (element {element.anchor}): {where}")
        return lines
