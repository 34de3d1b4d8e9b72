"""The shapes of the admin data routes' answers (papers, crawls, jobs, assignments, people,
progress, agreement), and of their request bodies (for the schema only: the pages' forms read
the input). Every URL in an answer is absolute when the request is known."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.links import absolute

# --- Papers --------------------------------------------------------------------------------


class PaperSerializer(serializers.Serializer):
    """A paper of the assignment list (`annotation.assignment.selectors.papers_for_assignment`)."""

    id = serializers.IntegerField()
    arxiv_id = serializers.CharField()
    version = serializers.IntegerField()
    versioned_id = serializers.CharField()
    title = serializers.CharField()
    subfield = serializers.CharField(
        source="subfield_code", help_text="The admin's choice, else the primary arXiv category"
    )
    subfield_chosen = serializers.BooleanField(help_text="Chosen by an admin")
    status = serializers.CharField()
    acceptance = serializers.CharField()
    table_count = serializers.IntegerField()
    chart_count = serializers.IntegerField()
    archived = serializers.SerializerMethodField()
    assigned_to = serializers.CharField(allow_null=True, help_text="The open writer assignment's")
    assignment_status = serializers.CharField(allow_null=True)
    url = serializers.SerializerMethodField()

    def get_archived(self, paper: Any) -> bool:
        return paper.archived_at is not None

    def get_url(self, paper: Any) -> str:
        return absolute(self.context, "api:paper", paper.arxiv_id, paper.version)


class PaperSectionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    anchor = serializers.CharField()
    number = serializers.CharField()
    title = serializers.CharField()
    name = serializers.CharField(help_text="Number and title, as the pages name it")
    level = serializers.IntegerField()
    kind = serializers.CharField(help_text="abstract, body, related_work, references, …")
    parent = serializers.IntegerField(allow_null=True)
    kept = serializers.BooleanField(
        allow_null=True,
        help_text="Kept by the latest curated context; null when the paper has none",
    )
    in_context = serializers.BooleanField(
        allow_null=True, help_text="Kept with every section around it; null when not curated"
    )


class PaperParagraphSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    anchor = serializers.CharField()
    section = serializers.IntegerField()
    text = serializers.CharField()
    references = serializers.ListField(
        child=serializers.IntegerField(), help_text="Ids of the tables and charts it refers to"
    )
    kept = serializers.BooleanField(allow_null=True)


class PaperVisualSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    anchor = serializers.CharField()
    section = serializers.IntegerField()
    label = serializers.CharField()
    caption = serializers.CharField()
    image_url = serializers.CharField(
        allow_null=True, help_text="Its picture as the pages show it (PNG, else the inert SVG)"
    )
    image_error = serializers.CharField()
    kept = serializers.BooleanField(allow_null=True)
    not_a_chart = serializers.BooleanField(help_text="Charts: the curator said it is none")


class PaperDetailSerializer(serializers.Serializer):
    """One paper's parsed context, with the latest curated context's decisions if any."""

    id = serializers.IntegerField()
    arxiv_id = serializers.CharField()
    version = serializers.IntegerField()
    versioned_id = serializers.CharField()
    title = serializers.CharField()
    primary_category = serializers.CharField()
    status = serializers.CharField()
    acceptance = serializers.CharField()
    archived = serializers.BooleanField()
    table_count = serializers.IntegerField()
    chart_count = serializers.IntegerField()
    paragraph_count = serializers.IntegerField()
    curated_version = serializers.IntegerField(
        allow_null=True, help_text="The curated context the `kept` fields come from"
    )
    page_url = serializers.CharField(help_text="The paper's page")
    sections = PaperSectionSerializer(many=True)
    paragraphs = PaperParagraphSerializer(many=True)
    tables = PaperVisualSerializer(many=True)
    charts = PaperVisualSerializer(many=True)


class NewPapers(serializers.Serializer):
    """The crawl page's "papers by arXiv id" form (documentation only)."""

    ids = serializers.JSONField(
        help_text="One id a line (text; # starts a comment), or a list of ids"
    )
    min_tables = serializers.IntegerField(min_value=0, max_value=100)
    min_charts = serializers.IntegerField(min_value=0, max_value=100)
    keep_all = serializers.BooleanField(required=False)


class PaperAddedSerializer(serializers.Serializer):
    crawl_id = serializers.IntegerField()
    crawl_url = serializers.CharField()
    status = serializers.CharField()
    job_id = serializers.IntegerField(allow_null=True)


# --- Crawls and jobs -----------------------------------------------------------------------


class CrawlSerializer(serializers.Serializer):
    """A crawl run in the list (its counts from `with_item_counts`)."""

    id = serializers.IntegerField()
    scope = serializers.CharField()
    by_ids = serializers.BooleanField()
    status = serializers.CharField()
    phase = serializers.CharField()
    finished = serializers.SerializerMethodField()
    listed = serializers.IntegerField(source="items_listed")
    found = serializers.IntegerField(source="items_found")
    fetched = serializers.IntegerField(source="items_fetched")
    kept = serializers.IntegerField(source="items_kept")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.SerializerMethodField()

    def get_finished(self, run: Any) -> bool:
        return not run.is_active

    def get_url(self, run: Any) -> str:
        return absolute(self.context, "api:crawl", run.pk)


class CrawlProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.IntegerField(allow_null=True, help_text="null: nothing to count yet")


class CrawlExplainedSerializer(serializers.Serializer):
    summary = serializers.CharField()
    advice = serializers.CharField()
    detail = serializers.CharField()


class CrawlProblemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    level = serializers.CharField()
    kind = serializers.CharField()
    paper = serializers.CharField()
    message = serializers.CharField()
    summary = serializers.CharField()
    advice = serializers.CharField()
    url = serializers.CharField()
    created_at = serializers.DateTimeField()


class ListedIdSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    requested = serializers.CharField()
    outcome = serializers.CharField()
    label = serializers.CharField()
    detail = serializers.CharField()
    newer = serializers.IntegerField(allow_null=True)
    text = serializers.CharField()


class ListedCountSerializer(serializers.Serializer):
    label = serializers.CharField()
    count = serializers.IntegerField()


class CrawlDetailSerializer(serializers.Serializer):
    """A crawl run as its page shows it (`papers.crawl.starting.progress_of`)."""

    id = serializers.IntegerField()
    scope = serializers.CharField()
    by_ids = serializers.BooleanField()
    keep_all = serializers.BooleanField()
    categories = serializers.ListField(child=serializers.CharField())
    date_from = serializers.DateField(allow_null=True)
    date_to = serializers.DateField(allow_null=True)
    max_papers = serializers.IntegerField(allow_null=True)
    min_tables = serializers.IntegerField()
    min_charts = serializers.IntegerField()
    status = serializers.CharField()
    phase = serializers.CharField()
    finished = serializers.BooleanField(
        help_text="The run has stopped (finished, failed, paused or cancelled)"
    )
    stale = serializers.BooleanField(help_text="Said running, but its worker is gone")
    counts = serializers.DictField(help_text="found, fetched, kept, rejected, … (as the page)")
    progress = CrawlProgressSerializer()
    error = CrawlExplainedSerializer(allow_null=True)
    problems = CrawlProblemSerializer(many=True, help_text="The 20 latest warnings and errors")
    listed = ListedIdSerializer(many=True, allow_null=True, help_text="Crawls by ids: each line")
    listed_counts = ListedCountSerializer(many=True, allow_null=True)
    job_id = serializers.IntegerField(allow_null=True)
    job_url = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    page_url = serializers.CharField()


class BackgroundJobProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.IntegerField()


class BackgroundJobSerializer(serializers.Serializer):
    """A background job (`jobs.models.Job`): how far it got and how it ended."""

    id = serializers.IntegerField()
    kind = serializers.CharField()
    queue = serializers.CharField()
    status = serializers.CharField()
    finished = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    message = serializers.CharField()
    error = serializers.CharField()
    result = serializers.JSONField()
    cancel_requested = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)

    def get_finished(self, job: Any) -> bool:
        return not job.is_active

    @extend_schema_field(BackgroundJobProgressSerializer)
    def get_progress(self, job: Any) -> dict[str, int]:
        return {"done": job.progress_done, "total": job.progress_total, "percent": job.percent}


# --- Assignment ----------------------------------------------------------------------------


class AssignmentAction(serializers.Serializer):
    """The assignment page's form (documentation only)."""

    action = serializers.ChoiceField(choices=["assign", "spread", "unassign", "subfield"])
    papers = serializers.ListField(child=serializers.IntegerField(), help_text="Paper ids")
    expert = serializers.IntegerField(required=False, help_text="assign: the expert's user id")
    experts = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="spread: user ids"
    )
    per_expert = serializers.IntegerField(required=False)
    reassign = serializers.BooleanField(required=False)
    subfield = serializers.IntegerField(required=False, help_text="subfield: its id")
    note = serializers.CharField(required=False)


class AssignedSerializer(serializers.Serializer):
    assignment_id = serializers.IntegerField()
    paper_id = serializers.IntegerField()
    paper = serializers.CharField()
    expert_id = serializers.IntegerField()
    expert = serializers.CharField()


class NotEligibleSerializer(serializers.Serializer):
    expert = serializers.CharField()
    reason = serializers.CharField()


class AssignmentDoneSerializer(serializers.Serializer):
    action = serializers.CharField()
    papers = serializers.ListField(child=serializers.IntegerField())
    assigned = AssignedSerializer(many=True)
    reassigned = serializers.IntegerField(help_text="Open assignments closed to reassign")
    by_expert = serializers.DictField(child=serializers.IntegerField())
    not_eligible = NotEligibleSerializer(many=True)
    left_over = serializers.ListField(
        child=serializers.IntegerField(), help_text="Papers nobody chosen could take"
    )
    unassigned = serializers.IntegerField()
    subfield = serializers.CharField(allow_null=True)
    subfield_set = serializers.IntegerField()


# --- Progress and agreement ----------------------------------------------------------------


class SubfieldWaitingSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField(allow_null=True)
    waiting = serializers.IntegerField(help_text="Parsed papers with no open assignment")
    eligible_experts = serializers.ListField(child=serializers.CharField())


class ExpertWorkSerializer(serializers.Serializer):
    username = serializers.CharField()
    eligible = serializers.ListField(child=serializers.CharField())
    to_curate = serializers.IntegerField()
    curated = serializers.IntegerField()
    contexts_saved = serializers.IntegerField()
    claim_pairs = serializers.IntegerField()


class AssignmentProgressSerializer(serializers.Serializer):
    subfields = SubfieldWaitingSerializer(many=True)
    experts = ExpertWorkSerializer(many=True)


class WriterSerializer(serializers.Serializer):
    username = serializers.CharField()
    pairs = serializers.IntegerField()
    held = serializers.IntegerField()


class WritingProgressSerializer(serializers.Serializer):
    counts = serializers.DictField(
        child=serializers.IntegerField(), help_text="Writing items by status"
    )
    waiting = serializers.IntegerField(help_text="Items no eligible expert can take")
    writers = WriterSerializer(many=True)


class ReviewProgressSerializer(serializers.Serializer):
    states = serializers.DictField(child=serializers.IntegerField(), help_text="Claims by state")
    waiting = serializers.IntegerField()
    unresolved = serializers.IntegerField()
    flagged = serializers.IntegerField()
    dropped = serializers.IntegerField()


class ValidationProgressSerializer(serializers.Serializer):
    counts = serializers.DictField(child=serializers.IntegerField())
    waiting = serializers.IntegerField()
    validated = serializers.IntegerField()
    revised = serializers.IntegerField()
    pending = serializers.IntegerField()
    splittable = serializers.IntegerField(help_text="Pairs that may enter a split")


class ProgressFiguresSerializer(serializers.Serializer):
    papers = serializers.DictField(
        child=serializers.IntegerField(), help_text="Live papers by status, and archived"
    )
    assignment = AssignmentProgressSerializer()
    writing = WritingProgressSerializer()
    review = ReviewProgressSerializer()
    validation = ValidationProgressSerializer()


class GroupReportSerializer(serializers.Serializer):
    group = serializers.CharField()
    value = serializers.CharField()
    items = serializers.IntegerField()
    label_complete = serializers.IntegerField()
    label_incomplete = serializers.IntegerField()
    label_percent = serializers.FloatField(allow_null=True)
    label_kappa = serializers.FloatField(allow_null=True)
    evidence_complete = serializers.IntegerField()
    evidence_incomplete = serializers.IntegerField()
    evidence_mean_jaccard = serializers.FloatField(allow_null=True)
    evidence_exact_match_rate = serializers.FloatField(allow_null=True)
    agreed = serializers.IntegerField()
    label_disagreements = serializers.IntegerField()
    evidence_only_disagreements = serializers.IntegerField()


class AgreementGroupsSerializer(serializers.Serializer):
    subset = GroupReportSerializer(many=True)
    subfield = GroupReportSerializer(many=True)
    annotator_pair = GroupReportSerializer(many=True)
    blindness = GroupReportSerializer(many=True)


class AgreementAdjudicationSerializer(serializers.Serializer):
    compared_claims = serializers.IntegerField()
    sent_to_adjudication = serializers.IntegerField()
    rate = serializers.FloatField(allow_null=True)
    reasons = serializers.DictField(child=serializers.IntegerField())


class AgreementDaySerializer(serializers.Serializer):
    day = serializers.DateField()
    written = serializers.IntegerField()
    annotated = serializers.IntegerField()
    adjudicated = serializers.IntegerField()


class AgreementSerializer(serializers.Serializer):
    """`annotation.review.stats.agreement_summary`, as numbers (the page draws them)."""

    threshold = serializers.FloatField(help_text="Evidence Jaccard at which evidence agrees")
    overall = GroupReportSerializer()
    groups = AgreementGroupsSerializer()
    states = serializers.DictField(child=serializers.IntegerField())
    adjudication = AgreementAdjudicationSerializer()
    progress = AgreementDaySerializer(many=True)
    archived_papers = serializers.IntegerField(help_text="Left out of every figure")


# --- People --------------------------------------------------------------------------------


class PersonSerializer(serializers.Serializer):
    """A row of the People page."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    first_name = serializers.CharField()
    last_name = serializers.CharField()
    is_staff = serializers.BooleanField()
    is_active = serializers.BooleanField()
    has_profile = serializers.BooleanField()
    profile_active = serializers.BooleanField(allow_null=True)
    archived = serializers.BooleanField()
    eligible = serializers.ListField(child=serializers.CharField(), help_text="Subfield codes")
    open_workload = serializers.IntegerField(help_text="Open assignments, every role")
    url = serializers.CharField()


class SubfieldEligibilitySerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    declared = serializers.BooleanField()
    publications = serializers.IntegerField()
    required = serializers.IntegerField()
    eligible = serializers.BooleanField()
    reasons = serializers.ListField(child=serializers.CharField())


class ExpertPublicationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    venue = serializers.CharField()
    year = serializers.IntegerField()
    subfield = serializers.CharField()


class ExpertTrainingSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    completed_on = serializers.DateField()
    trainer = serializers.CharField()
    notes = serializers.CharField()
    recorded_by = serializers.CharField(allow_null=True)


class ExpertProfileSerializer(serializers.Serializer):
    active = serializers.BooleanField()
    archived = serializers.BooleanField()
    notes = serializers.CharField()
    subfields = serializers.ListField(child=serializers.CharField(), help_text="Declared")


class PersonDetailSerializer(serializers.Serializer):
    """A person's page: account, profile, eligibility per subfield, publications, training and
    open workload."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    first_name = serializers.CharField()
    last_name = serializers.CharField()
    email = serializers.CharField()
    is_staff = serializers.BooleanField()
    is_active = serializers.BooleanField()
    active_expert = serializers.BooleanField(help_text="May get work (account and profile)")
    profile = ExpertProfileSerializer(allow_null=True)
    subfields = SubfieldEligibilitySerializer(many=True)
    publications = ExpertPublicationSerializer(many=True)
    training = ExpertTrainingSerializer(many=True)
    open_workload = serializers.IntegerField()
    page_url = serializers.CharField()
