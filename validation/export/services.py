"""Exporting a frozen split as a release folder, from a command or as a background job."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from annotation import access
from annotation.inputs import FlagField, Form
from jobs import dispatch
from validation.export import release_out
from validation.export.build import build_release
from validation.models import (
    ReleaseExport,
    SplitVersion,
)
from validation.release import ReleaseError, Staging
from validation.release.hub import missing_pyarrow


class ExportForm(Form):
    """What the releases page's export button sends (two checkboxes; JSON booleans from the
    API), read the same way for both: its values are `start_export`'s flags."""

    hide_test_labels = FlagField()
    parquet = FlagField()


def export_release(
    *,
    split: SplitVersion,
    out: str,
    hide_test_labels: bool = False,
    overwrite: bool = False,
    parquet: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict:
    """Write the release of a frozen split to `out` (atomically) and return its manifest.
    With `parquet`, also the Parquet files with the images embedded, which the dataset card
    then has `datasets` read (pyarrow: refused up front without it)."""
    if parquet and (missing := missing_pyarrow()):
        raise ReleaseError(missing)
    # The folder is staged first, so that each image is copied while the records are built.
    with Staging(Path(out), overwrite=overwrite) as staging:
        release = build_release(
            split, hide_test_labels=hide_test_labels, progress=progress, staging=staging
        )
        if parquet:
            release = dataclasses.replace(release, parquet=True)
        manifest = staging.commit(release)
    if progress:
        progress(1, 1, f"wrote {len(manifest['files'])} files")
    return manifest


def release_salt() -> str:
    return getattr(settings, "RELEASE_SALT", "") or settings.SECRET_KEY


def start_export(
    *, split: SplitVersion, by: User, hide_test_labels: bool = False, parquet: bool = False
) -> ReleaseExport:
    """Record an export and start its background job (RQ on the default queue, else a thread).
    Parquet without pyarrow is refused here, before any job starts (ReleaseError)."""

    access.require_staff(by)
    if parquet and (missing := missing_pyarrow()):
        raise ReleaseError(missing)

    out = release_out(settings.RELEASE_DIR, split.name, timezone.now(), hidden=hide_test_labels)
    export = ReleaseExport.objects.create(
        split=split,
        out=str(out),
        hide_test_labels=hide_test_labels,
        parquet=parquet,
        created_by=by,
    )
    job = dispatch.start_job(
        kind="export_release",
        function="validation.jobs.export_release_job",
        params={"export_id": export.pk},
        queue="default",
        timeout=6 * 3600,
        mode="thread",
    )
    ReleaseExport.objects.filter(pk=export.pk).update(job=job)
    export.job = job
    return export


def archive_file(export: ReleaseExport) -> Path | None:
    """The export's zip, when it has been written and is still there (the download's file)."""
    path = Path(export.archive) if export.archive else None
    return path if path is not None and path.is_file() else None


def labels_file(export: ReleaseExport) -> Path | None:
    """Where the export's hidden test labels are written (beside its folder, never in the
    zip), when its manifest says it hid them; None otherwise. The file may be gone since."""
    hidden = (export.manifest or {}).get("hidden_labels") or {}
    return (Path(export.out) / hidden["path"]).resolve() if hidden.get("path") else None


def run_export(*, export_id: int, progress: Callable[[int, int, str], None] | None = None) -> dict:
    """Write an export's folder and a zip of it for download (what the job runs)."""
    export = ReleaseExport.objects.select_related("split").get(pk=export_id)
    manifest = export_release(
        split=export.split,
        out=export.out,
        hide_test_labels=export.hide_test_labels,
        parquet=export.parquet,
        progress=progress,
    )
    out = Path(export.out)
    archive = shutil.make_archive(
        str(out.parent / out.name), "zip", root_dir=out.parent, base_dir=out.name
    )
    ReleaseExport.objects.filter(pk=export.pk).update(manifest=manifest, archive=archive)
    return {"out": export.out, "archive": archive, "files": len(manifest["files"])}
