"""What the release, evaluation and `me/` routes answer (and what their requests take, for the
schema only: input is read by the pages' own forms, `api.forms.read`)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.links import absolute
from evaluation.models import EvaluationRun, RecordOutcome
from evaluation.services import OUTCOME_COLUMNS
from jobs.models import Job
from validation.export import services as export_services
from validation.models import ReleaseExport, SplitVersion
from validation.templatetags.release_paths import release_path

# --- Request bodies (documentation only) -----------------------------------------------------


class NewSplit(serializers.Serializer):
    """The releases page's split form (validation.forms.SplitForm), as JSON."""

    validation = serializers.IntegerField(required=False, help_text="Validation claims")
    test = serializers.IntegerField(required=False, help_text="Test claims")
    seed = serializers.IntegerField(required=False)
    licenses = serializers.CharField(
        required=False, help_text="Licence codes, comma-separated (empty: the default filter)"
    )
    name = serializers.CharField(required=False, help_text="The split's name (empty: the next vN)")
    allow_shared_papers = serializers.BooleanField(required=False)


class NewExport(serializers.Serializer):
    """The releases page's export button's flags."""

    hide_test_labels = serializers.BooleanField(required=False)
    parquet = serializers.BooleanField(required=False)


class NewRun(serializers.Serializer):
    """The runs page's form (evaluation.views.RunForm), as JSON."""

    export = serializers.IntegerField(help_text="A finished export's id")
    part = serializers.ChoiceField(choices=["validation", "test"])
    endpoint = serializers.CharField(help_text="An endpoint's name (GET evaluation/endpoints/)")
    model = serializers.CharField()
    confirm_remote = serializers.BooleanField(
        required=False,
        help_text="Send hidden test claims to an endpoint that is not this machine "
        "(contaminates the benchmark): refused without it",
    )
    context = serializers.CharField(required=False, help_text='"full" or a retriever\'s name')
    k = serializers.IntegerField(required=False, help_text="The retriever's top k")


# --- Splits and exports ----------------------------------------------------------------------


class SplitSerializer(serializers.ModelSerializer):
    """A frozen split: its sizes, papers and claims per part, and its licence filter."""

    sizes = serializers.SerializerMethodField()
    created = serializers.DateTimeField(source="created_at")
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    url = serializers.SerializerMethodField()
    exports_url = serializers.SerializerMethodField(
        help_text="POST here to export the split (hide_test_labels, parquet)"
    )

    class Meta:
        model = SplitVersion
        fields = (
            "id",
            "name",
            "seed",
            "sizes",
            "papers",
            "counts",
            "licences",
            "licences_by_default",
            "left_out",
            "shared_papers_allowed",
            "created",
            "created_by",
            "url",
            "exports_url",
        )

    def get_sizes(self, split: SplitVersion) -> dict[str, int]:
        return {"validation": split.validation_size, "test": split.test_size}

    def get_url(self, split: SplitVersion) -> str:
        return absolute(self.context, "api:split", split.pk)

    def get_exports_url(self, split: SplitVersion) -> str:
        return absolute(self.context, "api:split_exports", split.pk)


class JobSerializer(serializers.ModelSerializer):
    """A background job's state: status, progress and how it ended."""

    percent = serializers.IntegerField(read_only=True)

    class Meta:
        model = Job
        fields = (
            "id",
            "status",
            "progress_done",
            "progress_total",
            "percent",
            "message",
            "error",
            "started_at",
            "finished_at",
        )


class ManifestSummary(serializers.Serializer):
    """What a finished export's manifest says, without its list of files."""

    name = serializers.CharField()
    format_version = serializers.CharField(allow_null=True)
    hide_test_labels = serializers.BooleanField()
    counts = serializers.DictField()
    papers = serializers.IntegerField(allow_null=True)
    synthetic_papers = serializers.IntegerField(allow_null=True)
    licences = serializers.DictField()
    files = serializers.IntegerField()
    hidden_labels_records = serializers.IntegerField(allow_null=True)


def manifest_summary(manifest: dict[str, Any]) -> dict[str, Any] | None:
    if not manifest:
        return None
    hidden = manifest.get("hidden_labels") or {}
    return {
        "name": manifest.get("name", ""),
        "format_version": manifest.get("format_version"),
        "hide_test_labels": bool(manifest.get("hide_test_labels")),
        "counts": manifest.get("counts") or {},
        "papers": manifest.get("papers"),
        "synthetic_papers": manifest.get("synthetic_papers"),
        "licences": manifest.get("licences") or {},
        "files": len(manifest.get("files") or {}),
        "hidden_labels_records": hidden.get("records"),
    }


class ExportSerializer(serializers.ModelSerializer):
    """An export of a split: its job's state, its manifest once written, and where to fetch
    the archive (and the hidden test labels, when it hid them)."""

    split = serializers.SerializerMethodField()
    job = JobSerializer(allow_null=True)
    status = serializers.SerializerMethodField()
    finished = serializers.SerializerMethodField(
        help_text="The export has stopped: finished, failed or cancelled (see status)"
    )
    manifest = serializers.SerializerMethodField()
    out = serializers.SerializerMethodField(
        help_text="The release's folder, relative to the server's release folder"
    )
    url = serializers.SerializerMethodField()
    download_url = serializers.SerializerMethodField()
    labels_url = serializers.SerializerMethodField()
    check_url = serializers.SerializerMethodField()
    created = serializers.DateTimeField(source="created_at")

    class Meta:
        model = ReleaseExport
        fields = (
            "id",
            "split",
            "out",
            "hide_test_labels",
            "parquet",
            "status",
            "finished",
            "job",
            "manifest",
            "url",
            "download_url",
            "labels_url",
            "check_url",
            "created",
        )

    def get_out(self, export: ReleaseExport) -> str:
        return release_path(export.out)

    def get_split(self, export: ReleaseExport) -> dict[str, Any]:
        return {"id": export.split_id, "name": export.split.name}

    def get_status(self, export: ReleaseExport) -> str:
        return export.job.status if export.job else Job.Status.QUEUED

    def get_finished(self, export: ReleaseExport) -> bool:
        return self.get_status(export) in (
            Job.Status.FINISHED,
            Job.Status.FAILED,
            Job.Status.CANCELLED,
        )

    def get_manifest(self, export: ReleaseExport) -> dict[str, Any] | None:
        return manifest_summary(export.manifest or {})

    def get_url(self, export: ReleaseExport) -> str:
        return absolute(self.context, "api:export", export.pk)

    def get_download_url(self, export: ReleaseExport) -> str | None:
        if export_services.archive_file(export) is None:
            return None
        return absolute(self.context, "api:export_download", export.pk)

    def get_labels_url(self, export: ReleaseExport) -> str | None:
        path = export_services.labels_file(export)
        if path is None or not path.is_file():
            return None
        return absolute(self.context, "api:export_labels", export.pk)

    def get_check_url(self, export: ReleaseExport) -> str:
        return absolute(self.context, "api:export_check", export.pk)


class CheckSerializer(serializers.Serializer):
    """check_release's verdict on an export's folder."""

    ok = serializers.BooleanField()
    problems = serializers.ListField(child=serializers.CharField())
    warnings = serializers.ListField(child=serializers.CharField())


# --- Evaluation ------------------------------------------------------------------------------


class EndpointSerializer(serializers.Serializer):
    """A model endpoint a run may use (settings' EVALUATION_ENDPOINTS), as the runs page
    offers it; `local` says whether requests stay on this machine."""

    name = serializers.CharField()
    url = serializers.CharField()
    key_variable = serializers.CharField(allow_blank=True)
    local = serializers.BooleanField()


class RunSerializer(serializers.ModelSerializer):
    """A model run: how it was asked, its job's state, and its scores once scored."""

    export = serializers.PrimaryKeyRelatedField(read_only=True)
    release = serializers.CharField(source="release_name")
    endpoint = serializers.CharField(source="endpoint_name")
    k = serializers.IntegerField(source="top_k", allow_null=True)
    context_label = serializers.CharField()
    status = serializers.SerializerMethodField()
    job = JobSerializer(allow_null=True)
    scored = serializers.BooleanField()
    scores = serializers.SerializerMethodField()
    hidden_confirmed_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    created = serializers.DateTimeField(source="created_at")
    url = serializers.SerializerMethodField()
    outcomes_url = serializers.SerializerMethodField()

    class Meta:
        model = EvaluationRun
        fields = (
            "id",
            "export",
            "release",
            "part",
            "source",
            "model",
            "endpoint",
            "prompt_version",
            "settings",
            "context",
            "retriever",
            "k",
            "context_label",
            "status",
            "job",
            "records",
            "scored",
            "scores",
            "hidden_confirmed_by",
            "hidden_confirmed_at",
            "created",
            "url",
            "outcomes_url",
        )

    def get_status(self, run: EvaluationRun) -> str:
        """The job's status; a run scored from a file has no job: "scored"."""
        return run.job.status if run.job else "scored"

    def get_scores(self, run: EvaluationRun) -> dict[str, Any] | None:
        """The summary's breakdowns (accuracy with its interval, per subset, evidence count,
        subfield …), the records and responses counted; None until scored."""
        return run.summary if run.scored else None

    def get_url(self, run: EvaluationRun) -> str:
        return absolute(self.context, "api:run", run.pk)

    def get_outcomes_url(self, run: EvaluationRun) -> str:
        return absolute(self.context, "api:run_outcomes", run.pk)


class OutcomeSerializer(serializers.ModelSerializer):
    """One record's outcome, as the run's outcomes download lists it."""

    class Meta:
        model = RecordOutcome
        fields = OUTCOME_COLUMNS


# --- The signed-in person's own ------------------------------------------------------------


class PapersCount(serializers.Serializer):
    assigned = serializers.IntegerField()
    to_curate = serializers.IntegerField()
    curated = serializers.IntegerField()
    ready_for_claims = serializers.IntegerField()


class StageCountSerializer(serializers.Serializer):
    """One stage of one's own work: items one may take (`more`: past the workspace's cap),
    whether one holds one, how many one finished."""

    kind = serializers.CharField()
    title = serializers.CharField()
    waiting = serializers.IntegerField()
    more = serializers.BooleanField()
    held = serializers.BooleanField()
    done = serializers.IntegerField()


class MeSerializer(serializers.Serializer):
    """The signed-in person's workspace counts (the workspace home's)."""

    username = serializers.CharField()
    is_admin = serializers.BooleanField()
    papers = PapersCount()
    pairs_written = serializers.IntegerField()
    stages = StageCountSerializer(many=True)


class MyItemSerializer(serializers.Serializer):
    """A work item one finished: what and when, on which paper (nothing of its answer)."""

    kind = serializers.CharField()
    key = serializers.CharField()
    finished = serializers.DateTimeField(source="done_at")
    paper = serializers.CharField(source="paper.arxiv_id")
    paper_version = serializers.IntegerField(source="paper.version")
