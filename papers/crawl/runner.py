"""Executing a crawl run: search, classify, store, fetch accepted papers first, import, licence.

Every step is recorded before the next one starts, so a run killed anywhere continues where
it stopped: searched date ranges are not searched again, and a paper stored by an earlier
attempt (parsed, rejected, no HTML) is not fetched or imported again.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import arxiv
from django.db import DatabaseError, DataError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from redis.exceptions import RedisError

from papers.assets import AssetError, decode_data_uri
from papers.crawl.acceptance import PRIORITY, classify_acceptance
from papers.crawl.client import (
    ArxivClient,
    ConversionFailed,
    FetchError,
    IdLookup,
    NotFound,
    SearchOutcome,
    TooLarge,
    TransientError,
    WrongContentType,
    version_of,
    withdrawal,
)
from papers.crawl.gate import GateError
from papers.crawl.ids import id_batches
from papers.crawl.services import (
    RunBusy,
    chunk_key,
    date_chunks,
    log_event,
    this_worker,
    worker_alive,
)
from papers.drawing import make_paper_images
from papers.importing import PaperImportError, import_paper
from papers.metadata import PaperMetadata, mark_paper_status, upsert_paper_metadata
from papers.models import CrawlEvent, CrawlItem, CrawlListedId, CrawlRun, Paper
from papers.parsing import Panel
from papers.storable import Unstorable, storable_text

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int, str], None]  # phase, done, total, message
# Errors of our own infrastructure (gate, Redis, database) end the run instead of failing a
# paper; the run can be resumed once they are fixed. A database that refuses one paper's
# values (DataError, IntegrityError) is that paper's fault, not the database's: see
# is_infrastructure_error.
INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = (GateError, RedisError, DatabaseError)
PAPER_DATA_ERRORS: tuple[type[BaseException], ...] = (DataError, IntegrityError, Unstorable)


def is_infrastructure_error(exc: BaseException) -> bool:
    """Whether `exc` ends the run (the database is down, the gate is gone) rather than one
    paper (a value the database refused)."""
    return isinstance(exc, INFRASTRUCTURE_ERRORS) and not isinstance(exc, PAPER_DATA_ERRORS)


STORED = (Paper.Status.PARSED, Paper.Status.REJECTED, Paper.Status.NO_HTML, Paper.Status.FAILED)


@dataclass
class _SearchStep:
    """One request of the search phase: a date range, or a batch of listed ids."""

    key: str  # recorded in CrawlRun.search_done once done
    what: str  # "search of 2024-09-01..2024-09-03": how the log names it
    progress: str  # what the progress bar says meanwhile
    ask: Callable[[], Any]  # the API request; FetchError: logged, the step stays to do
    record: Callable[[Any], list[str]]  # store the answer; the problems to log


class StopRun(Exception):
    def __init__(self, action: str):
        super().__init__(action)
        self.action = action


@dataclass
class GatedAssets:
    """Chart images of a page, downloaded from arXiv through the politeness gate."""

    client: ArxivClient

    def fetch(self, panel: Panel) -> bytes:
        if panel.src.startswith("data:"):
            return decode_data_uri(panel.src)
        if not panel.url:
            raise AssetError(f"{panel.src}: no address to fetch it from")
        try:
            return self.client.fetch_asset(panel.url)
        except FetchError as exc:
            raise AssetError(f"{panel.src}: {exc.reason}") from None


def metadata_from_result(result: arxiv.Result) -> PaperMetadata:
    arxiv_id, version = version_of(result.get_short_id())
    verdict = classify_acceptance(result.comment, result.journal_ref)
    return PaperMetadata(
        arxiv_id=arxiv_id,
        version=version,
        title=" ".join((result.title or "").split()),
        authors=[a.name for a in result.authors],
        abstract=" ".join((result.summary or "").split()),
        primary_category=result.primary_category or "",
        categories=list(result.categories),
        published=result.published,
        updated=result.updated,
        comment=(result.comment or "").strip(),
        journal_ref=(result.journal_ref or "").strip(),
        acceptance=verdict.acceptance,
        venue=verdict.venue,
        acceptance_phrase=verdict.phrase,
    )


class CrawlExecution:
    """One session of a run (a run resumed three times has had four sessions)."""

    def __init__(
        self,
        run: CrawlRun,
        *,
        client: ArxivClient,
        progress: Progress | None,
        should_stop: Callable[[], bool | str] | None,
    ):
        self.run = run
        self.client = client
        self.progress = progress
        self.should_stop = should_stop
        self.base_stats = dict(run.stats or {})
        self.last_tick = time.monotonic()

    # -- the whole run ---------------------------------------------------------------------
    def execute(self) -> None:
        # Only the date ranges (or batches of listed ids) not searched yet: none, once all are.
        if self.run.by_ids:
            self.look_up_listed()
        else:
            self.search()
        self.fetch_all()
        failed_chunks = self.run.search_chunks - len(self.run.search_done)
        if failed_chunks > 0:
            what = "batches of listed ids" if self.run.by_ids else "date ranges"
            raise _SearchIncomplete(
                f"search incomplete: {failed_chunks} of {self.run.search_chunks} {what} "
                "could not be read (see the log); resume the run to try them again"
            )

    # -- listed ids ------------------------------------------------------------------------
    def look_up_listed(self) -> None:
        """Ask the API for the listed ids, a batch a request; each line gets its outcome (not
        found, withdrawn) or an item of the run, fetched in the list's order."""
        run = self.run
        pending = {
            row.line: row
            for row in run.listed.filter(outcome=CrawlListedId.Outcome.PENDING).order_by("line")
        }
        lines = run.listed.exclude(outcome=CrawlListedId.Outcome.DUPLICATE).values_list(
            "line", flat=True
        )

        def step(key: str, batch: list[int]) -> _SearchStep:
            rows = [pending[line] for line in batch if line in pending]

            def record(lookup: IdLookup) -> list[str]:
                for row in rows:
                    self.record_listed(row, lookup)
                return lookup.problems

            return _SearchStep(
                key=key,
                what=f"look-up of the ids on lines {key[4:]}",
                progress=f"looking up ids on lines {key[4:]}",
                ask=lambda: self.client.look_up_ids([(r.arxiv_id, r.version) for r in rows]),
                record=record,
            )

        self.run_search([step(key, batch) for key, batch in id_batches(list(lines))], "look-up")

    def record_listed(self, row: CrawlListedId, lookup: IdLookup) -> None:
        """One listed id's answer: not found, withdrawn, or found (an item, with a word when
        a newer version than the one listed exists)."""
        latest = lookup.latest(row.arxiv_id)
        row.latest_version = version_of(latest.get_short_id())[1] if latest else None
        entry = lookup.entry(row.arxiv_id, row.version)
        if entry is None or latest is None:
            row.outcome = CrawlListedId.Outcome.NOT_FOUND
            row.detail = (
                f"arXiv has no version {row.version} of it (the latest is v{row.latest_version})"
                if row.latest_version
                else "arXiv knows no paper with this id"
            )
        elif words := withdrawal(latest):
            row.outcome = CrawlListedId.Outcome.WITHDRAWN
            row.detail = f'v{row.latest_version} says "{words}"'[:2000]
        else:
            try:
                with transaction.atomic():
                    row.item = self.record_found(metadata_from_result(entry))
            except Exception as exc:
                if is_infrastructure_error(exc):
                    raise
                row.outcome = CrawlListedId.Outcome.REFUSED
                row.detail = storable_text(f"arXiv's entry cannot be stored: {exc}")[:2000]
            else:
                row.outcome = CrawlListedId.Outcome.FOUND
                if row.version and row.latest_version and row.version < row.latest_version:
                    row.detail = f"newer version available: v{row.latest_version}"
        row.save(update_fields=["outcome", "detail", "latest_version", "item"])
        if row.outcome != CrawlListedId.Outcome.FOUND:
            log_event(
                self.run,
                f"line {row.line}: {row.requested}: {row.get_outcome_display()}: {row.detail}",
                kind="search",
                paper=row.requested,
                level=CrawlEvent.Level.WARNING,
            )

    # -- search ----------------------------------------------------------------------------
    def search(self) -> None:
        run = self.run

        def step(chunk: tuple[date, date]) -> _SearchStep:
            key = chunk_key(chunk)

            def record(outcome: SearchOutcome) -> list[str]:
                for result in outcome.results:
                    self.record_found_or_say_why(result, key)
                return outcome.problems

            return _SearchStep(
                key=key,
                what=f"search of {key}",
                progress=f"searching {chunk[0]}..{chunk[1]}",
                ask=lambda: self.client.search(
                    categories=run.categories, start=chunk[0], end=chunk[1]
                ),
                record=record,
            )

        chunks = date_chunks(run.date_from, run.date_to, run.chunk_days)  # type: ignore[arg-type]
        self.run_search([step(chunk) for chunk in chunks], "search")

    def run_search(self, steps: list[_SearchStep], name: str) -> None:
        """The search phase: each step not done yet (by its key in `search_done`) asks the API
        and records what it gave in one transaction; a step whose request failed is logged and
        stays to do (the run then ends failed, and resuming asks it again)."""
        run = self.run
        done = set(run.search_done)
        for step in steps:
            if step.key in done:
                continue
            self.check_stop()
            self.report("search", len(done), len(steps), step.progress)
            try:
                answer = step.ask()
            except FetchError as exc:
                log_event(
                    run,
                    f"{step.what} failed: {exc.reason}",
                    kind="search",
                    level=CrawlEvent.Level.ERROR,
                    url=exc.url,
                )
                continue
            with transaction.atomic():
                for problem in step.record(answer):
                    log_event(
                        run,
                        f"{step.what}: {problem}",
                        kind="search",
                        level=CrawlEvent.Level.WARNING,
                    )
                done.add(step.key)
                run.search_done = sorted(done)
                CrawlRun.objects.filter(pk=run.pk).update(search_done=run.search_done)
            self.tick()
        self.report("search", len(done), len(steps), f"{name} done")
        run.phase = CrawlRun.Phase.FETCH
        CrawlRun.objects.filter(pk=run.pk).update(phase=run.phase)

    def record_found_or_say_why(self, result: arxiv.Result, chunk: str) -> None:
        """record_found; an entry the database cannot hold (an id of 40 characters, say) is
        left out with a warning, and the search goes on."""
        try:
            with transaction.atomic():
                self.record_found(metadata_from_result(result))
        except Exception as exc:
            if is_infrastructure_error(exc):
                raise
            log_event(
                self.run,
                f"search of {chunk}: entry {result.entry_id[:200]!r} left out: {exc}",
                kind="search",
                level=CrawlEvent.Level.WARNING,
            )

    def record_found(self, metadata: PaperMetadata) -> CrawlItem:
        """Store a found paper's metadata and make it an item of this run."""
        run = self.run
        # A list is fetched in its own order (items are made line by line): no priority.
        priority = 0 if run.by_ids else PRIORITY.get(metadata.acceptance, 3)
        stored = list(
            Paper.objects.filter(arxiv_id=metadata.arxiv_id).exclude(status=Paper.Status.FOUND)
        )
        same = next((p for p in stored if p.version == metadata.version), None)
        outcome, reason_code, reason = CrawlItem.Outcome.PENDING, "", ""
        if same is not None:
            paper = upsert_paper_metadata(metadata=metadata)  # metadata only; content kept
            again = (run.retry_failed and same.status == Paper.Status.FAILED) or (
                run.keep_all and same.status == Paper.Status.REJECTED  # set aside: keep it now
            )
            if not again:
                outcome, reason_code = CrawlItem.Outcome.SKIPPED, "already_stored"
                reason = f"already stored: {same.status}"
        elif stored:
            # Another version is already in the database: importing this one too would put
            # the same paper twice into a dataset.
            paper = max(stored, key=lambda p: p.version)
            outcome, reason_code = CrawlItem.Outcome.SKIPPED, "other_version_stored"
            reason = f"{paper.versioned_id} already stored ({paper.status})"
        else:
            paper = upsert_paper_metadata(metadata=metadata)
        if outcome == CrawlItem.Outcome.PENDING and run.accepted_only and priority != 0:
            outcome, reason_code = CrawlItem.Outcome.EXCLUDED, "not_accepted"
            reason = f"acceptance: {metadata.acceptance}"
        item, _ = CrawlItem.objects.get_or_create(
            run=run,
            paper=paper,
            defaults={
                "acceptance": metadata.acceptance,
                "priority": priority,
                "published": metadata.published,
                "outcome": outcome,
                "reason_code": reason_code,
                "reason": reason,
                "finished_at": None if outcome == CrawlItem.Outcome.PENDING else timezone.now(),
            },
        )
        return item

    # -- fetch -----------------------------------------------------------------------------
    def fetch_all(self) -> None:
        run = self.run
        while True:
            self.check_stop()
            counts = run.progress_counts()
            total = run.target(counts)
            fetched = counts["fetched"]
            if run.max_papers and fetched >= run.max_papers:
                break
            order = ("id",) if run.by_ids else ("priority", "published", "id")
            item = (
                run.items.filter(outcome=CrawlItem.Outcome.PENDING)
                .select_related("paper")
                .order_by(*order)
                .first()
            )
            if item is None:
                break
            self.report("fetch", fetched, total, f"fetching {item.paper.versioned_id}")
            try:
                self.process(item)
            except Exception as exc:
                if is_infrastructure_error(exc):
                    raise  # not the paper's fault: the run fails, and resumes from here
                # Whatever one paper's page, images or values do, it costs that paper only.
                log.exception("crawl run %s: %s failed", run.pk, item.paper.versioned_id)
                self.record_failure(item, exc)
            self.tick()
        counts = run.progress_counts()
        self.report("fetch", counts["fetched"], run.target(counts), "done")

    def process(self, item: CrawlItem) -> None:
        paper = Paper.objects.get(pk=item.paper_id)
        again = (paper.status == Paper.Status.FAILED and self.run.retry_failed) or (
            paper.status == Paper.Status.REJECTED and self.run.keep_all
        )
        if paper.status != Paper.Status.FOUND and not (again and not item.attempted_at):
            # Stored by an earlier session (killed before it could close the item), or by
            # another run meanwhile: finish the item from what is stored, fetch nothing.
            if paper.status == Paper.Status.PARSED:
                if not paper.license_url:
                    self.store_licence(item, paper)
                self.finish_images(item, paper)
            self.finish_from_paper(item, paper)
            return
        CrawlItem.objects.filter(pk=item.pk).update(attempted_at=timezone.now())
        label = paper.versioned_id
        try:
            page = self.client.fetch_html(paper.arxiv_id, paper.version)
        except (NotFound, ConversionFailed) as exc:
            what = "no HTML version" if isinstance(exc, NotFound) else "HTML conversion failed"
            code = "not_found" if isinstance(exc, NotFound) else "conversion_failed"
            self.record_outcome(
                item,
                Paper.Status.NO_HTML,
                f"{what}: {exc.reason}",
                code,
                level=CrawlEvent.Level.INFO,
                url=exc.url,
            )
            return
        except FetchError as exc:
            self.record_outcome(
                item,
                Paper.Status.FAILED,
                f"fetch failed: {exc.reason}",
                _failure_code(exc),
                url=exc.url,
            )
            return
        try:
            result = import_paper(
                html=page.html,
                page_url=page.url,
                assets=GatedAssets(self.client),
                arxiv_id=paper.arxiv_id,
                version=paper.version,
                fetched_at=page.fetched_at,
                # --keep-all: nothing is set aside; finish_from_paper marks what is below.
                min_tables=0 if self.run.keep_all else self.run.min_tables,
                min_charts=0 if self.run.keep_all else self.run.min_charts,
                images=self.run.images,  # type: ignore[arg-type]
                licence_from_page=False,  # the abstract page's licence is read next
            )
        except PaperImportError as exc:
            what = "parse error" if exc.code == "parse_error" else "not stored"
            self.finish(item, CrawlItem.Outcome.FAILED, exc.code, f"{what}: {exc.reason}")
            log_event(
                self.run,
                f"{what}: {exc.reason}",
                kind="import",
                paper=label,
                item_id=item.pk,
                level=CrawlEvent.Level.ERROR,
                url=page.url,
            )
            return
        except Exception as exc:  # noqa: BLE001 - one paper must not stop the run
            if is_infrastructure_error(exc):
                raise  # not the paper's fault: the run fails, and resumes from here
            log.exception("importing %s failed", label)
            self.record_failure(item, exc, url=page.url)
            return
        for warning in result.warnings:
            # Numbered floats not kept, numbers printed twice, package alerts.
            log_event(
                self.run,
                warning,
                kind="parse",
                paper=label,
                item_id=item.pk,
                level=CrawlEvent.Level.WARNING,
            )
        for note in result.notes:  # algorithm/listing floats skipped: the log, not the problems
            log_event(self.run, note, kind="parse", paper=label, item_id=item.pk)
        for problem in result.problems:
            log_event(
                self.run,
                problem,
                kind="asset",
                paper=label,
                item_id=item.pk,
                level=CrawlEvent.Level.WARNING,
            )
        paper = result.paper
        if paper.status == Paper.Status.PARSED:
            self.store_licence(item, paper)
        self.finish_from_paper(item, paper)

    def finish_images(self, item: CrawlItem, paper: Paper) -> None:
        """Screenshots a killed session did not finish: a parsed paper whose images were
        never done gets what is missing (those already drawn stay)."""
        if self.run.images == "none" or paper.images_status != Paper.ImagesStatus.NONE:
            return
        outcome, problems = make_paper_images(
            paper_id=paper.pk,
            images=self.run.images,  # type: ignore[arg-type]
            only_missing=True,
        )
        log_event(
            self.run,
            f"images not finished by an earlier session: {outcome} now",
            kind="asset",
            paper=paper.versioned_id,
            item_id=item.pk,
        )
        for problem in problems:
            log_event(
                self.run,
                problem,
                kind="asset",
                paper=paper.versioned_id,
                item_id=item.pk,
                level=CrawlEvent.Level.WARNING,
            )

    def record_failure(self, item: CrawlItem, exc: BaseException, *, url: str = "") -> None:
        """The paper failed on something no step expected (a value the database refused, a
        bug): recorded with its reason, the run goes on."""
        if isinstance(exc, Unstorable):
            code, reason = "unstorable", f"not stored: {exc}"
        elif isinstance(exc, DatabaseError):
            code, reason = "database_error", f"the database refused it: {exc}"
        else:
            code, reason = "import_error", f"import failed: {exc!r}"
        self.record_outcome(
            item, Paper.Status.FAILED, reason, code, url=url, detail=traceback.format_exc()
        )

    def store_licence(self, item: CrawlItem, paper: Paper) -> None:
        label = paper.versioned_id
        try:
            licence = self.client.fetch_license(paper.arxiv_id, paper.version)
        except FetchError as exc:
            log_event(
                self.run,
                f"licence not read: {exc.reason}",
                kind="licence",
                paper=label,
                item_id=item.pk,
                level=CrawlEvent.Level.WARNING,
                url=exc.url,
            )
            return
        if licence is None:
            log_event(
                self.run,
                "abstract page has no licence link",
                kind="licence",
                paper=label,
                item_id=item.pk,
                level=CrawlEvent.Level.WARNING,
            )
            return
        Paper.objects.filter(pk=paper.pk).update(
            license_url=storable_text(licence.url)[:500],
            license_name=storable_text(licence.name)[:200],
        )

    def record_outcome(
        self,
        item: CrawlItem,
        status: str,
        reason: str,
        code: str,
        *,
        level: str = CrawlEvent.Level.ERROR,
        url: str = "",
        detail: str = "",
    ) -> None:
        paper = item.paper
        with transaction.atomic():
            mark_paper_status(
                arxiv_id=paper.arxiv_id, version=paper.version, status=status, reason=reason
            )
            outcome = (
                CrawlItem.Outcome.NO_HTML
                if status == Paper.Status.NO_HTML
                else (CrawlItem.Outcome.FAILED)
            )
            self.finish(item, outcome, code, reason)
            message = f"{reason}\n\n{detail}" if detail else reason
            log_event(
                self.run,
                message,
                kind="fetch",
                paper=paper.versioned_id,
                item_id=item.pk,
                level=level,
                url=url,
            )

    def finish_from_paper(self, item: CrawlItem, paper: Paper) -> None:
        item.tables, item.charts = paper.table_count, paper.chart_count
        run = self.run
        below = paper.table_count < run.min_tables or paper.chart_count < run.min_charts
        if paper.status == Paper.Status.PARSED and run.keep_all and below:
            # Kept by request though below the filter: marked on the item and the paper.
            reason = (
                f"kept below the filter (--keep-all): {_counted(paper)}; the filter asks for "
                f"at least {run.min_tables} tables and {run.min_charts} charts"
            )
            Paper.objects.filter(pk=paper.pk).update(status_reason=reason)
            self.finish(item, CrawlItem.Outcome.KEPT, "below_filter", reason)
        elif paper.status == Paper.Status.PARSED:
            self.finish(item, CrawlItem.Outcome.KEPT, "", "")
        elif paper.status == Paper.Status.REJECTED:
            self.finish(
                item,
                CrawlItem.Outcome.REJECTED,
                _rejection_code(paper, self.run),
                paper.status_reason,
            )
        elif paper.status == Paper.Status.NO_HTML:
            code = "conversion_failed" if "conversion" in paper.status_reason else "not_found"
            self.finish(item, CrawlItem.Outcome.NO_HTML, code, paper.status_reason)
        elif paper.status == Paper.Status.FAILED:
            # The importer records a parse failure itself; a kill may land before the item.
            code = "earlier_failure"
            if item.attempted_at and paper.status_reason.startswith("parse error"):
                code = "parse_error"
            elif item.attempted_at and paper.status_reason.startswith("unstorable"):
                code = "unstorable"
            self.finish(item, CrawlItem.Outcome.FAILED, code, paper.status_reason)

    def finish(self, item: CrawlItem, outcome: str, code: str, reason: str) -> None:
        # Only a pending item is finished, once: the counts never count a paper twice.
        CrawlItem.objects.filter(pk=item.pk, outcome=CrawlItem.Outcome.PENDING).update(
            outcome=outcome,
            reason_code=code,
            reason=storable_text(reason)[:5000],
            tables=item.tables,
            charts=item.charts,
            finished_at=timezone.now(),
        )

    # -- bookkeeping -----------------------------------------------------------------------
    def check_stop(self) -> None:
        """Between steps: a pause or cancel asked for on the run, or by the job's owner."""
        if self.should_stop is not None and (wish := self.should_stop()):
            raise StopRun(wish if wish in (CrawlRun.Stop.PAUSE, CrawlRun.Stop.CANCEL) else "cancel")
        stop = (
            CrawlRun.objects.filter(pk=self.run.pk).values_list("stop_requested", flat=True).first()
        )
        if stop:
            raise StopRun(stop)

    def tick(self) -> None:
        """Heartbeat, time spent and network figures, after every step."""
        now = time.monotonic()
        elapsed, self.last_tick = now - self.last_tick, now
        stats = self.merged_stats()
        CrawlRun.objects.filter(pk=self.run.pk).update(
            heartbeat_at=timezone.now(),
            active_seconds=F("active_seconds") + elapsed,
            stats=stats,
        )

    def merged_stats(self) -> dict[str, Any]:
        merged = dict(self.base_stats)
        current = self.client.stats.as_dict()
        for key, value in current.items():
            merged[key] = round(merged.get(key, 0) + value, 3)
        by_kind = dict(merged.get("by_kind", {}))
        for key, value in self.client.stats.by_kind.items():
            by_kind[key] = by_kind.get(key, 0) + value
        merged["by_kind"] = by_kind
        return merged

    def report(self, phase: str, done: int, total: int, message: str) -> None:
        if self.progress is not None:
            self.progress(phase, done, total, message)


class _SearchIncomplete(Exception):
    pass


def _failure_code(exc: FetchError) -> str:
    if isinstance(exc, TooLarge):
        return "too_large"
    if isinstance(exc, WrongContentType):
        return "wrong_content_type"
    if isinstance(exc, TransientError):
        return "retries_exhausted"
    return "http_error"


def _counted(paper: Paper) -> str:
    tables, charts = paper.table_count, paper.chart_count
    return f"{tables} table{'' if tables == 1 else 's'}, {charts} chart{'' if charts == 1 else 's'}"


def _rejection_code(paper: Paper, run: CrawlRun) -> str:
    few_tables = paper.table_count < run.min_tables
    few_charts = paper.chart_count < run.min_charts
    if few_tables and few_charts:
        return "too_few_tables_and_charts"
    if few_tables:
        return "too_few_tables"
    if few_charts:
        return "too_few_charts"
    return "rejected"


def execute_crawl(
    *,
    run_id: int,
    progress: Progress | None = None,
    should_stop: Callable[[], bool | str] | None = None,
    client: ArxivClient | None = None,
) -> CrawlRun:
    """Execute a queued run to its end (finished, paused, cancelled or failed).

    `should_stop` is asked between steps: truthy cancels the run, "pause" pauses it.
    """
    with transaction.atomic():
        run = CrawlRun.objects.select_for_update().get(pk=run_id)
        if run.status != CrawlRun.Status.QUEUED:
            if run.status == CrawlRun.Status.RUNNING and worker_alive(run):
                raise RunBusy(f"run #{run.pk} is already running in {run.worker}")
            log.info("crawl run %s is %s: nothing to do", run.pk, run.status)
            return run
        now = timezone.now()
        resumed = run.started_at is not None
        run.status = CrawlRun.Status.RUNNING
        run.worker = this_worker()
        run.started_at = run.started_at or now
        run.heartbeat_at = now
        run.save(update_fields=["status", "worker", "started_at", "heartbeat_at"])
        log_event(run, f"{'resumed' if resumed else 'started'} in {run.worker}")

    execution = CrawlExecution(
        run,
        client=client or ArxivClient.from_settings(),
        progress=progress,
        should_stop=should_stop,
    )
    status, error, message = CrawlRun.Status.FINISHED, "", "finished"
    try:
        execution.execute()
    except StopRun as stop:
        if stop.action == CrawlRun.Stop.PAUSE:
            status, message = CrawlRun.Status.PAUSED, "paused"
        else:
            status, message = CrawlRun.Status.CANCELLED, "cancelled"
    except _SearchIncomplete as exc:
        status, error, message = CrawlRun.Status.FAILED, str(exc), str(exc)
    except Exception as exc:
        log.exception("crawl run %s failed", run.pk)
        status, error = CrawlRun.Status.FAILED, f"{exc.__class__.__name__}: {exc}"
        message = f"failed: {error}\n\n{traceback.format_exc()}"
        _end(run, execution, status, error, message)
        raise
    _end(run, execution, status, error, message)
    run.refresh_from_db()
    return run


def _end(run: CrawlRun, execution: CrawlExecution, status: str, error: str, message: str) -> None:
    execution.tick()
    with transaction.atomic():
        CrawlRun.objects.filter(pk=run.pk).update(
            status=status,
            error=error,
            stop_requested="",
            finished_at=timezone.now(),
            phase=CrawlRun.Phase.DONE if status == CrawlRun.Status.FINISHED else F("phase"),
        )
        level = (
            CrawlEvent.Level.ERROR if status == CrawlRun.Status.FAILED else (CrawlEvent.Level.INFO)
        )
        log_event(run, message, level=level)
