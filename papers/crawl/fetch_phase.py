"""The fetch phase of a crawl run: pending items fetched in priority order, each paper's page
imported with its images fetched through the gate, its licence read, and its item finished
with an outcome and a reason; whatever one paper does costs that paper only."""

from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass

from django.db import DatabaseError, transaction
from django.utils import timezone

from papers.assets import AssetError, decode_data_uri
from papers.crawl.bookkeeping import ExecutionState, is_infrastructure_error
from papers.crawl.client import ArxivClient, HtmlPage
from papers.crawl.errors import (
    ConversionFailed,
    FetchError,
    NotFound,
    TooLarge,
    TransientError,
    WrongContentType,
)
from papers.crawl.services import log_event
from papers.drawing import make_paper_images
from papers.importing import ImportResult, PaperImportError, import_paper
from papers.metadata import mark_paper_status
from papers.models import CrawlEvent, CrawlItem, CrawlRun, Paper
from papers.parsing import Panel
from papers.storable import Unstorable, storable_text

log = logging.getLogger(__name__)


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


class FetchPhase(ExecutionState):
    """Fetching and importing a run's pending papers, one item at a time."""

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
        """Fetch and import one item's paper, log what its import says, and finish the item;
        a paper stored already (by a killed session, or another run) is finished as stored."""
        paper = Paper.objects.get(pk=item.paper_id)
        if not fetch_again(
            paper.status,
            retry_failed=self.run.retry_failed,
            keep_all=self.run.keep_all,
            attempted=item.attempted_at is not None,
        ):
            self.finish_stored(item, paper)
            return
        CrawlItem.objects.filter(pk=item.pk).update(attempted_at=timezone.now())
        page = self.fetch_page(item, paper)
        if page is None:
            return
        result = self.import_page(item, paper, page)
        if result is None:
            return
        self.log_import(item, result)
        paper = result.paper
        if paper.status == Paper.Status.PARSED:
            self.store_licence(item, paper)
        self.finish_from_paper(item, paper)

    def finish_stored(self, item: CrawlItem, paper: Paper) -> None:
        """Finish the item from what is stored, fetching no page: a parsed paper gets the
        licence and the images an earlier session did not finish."""
        if paper.status == Paper.Status.PARSED:
            if not paper.license_url:
                self.store_licence(item, paper)
            self.finish_images(item, paper)
        self.finish_from_paper(item, paper)

    def fetch_page(self, item: CrawlItem, paper: Paper) -> HtmlPage | None:
        """The paper's HTML page, or None with the item finished: no HTML version (or a
        failed conversion) is the paper's outcome, a failed fetch its failure."""
        try:
            return self.client.fetch_html(paper.arxiv_id, paper.version)
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
        except FetchError as exc:
            self.record_outcome(
                item,
                Paper.Status.FAILED,
                f"fetch failed: {exc.reason}",
                _failure_code(exc),
                url=exc.url,
            )
        return None

    def import_page(self, item: CrawlItem, paper: Paper, page: HtmlPage) -> ImportResult | None:
        """The page imported with the run's minimums and images, or None with the item
        finished as failed (an infrastructure error is raised: the run fails, and resumes)."""
        label = paper.versioned_id
        try:
            return import_paper(
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
        except Exception as exc:  # noqa: BLE001 - one paper must not stop the run
            if is_infrastructure_error(exc):
                raise  # not the paper's fault: the run fails, and resumes from here
            log.exception("importing %s failed", label)
            self.record_failure(item, exc, url=page.url)
        return None

    def log_import(self, item: CrawlItem, result: ImportResult) -> None:
        """What the import says about the page, in the run's log: the parse's warnings
        (numbered floats not kept, numbers printed twice, package alerts), the floats skipped
        on purpose (algorithms, listings: a note, not a problem), and the images not read."""
        label = result.paper.versioned_id
        warning = CrawlEvent.Level.WARNING
        for text in result.warnings:
            log_event(self.run, text, kind="parse", paper=label, item_id=item.pk, level=warning)
        for note in result.notes:
            log_event(self.run, note, kind="parse", paper=label, item_id=item.pk)
        for problem in result.problems:
            log_event(self.run, problem, kind="asset", paper=label, item_id=item.pk, level=warning)

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


def fetch_again(status: str, *, retry_failed: bool, keep_all: bool, attempted: bool) -> bool:
    """Whether an item's paper is fetched (and imported) now: a paper only found is; a failed
    one is under --retry-failed, a rejected one under --keep-all, each only if this run has
    not tried it yet (a killed session's try is finished from what it stored)."""
    if status == Paper.Status.FOUND:
        return True
    again = (status == Paper.Status.FAILED and retry_failed) or (
        status == Paper.Status.REJECTED and keep_all
    )
    return again and not attempted


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
