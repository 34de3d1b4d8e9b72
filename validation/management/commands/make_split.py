"""`make_split`: draw and freeze a validation/test split over the validated claim pairs."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.errors import AnnotationError
from papers.licences import KNOWN_LICENCES, REDISTRIBUTABLE, allows_redistribution
from validation.split import services as split_services
from validation.split.rules import (
    DEFAULT_SEED,
    PARTS,
    SCIVER_PAPERS,
    SPLIT_NAME_RULE,
    SplitError,
    check_licence_codes,
    check_split_name,
)


class Command(BaseCommand):
    help = (
        "Freeze a random split under a new name: paper-disjoint parts, whole-pair quotas spread "
        "evenly over the subsets, pairs kept together."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--validation", type=int, required=True, help="claims (a pair is 2)")
        parser.add_argument("--test", type=int, required=True, help="claims (a pair is 2)")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
        parser.add_argument(
            "--licenses",
            "--licences",
            default="",
            help="keep only papers with these licences (default: those that allow redistribution "
            "with adaptations, "
            + ",".join(REDISTRIBUTABLE)
            + "; codes: "
            + ", ".join(sorted(KNOWN_LICENCES))
            + ")",
        )
        parser.add_argument(
            "--allow-shared-papers",
            action="store_true",
            help="let the parts share papers, only where no paper-disjoint draw exists (said in "
            "the manifest and the dataset card)",
        )
        parser.add_argument(
            "--name", default="", help=f"the split's version name (default v<n>): {SPLIT_NAME_RULE}"
        )

    def handle(self, *args, **options) -> None:
        try:
            name = check_split_name(options["name"]) if options["name"] else None
            licences = check_licence_codes(options["licenses"].split(","), KNOWN_LICENCES)
            split = split_services.freeze_split(
                validation=options["validation"],
                test=options["test"],
                seed=options["seed"],
                licences=licences,
                name=name,
                allow_shared_papers=options["allow_shared_papers"],
            )
        except (SplitError, AnnotationError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"split {split.name} frozen (seed {split.seed})")
        how = (
            "by default: they allow redistribution with adaptations"
            if split.licences_by_default
            else "as asked"
        )
        self.stdout.write(f"  licences: {', '.join(split.licences)} ({how})")
        for code in split.licences:
            if not allows_redistribution(code):
                self.stdout.write(
                    f"  warning: {code} does not allow redistribution with adaptations; its "
                    "papers are in this split because you named it"
                )
        if split.left_out:
            shown = ", ".join(f"{code} {n}" for code, n in split.left_out.items())
            self.stdout.write(f"  left out by the licence filter: pairs {shown}")
        for part, counts in split.counts.items():
            shown = ", ".join(f"{subset} {n}" for subset, n in counts.items())
            papers = split.papers.get(part, 0)
            sciver = dict(zip(PARTS, SCIVER_PAPERS, strict=True))[part]
            self.stdout.write(
                f"  {part}: {sum(counts.values())} claims ({shown}) from {papers} papers "
                f"(SciVer: {sciver})"
            )
        if split.shared_papers_allowed:
            self.stdout.write(
                "  warning: no paper-disjoint draw exists for these sizes and seed: the parts "
                "share papers (--allow-shared-papers; said in the manifest and the card)"
            )
        elif options["allow_shared_papers"]:
            self.stdout.write(
                "  the parts share no paper: a paper-disjoint draw existed, so "
                "--allow-shared-papers was not needed"
            )
