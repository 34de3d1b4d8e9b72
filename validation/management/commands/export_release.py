"""`export_release`: write a frozen split as a release folder (SciVer layout and ours)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from validation.export import services as export_services
from validation.export.refusals import with_command_hint
from validation.models import SplitVersion
from validation.release import ReleaseError, check_out
from validation.release.formats import SCIVER_FOLDER
from validation.release.hub import HUB_INSTALL, missing_pyarrow
from validation.release.writer import labels_path


class Command(BaseCommand):
    help = (
        "Export a frozen split: valset/testset.json, papers/, images/, data/, the dataset card "
        "(README.md, for the Hugging Face Hub), croissant.json, manifest.json."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--split", required=True)
        parser.add_argument(
            "--out", required=True, help=f"the release folder, named {SCIVER_FOLDER} (DIR/SciVer)"
        )
        parser.add_argument(
            "--hide-test-labels",
            action="store_true",
            help="test records without labels nor what ties a claim to its pair; the labels go "
            "to DIR/SciVer.labels.json, beside the release folder",
        )
        parser.add_argument(
            "--overwrite", action="store_true", help="replace a previous release in --out"
        )
        parser.add_argument(
            "--parquet",
            action="store_true",
            help="also data/parquet/{validation,test}.parquet with the tables and charts "
            f"embedded as images, which the dataset card has `datasets` read (needs pyarrow: "
            f"{HUB_INSTALL})",
        )

    def handle(self, *args, **options) -> None:
        if options["parquet"] and (missing := missing_pyarrow()):
            raise CommandError(missing)  # before anything is read or written
        split = SplitVersion.objects.filter(name=options["split"]).first()
        if split is None:
            names = ", ".join(SplitVersion.objects.values_list("name", flat=True)) or "none yet"
            raise CommandError(f"There is no split {options['split']!r} (splits: {names}).")
        out = Path(options["out"])
        try:
            # Before any work or progress line: a destination we may not write is said at once.
            check_out(out, overwrite=options["overwrite"], flag="--overwrite")
        except ReleaseError as exc:
            raise CommandError(str(exc)) from exc

        def progress(done: int, total: int, message: str) -> None:
            self.stderr.write(f"\r{message}: {done}/{total}", ending="")

        try:
            manifest = export_services.export_release(
                split=split,
                out=options["out"],
                hide_test_labels=options["hide_test_labels"],
                overwrite=options["overwrite"],
                parquet=options["parquet"],
                progress=progress,
            )
        except ReleaseError as exc:
            # The pages offer the split form where a new split is the fix; here, its command.
            raise CommandError(with_command_hint(str(exc))) from exc
        self.stderr.write("")
        counts = manifest["counts"]
        self.stdout.write(
            f"release {split.name} written to {options['out']}: {len(manifest['files'])} files, "
            f"{manifest['papers']} papers, "
            + ", ".join(f"{part} {c['claims']} claims" for part, c in counts.items())
        )
        if options["parquet"]:
            self.stdout.write(
                "Parquet files with the images embedded: data/parquet/validation.parquet and "
                "data/parquet/test.parquet (the dataset card's configuration reads them)"
            )
        hidden = manifest.get("hidden_labels")
        if hidden:
            self.stdout.write(
                f"hidden test labels ({hidden['records']} records) written to "
                f"{labels_path(out)}: the organisers' answers, outside the release folder; keep "
                "it private and never publish it (check_release does not need it)"
            )
        if out.resolve().name != SCIVER_FOLDER:
            self.stdout.write(
                self.style.WARNING(
                    f"warning: the folder is named {out.resolve().name!r}, not {SCIVER_FOLDER!r}: "
                    f"the SciVer records' paper_path and image paths (./{SCIVER_FOLDER}/…) resolve "
                    f"only from the parent of a folder named {SCIVER_FOLDER}; rename it (or export "
                    f"to {out.resolve().parent / SCIVER_FOLDER})"
                )
            )
        if manifest.get("synthetic_papers"):
            fake = sum(c.get("synthetic", 0) for c in counts.values())
            self.stdout.write(
                self.style.WARNING(
                    f"warning: {manifest['synthetic_papers']} synthetic paper(s) and {fake} synthetic "
                    "claim(s) (simulate_annotation's demo data): the README says so at the top; "
                    "do not publish this release"
                )
            )
