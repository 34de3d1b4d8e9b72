"""`crawl_arxiv`: crawl arXiv for SciVer papers in the terminal, with a progress bar, or resume."""

from __future__ import annotations

import shutil
import sys
import time
from datetime import date
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser

from jobs.dispatch import queues_enabled
from papers.crawl.ids import IdListError, ListedId, read_id_lines, read_id_option
from papers.crawl.listed import listed_counts, listed_rows
from papers.crawl.runner import execute_crawl
from papers.crawl.services import (
    DEFAULT_CATEGORIES,
    DEFAULT_WINDOW,
    CrawlError,
    create_crawl_run,
    prepare_resume,
    start_crawl,
)
from papers.models import CrawlRun


class ProgressBar:
    """One line redrawn in place on a terminal; a line every few seconds otherwise."""

    def __init__(self, stream: TextIO, *, enabled: bool = True):
        self.stream = stream
        self.enabled = enabled
        self.tty = stream.isatty()
        self.last_line = 0.0
        self.started = time.monotonic()

    def __call__(self, phase: str, done: int, total: int, message: str) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        width = 30
        fraction = done / total if total else 0.0
        filled = int(width * min(1.0, fraction))
        bar = "#" * filled + "-" * (width - filled)
        elapsed = now - self.started
        line = f"{phase:6} [{bar}] {done}/{total} {elapsed:6.0f}s {message}"
        if self.tty:
            columns = shutil.get_terminal_size((100, 20)).columns
            self.stream.write("\r" + line[: columns - 1].ljust(columns - 1))
            self.stream.flush()
        elif now - self.last_line >= 5 or done == total:
            self.stream.write(line + "\n")
            self.stream.flush()
            self.last_line = now

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"not a date (YYYY-MM-DD): {value!r}") from None


def _listed(options: dict[str, Any], stdin: TextIO) -> list[ListedId] | None:
    """The ids of --ids or --ids-file (None: a window crawl); CommandError naming every line
    that is not an id, before anything is fetched."""
    given, path = options["ids"], options["ids_file"]
    if given is None and path is None:
        return None
    if given is not None and path is not None:
        raise CommandError("give --ids or --ids-file, not both")
    window = [
        flag
        for flag, key in (
            ("--from", "date_from"),
            ("--to", "date_to"),
            ("--categories", "categories"),
            ("--chunk-days", "chunk_days"),
            ("--accepted-only", "accepted_only"),
        )
        if options[key]
    ]
    if window:
        raise CommandError(
            f"{', '.join(window)} do not apply to a crawl by ids (the list says what to fetch)"
        )
    try:
        if given is not None:
            return read_id_option(given)
        if path == "-":
            return read_id_lines(stdin.read())
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read the ids file {path}: {exc}") from None
        return read_id_lines(text)
    except IdListError as exc:
        where = "--ids" if given is not None else "standard input" if path == "-" else path
        raise CommandError(
            f"nothing fetched: {len(exc.problems)} problem(s) in {where}:\n  "
            + "\n  ".join(exc.problems)
        ) from None


class Command(BaseCommand):
    stealth_options = ("stdin",)  # call_command(..., stdin=io.StringIO(...)) for --ids-file -
    help = (
        "Crawl arXiv for papers with enough tables and charts (accepted papers first), or the "
        "papers of a list of ids (--ids, --ids-file), or resume a run with --resume RUN_ID."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from",
            dest="date_from",
            type=_date,
            help=f"first submission day (default {DEFAULT_WINDOW[0]})",
        )
        parser.add_argument(
            "--to",
            dest="date_to",
            type=_date,
            help=f"last submission day (default {DEFAULT_WINDOW[1]})",
        )
        parser.add_argument(
            "--categories", help=f"comma-separated (default {','.join(DEFAULT_CATEGORIES)})"
        )
        parser.add_argument("--max-papers", type=int, help="fetch at most this many papers")
        parser.add_argument(
            "--accepted-only", action="store_true", help="fetch only papers accepted at a venue"
        )
        parser.add_argument("--min-tables", type=int, help="default: MIN_TABLES")
        parser.add_argument("--min-charts", type=int, help="default: MIN_CHARTS")
        parser.add_argument("--chunk-days", type=int, help="search the window N days at a time")
        parser.add_argument(
            "--retry-failed",
            action="store_true",
            help="fetch again papers that failed in earlier runs",
        )
        parser.add_argument(
            "--images",
            choices=["auto", "now", "job", "none"],
            default="auto",
            help="table screenshots: auto (a job with Redis, else now)",
        )
        parser.add_argument(
            "--ids",
            help="crawl these papers instead of a window: comma-separated arXiv ids "
            "(2410.00260,2409.13817v2,cs/0112017; no version: the latest)",
        )
        parser.add_argument(
            "--ids-file",
            metavar="FILE",
            help="the same from a file, one id a line, # starts a comment ('-': standard input)",
        )
        parser.add_argument(
            "--keep-all",
            action="store_true",
            help="store papers below the tables/charts minimum too, marked as such",
        )
        parser.add_argument(
            "--resume",
            type=int,
            metavar="RUN_ID",
            help="continue a paused, failed, cancelled or killed run",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="with --resume: even if its worker still seems alive",
        )
        parser.add_argument(
            "--background",
            action="store_true",
            help="queue it as a job on the crawl queue instead of running here",
        )
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["background"] and not queues_enabled():
            raise CommandError("--background needs REDIS_URL (and `rqworker crawl` running)")
        try:
            run = self._run_to_execute(options)
        except CrawlError as exc:
            raise CommandError(exc.reason) from None
        if options["background"]:
            job = start_crawl(run=run, mode="auto")
            self.stdout.write(f"crawl run #{run.pk} queued as job #{job.pk}")
            return
        self.stdout.write(
            f"crawl run #{run.pk}: {run.scope}"
            + (f", at most {run.max_papers} papers" if run.max_papers else "")
            + (", accepted only" if run.accepted_only else "")
            + (", keeping all (--keep-all)" if run.keep_all else "")
        )
        bar = ProgressBar(sys.stderr, enabled=not options["no_progress"])
        try:
            run = execute_crawl(run_id=run.pk, progress=bar)
        except KeyboardInterrupt:
            bar.close()
            raise CommandError(
                f"interrupted: resume with `manage.py crawl_arxiv --resume {run.pk}`"
            ) from None
        except CrawlError as exc:
            bar.close()
            raise CommandError(exc.reason) from None
        bar.close()
        self._report(run)

    def _run_to_execute(self, options: dict[str, Any]) -> CrawlRun:
        if options["resume"]:
            try:
                run = CrawlRun.objects.get(pk=options["resume"])
            except CrawlRun.DoesNotExist:
                raise CommandError(f"no crawl run #{options['resume']}") from None
            return prepare_resume(run=run, force=options["force"])
        shared = ("max_papers", "min_tables", "min_charts", "retry_failed", "images", "keep_all")
        common = {key: options[key] for key in shared}
        ids = _listed(options, options.get("stdin") or sys.stdin)
        if ids is not None:
            return create_crawl_run(ids=ids, **common)
        categories = options["categories"].split(",") if options["categories"] else None
        return create_crawl_run(
            date_from=options["date_from"],
            date_to=options["date_to"],
            categories=categories,
            accepted_only=options["accepted_only"],
            chunk_days=options["chunk_days"],
            **common,
        )

    def _report(self, run: CrawlRun) -> None:
        counts = run.counts()
        self.stdout.write(
            f"crawl run #{run.pk} {run.status}: found {counts['found']}, "
            f"fetched {counts['fetched']}, kept {counts['kept']}, rejected {counts['rejected']}, "
            f"no HTML {counts['no_html']}, failed {counts['failed']}, "
            f"skipped {counts['skipped']}, excluded {counts['excluded']}"
        )
        if counts["floats_lost"] or counts["floats_skipped"]:
            self.stdout.write(
                f"  numbered tables/figures not kept: {counts['floats_lost']} in "
                f"{counts['papers_with_lost_floats']} papers (flagged in the admin); "
                f"{counts['floats_skipped']} algorithm/listing floats skipped"
            )
        if counts["vector_charts"] or counts["vector_panels_refused"]:
            self.stdout.write(
                f"  vector charts: {counts['vector_charts']} kept"
                f" ({counts['vector_charts_undrawn']} not drawn: SVG only, render_images draws"
                f" them), {counts['vector_panels_refused']} vector files refused"
            )
        if counts["generators"]:
            made = ", ".join(f"{k}: {v}" for k, v in counts["generators"].items())  # type: ignore[union-attr]
            self.stdout.write(f"  pages made by: {made}")
        for key in ("rejected_by_reason", "failed_by_reason"):
            if counts[key]:
                reasons = ", ".join(f"{k}: {v}" for k, v in counts[key].items())  # type: ignore[union-attr]
                self.stdout.write(f"  {key.replace('_', ' ')}: {reasons}")
        if run.by_ids:
            rows = listed_rows(run)
            said = ", ".join(f"{label} {n}" for label, n in listed_counts(rows))
            self.stdout.write(f"  {len(rows)} listed ids: {said}")
            width = max(len(row.requested) for row in rows) if rows else 0
            for row in rows:
                self.stdout.write(f"  line {row.line:>4}  {row.requested:<{width}}  {row.text}")
        if run.error:
            self.stdout.write(f"  error: {run.error}")
        if run.status in (
            CrawlRun.Status.PAUSED,
            CrawlRun.Status.FAILED,
            CrawlRun.Status.CANCELLED,
        ):
            self.stdout.write(f"  resume with: manage.py crawl_arxiv --resume {run.pk}")
