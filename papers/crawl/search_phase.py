"""The search phase of a crawl run: date ranges searched, or listed ids looked up, a step a
request, each answer recorded in one transaction (a found paper's metadata stored and made an
item of the run) before the next step, so that a resumed run asks only what is left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import arxiv
from django.db import transaction
from django.utils import timezone

from papers.crawl.acceptance import PRIORITY, classify_acceptance
from papers.crawl.bookkeeping import ExecutionState, is_infrastructure_error
from papers.crawl.errors import FetchError
from papers.crawl.feed import IdLookup, SearchOutcome, version_of, withdrawal
from papers.crawl.ids import id_batches
from papers.crawl.services import chunk_key, date_chunks, log_event
from papers.metadata import PaperMetadata, upsert_paper_metadata
from papers.models import CrawlEvent, CrawlItem, CrawlListedId, CrawlRun, Paper
from papers.storable import storable_text


@dataclass
class _SearchStep:
    """One request of the search phase: a date range, or a batch of listed ids."""

    key: str  # recorded in CrawlRun.search_done once done
    what: str  # "search of 2024-09-01..2024-09-03": how the log names it
    progress: str  # what the progress bar says meanwhile
    ask: Callable[[], Any]  # the API request; FetchError: logged, the step stays to do
    record: Callable[[Any], list[str]]  # store the answer; the problems to log


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


class SearchPhase(ExecutionState):
    """Finding a run's papers: its date ranges searched, or its listed ids looked up."""

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
