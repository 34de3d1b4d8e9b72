"""Crawl runs: their parameters and state, the papers each found, and a log of what happened."""

from __future__ import annotations

from collections.abc import Mapping

from django.apps import apps
from django.conf import settings
from django.db import models
from django.db.models import Count, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce

from papers.parsing.stamp import stamp_label


class CrawlStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


class CrawlPhase(models.TextChoices):
    SEARCH = "search"
    FETCH = "fetch"
    DONE = "done"


class CrawlStop(models.TextChoices):
    NONE = "", "none"
    PAUSE = "pause"
    CANCEL = "cancel"


class CrawlOutcome(models.TextChoices):
    PENDING = "pending", "to fetch"
    KEPT = "kept", "kept (meets the criteria)"
    REJECTED = "rejected", "rejected (too few tables/charts)"
    NO_HTML = "no_html", "no HTML version"
    FAILED = "failed", "failed"
    SKIPPED = "skipped", "already stored"
    EXCLUDED = "excluded", "not accepted (accepted-only run)"


class CrawlEventLevel(models.TextChoices):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class CrawlRunQuerySet(models.QuerySet["CrawlRun"]):
    def with_item_counts(self) -> CrawlRunQuerySet:
        """Each run with items_found, items_fetched and items_kept: counts()'s found, fetched
        and kept, counted in this query (for lists of runs, which must not query per row),
        items_pending (what `progress` needs besides) and items_listed (the ids of a crawl by
        ids)."""
        listed = (
            CrawlListedId.objects.filter(run=OuterRef("pk"))
            .order_by()
            .values("run")
            .annotate(n=Count("id"))
            .values("n")
        )
        return self.annotate(
            items_listed=Coalesce(Subquery(listed), 0),
            items_found=Count("items"),
            items_fetched=Count("items", filter=Q(items__outcome__in=CrawlItem.PROCESSED)),
            items_kept=Count("items", filter=Q(items__outcome=CrawlItem.Outcome.KEPT)),
            items_pending=Count("items", filter=Q(items__outcome=CrawlItem.Outcome.PENDING)),
        )


class CrawlRun(models.Model):
    Status = CrawlStatus
    Phase = CrawlPhase
    Stop = CrawlStop

    ACTIVE = (Status.QUEUED, Status.RUNNING)
    RESUMABLE = (Status.PAUSED, Status.FAILED, Status.CANCELLED, Status.RUNNING)

    # What to crawl: a window of submission days and categories, or a list of ids
    date_from = models.DateField(
        null=True, blank=True, help_text="First submission day (GMT), inclusive (empty: by ids)"
    )
    date_to = models.DateField(
        null=True, blank=True, help_text="Last submission day (GMT), inclusive (empty: by ids)"
    )
    by_ids = models.BooleanField(
        default=False, help_text="Papers listed by arXiv id (CrawlListedId), not a window"
    )
    keep_all = models.BooleanField(
        default=False,
        help_text="Store papers below the tables/charts minimum too, marked as such",
    )
    categories = models.JSONField(default=list)
    max_papers = models.PositiveIntegerField(
        null=True, blank=True, help_text="Fetch at most this many papers' HTML (empty: all)"
    )
    accepted_only = models.BooleanField(default=False)
    min_tables = models.PositiveSmallIntegerField(default=2)
    min_charts = models.PositiveSmallIntegerField(default=2)
    chunk_days = models.PositiveSmallIntegerField(
        default=1, help_text="The window is searched in ranges of this many days"
    )
    retry_failed = models.BooleanField(
        default=False, help_text="Fetch again papers that failed in an earlier run"
    )
    images = models.CharField(max_length=8, default="auto")

    # Where it is
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    phase = models.CharField(max_length=8, choices=Phase.choices, default=Phase.SEARCH)
    stop_requested = models.CharField(max_length=8, choices=Stop.choices, default="", blank=True)
    error = models.TextField(blank=True)
    search_done = models.JSONField(
        default=list, blank=True, help_text="Date ranges already searched (resume skips them)"
    )
    search_chunks = models.PositiveIntegerField(default=0)
    job = models.ForeignKey(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="crawl_runs",
    )
    worker = models.CharField(
        max_length=200, blank=True, help_text="host:pid of the process running it"
    )

    # Timings and what the crawler did on the network
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    active_seconds = models.FloatField(default=0.0)
    stats = models.JSONField(default=dict, blank=True)

    objects = CrawlRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=CrawlStatus.values), name="crawlrun_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(phase__in=CrawlPhase.values), name="crawlrun_phase_valid"
            ),
            models.CheckConstraint(
                condition=Q(date_from__lte=models.F("date_to"))
                | Q(by_ids=True, date_from__isnull=True, date_to__isnull=True),
                name="crawlrun_window_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"crawl #{self.pk} {self.scope} ({self.status})"

    @property
    def scope(self) -> str:
        """What the run crawls, in a few words: the window and categories, or the list."""
        if self.by_ids:
            n = self.listed.count() if self.pk else 0
            return f"{n} listed id{'' if n == 1 else 's'}"
        return f"{','.join(self.categories)} {self.date_from}..{self.date_to}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    def counts(self) -> dict[str, object]:
        """found, fetched, kept, rejected (by reason), no_html, failed, skipped, pending, and the
        numbered floats the imports did not keep (lost) or deliberately skipped."""
        rows = self.items.values("outcome", "reason_code").annotate(n=Count("id"))
        by_outcome: dict[str, int] = {}
        rejected_by_reason: dict[str, int] = {}
        failed_by_reason: dict[str, int] = {}
        for row in rows:
            by_outcome[row["outcome"]] = by_outcome.get(row["outcome"], 0) + row["n"]
            if row["outcome"] in (CrawlItem.Outcome.REJECTED, CrawlItem.Outcome.NO_HTML):
                key = row["reason_code"] or row["outcome"]
                rejected_by_reason[key] = rejected_by_reason.get(key, 0) + row["n"]
            elif row["outcome"] == CrawlItem.Outcome.FAILED:
                key = row["reason_code"] or "failed"
                failed_by_reason[key] = failed_by_reason.get(key, 0) + row["n"]
        get = by_outcome.get
        fetched = sum(get(o, 0) for o in CrawlItem.PROCESSED)
        # What the parser could not keep, over the papers this run imported.
        floats = self.items.filter(
            outcome__in=(CrawlItem.Outcome.KEPT, CrawlItem.Outcome.REJECTED)
        ).aggregate(
            lost=Sum("paper__lost_count"),
            skipped=Sum("paper__skipped_count"),
            papers=Count("id", filter=Q(paper__lost_count__gt=0)),
        )
        # Which LaTeXML made the pages this run imported (arXiv serves two in 2026).
        generators: dict[str, int] = {}
        for row in (
            self.items.filter(outcome__in=(CrawlItem.Outcome.KEPT, CrawlItem.Outcome.REJECTED))
            .values("paper__generator_name", "paper__generator_version")
            .annotate(n=Count("id"))
            .order_by("paper__generator_name", "paper__generator_version")
        ):
            name = stamp_label(row["paper__generator_name"], row["paper__generator_version"], None)
            generators[name or "no generator stamp"] = row["n"]
        vector = self._vector_charts()
        return {
            "found": sum(by_outcome.values()),
            "pending": get(CrawlItem.Outcome.PENDING, 0),
            "fetched": fetched,
            "kept": get(CrawlItem.Outcome.KEPT, 0),
            "rejected": get(CrawlItem.Outcome.REJECTED, 0),
            "no_html": get(CrawlItem.Outcome.NO_HTML, 0),
            "failed": get(CrawlItem.Outcome.FAILED, 0),
            "skipped": get(CrawlItem.Outcome.SKIPPED, 0),
            "excluded": get(CrawlItem.Outcome.EXCLUDED, 0),
            "floats_lost": floats["lost"] or 0,
            "papers_with_lost_floats": floats["papers"] or 0,
            "floats_skipped": floats["skipped"] or 0,
            "rejected_by_reason": dict(sorted(rejected_by_reason.items())),
            "failed_by_reason": dict(sorted(failed_by_reason.items())),
            "generators": generators,
            **vector,
        }

    def _vector_charts(self) -> dict[str, int]:
        """The charts whose graphic is a fetched vector file, in the papers this run imported:
        kept (made inert), not drawn yet or without Chromium (SVG only), and the vector files
        refused (malformed, or over a budget)."""

        element = apps.get_model("papers", "Element")
        panel = apps.get_model("papers", "ElementPanel")
        imported = self.items.filter(
            outcome__in=(CrawlItem.Outcome.KEPT, CrawlItem.Outcome.REJECTED)
        ).values("paper_id")
        charts = element.objects.filter(
            paper_id__in=imported, kind="chart", panels__svg__gt=""
        ).exclude(panels__source_url="")
        refused = panel.objects.filter(
            element__paper_id__in=imported, error__startswith="SVG not drawn"
        )
        return {
            "vector_charts": charts.distinct().count(),
            "vector_charts_undrawn": charts.filter(image_renderer="svg_only").distinct().count(),
            "vector_panels_refused": refused.count(),
        }

    def progress_counts(self) -> dict[str, int]:
        """pending and fetched only, in one query: what the fetch loop asks before each paper
        (counts() reads the imported papers' floats, generators and vector charts too)."""
        rows = self.items.values("outcome").annotate(n=Count("id"))
        by_outcome = {row["outcome"]: row["n"] for row in rows}
        return {
            "pending": by_outcome.get(CrawlItem.Outcome.PENDING, 0),
            "fetched": sum(by_outcome.get(o, 0) for o in CrawlItem.PROCESSED),
        }

    def progress(self, counts: Mapping[str, object]) -> tuple[int, int, int | None]:
        """Done of total and the percent, for progress bars: date ranges (or batches of ids)
        searched while searching, then papers fetched of those it will fetch (`counts`: pending
        and fetched at least). The percent is None with no total yet: nothing to do is not "all
        done", and the page says why."""
        if self.phase == self.Phase.SEARCH:
            done, total = len(self.search_done), self.search_chunks
        else:
            done, total = int(counts["fetched"]), self.target(counts)  # type: ignore[call-overload]
        return done, total, (min(100, round(100 * done / total)) if total else None)

    def target(self, counts: Mapping[str, object] | None = None) -> int:
        """How many papers the fetch phase will fetch in all (for progress bars)."""
        counts = counts or self.progress_counts()
        eligible = int(counts["pending"]) + int(counts["fetched"])  # type: ignore[call-overload]
        return min(eligible, self.max_papers) if self.max_papers else eligible


class CrawlItem(models.Model):
    """A paper that a run found, and what the run did with it."""

    Outcome = CrawlOutcome

    PROCESSED = (Outcome.KEPT, Outcome.REJECTED, Outcome.NO_HTML, Outcome.FAILED)

    run = models.ForeignKey(CrawlRun, on_delete=models.CASCADE, related_name="items")
    paper = models.ForeignKey("papers.Paper", on_delete=models.CASCADE, related_name="crawl_items")
    acceptance = models.CharField(max_length=16, blank=True)
    priority = models.PositiveSmallIntegerField(default=3, help_text="0 is fetched first")
    published = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=12, choices=Outcome.choices, default=Outcome.PENDING)
    reason_code = models.CharField(max_length=32, blank=True)
    reason = models.TextField(blank=True)
    tables = models.PositiveIntegerField(null=True, blank=True)
    charts = models.PositiveIntegerField(null=True, blank=True)
    attempted_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "priority", "published", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "paper"], name="crawlitem_unique_paper"),
            models.CheckConstraint(
                condition=Q(outcome__in=CrawlOutcome.values), name="crawlitem_outcome_valid"
            ),
        ]
        indexes = [models.Index(fields=["run", "outcome", "priority", "published"])]

    def __str__(self) -> str:
        return f"{self.paper.versioned_id} in run #{self.run_id}: {self.outcome}"


class ListedOutcome(models.TextChoices):
    PENDING = "pending", "to look up"
    FOUND = "found", "found"  # what became of it: its item
    NOT_FOUND = "not_found", "not found"
    WITHDRAWN = "withdrawn", "withdrawn"
    DUPLICATE = "duplicate", "listed twice"
    REFUSED = "refused", "not stored"


class CrawlListedId(models.Model):
    """One line of a crawl by ids: the id as listed, and what arXiv and the run made of it."""

    Outcome = ListedOutcome

    run = models.ForeignKey(CrawlRun, on_delete=models.CASCADE, related_name="listed")
    line = models.PositiveIntegerField(help_text="Its line (or entry) in the list as given")
    arxiv_id = models.CharField(max_length=32, help_text="Without version")
    version = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The version asked for (empty: the latest)"
    )
    outcome = models.CharField(max_length=12, choices=Outcome.choices, default=Outcome.PENDING)
    detail = models.TextField(blank=True)
    latest_version = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The latest version arXiv has"
    )
    item = models.ForeignKey(
        CrawlItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="listed"
    )

    class Meta:
        ordering = ["run", "line"]
        constraints = [
            models.UniqueConstraint(fields=["run", "line"], name="crawllisted_unique_line"),
            models.CheckConstraint(
                condition=Q(outcome__in=ListedOutcome.values), name="crawllisted_outcome_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"line {self.line} {self.requested} in run #{self.run_id}: {self.outcome}"

    @property
    def requested(self) -> str:
        return self.arxiv_id if self.version is None else f"{self.arxiv_id}v{self.version}"


class CrawlEvent(models.Model):
    """Append-only log of a run: status changes, and every paper's errors and warnings."""

    Level = CrawlEventLevel

    run = models.ForeignKey(CrawlRun, on_delete=models.CASCADE, related_name="events")
    item = models.ForeignKey(
        CrawlItem, null=True, blank=True, on_delete=models.CASCADE, related_name="events"
    )
    paper = models.CharField(max_length=48, blank=True, help_text="Versioned arXiv id")
    level = models.CharField(max_length=8, choices=Level.choices, default=Level.INFO)
    kind = models.CharField(max_length=32, help_text="status, search, fetch, import, asset, …")
    message = models.TextField()
    url = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(level__in=CrawlEventLevel.values), name="crawlevent_level_valid"
            )
        ]

    def __str__(self) -> str:
        return f"[{self.level}] {self.paper} {self.message[:80]}".strip()
