"""python manage.py assign_papers --subfield cs.CL --per-expert 10 : spread waiting papers."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.assignment import selectors as assignment_selectors
from annotation.assignment import services as assignment_services
from annotation.assignment.spreading import spread_balanced
from annotation.errors import AnnotationError
from annotation.experts import selectors as expert_selectors
from annotation.models import Subfield


class Command(BaseCommand):
    help = (
        "Assign the parsed, unassigned papers of a subfield (accepted papers first) to its "
        "eligible experts, balanced by each expert's open workload."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--subfield", required=True, help="Subfield code, e.g. cs.CL")
        parser.add_argument(
            "--per-expert", type=int, default=None, help="At most this many new papers each"
        )
        parser.add_argument(
            "--experts", default="", help="Comma-separated usernames (default: all eligible)"
        )
        parser.add_argument("--limit", type=int, default=None, help="At most this many papers")
        parser.add_argument("--by", default="", help="Username recorded as the assigner")
        parser.add_argument("--dry-run", action="store_true", help="Show, change nothing")

    def handle(self, *args, **options) -> None:
        code = options["subfield"]
        if not Subfield.objects.filter(code=code).exists():
            known = ", ".join(Subfield.objects.values_list("code", flat=True))
            raise CommandError(f"No subfield {code!r}. Known: {known}")
        per_expert = options["per_expert"]
        if per_expert is not None and per_expert < 1:
            raise CommandError("--per-expert must be at least 1")
        users = get_user_model().objects
        by = None
        if options["by"]:
            by = users.filter(username=options["by"]).first()
            if by is None:
                raise CommandError(f"No user {options['by']!r}")

        eligible = list(expert_selectors.eligible_experts(code))
        wanted = [u.strip() for u in options["experts"].split(",") if u.strip()]
        if wanted:
            by_name = {u.username: u for u in eligible}
            missing = [name for name in wanted if name not in by_name]
            if missing:
                raise CommandError(
                    f"Not eligible for {code} (or unknown): {', '.join(missing)}. "
                    f"Eligible: {', '.join(by_name) or 'nobody'}"
                )
            eligible = [by_name[name] for name in wanted]
        if not eligible:
            raise CommandError(
                f"Nobody is eligible for {code}: record subfields, publications and training "
                "on the People page."
            )

        waiting = assignment_selectors.papers_for_assignment(subfield=code, state="unassigned")
        papers = list(waiting[: options["limit"]] if options["limit"] else waiting)
        if not papers:
            self.stdout.write(f"No {code} papers are waiting for an expert.")
            return
        if options["dry_run"]:
            load = assignment_selectors.open_workload([u.pk for u in eligible])
            spread = spread_balanced(
                [p.pk for p in papers],
                {p.pk: [u.pk for u in eligible] for p in papers},
                {u.pk: load.get(u.pk, 0) for u in eligible},
                per_expert=per_expert,
            )
            names = {u.pk: u.username for u in eligible}
            for pk, n in sorted(spread.count_by_expert().items(), key=lambda kv: names[kv[0]]):
                self.stdout.write(f"  {names[pk]:<16} would get {n}")
            self.stdout.write(f"dry run: {len(spread.left_over)} paper(s) would stay waiting")
            return
        try:
            result = assignment_services.assign_papers(
                papers=papers,
                experts=eligible,
                assigned_by=by,
                per_expert=per_expert,
                leave_over=True,
                note="assign_papers command",
            )
        except AnnotationError as exc:
            raise CommandError(exc.message) from exc
        load = assignment_selectors.open_workload([u.pk for u in eligible])
        for user in eligible:
            got = result.count_by_expert().get(user.username, 0)
            self.stdout.write(f"  {user.username:<16} +{got:<4} now {load.get(user.pk, 0)} open")
        self.stdout.write(
            self.style.SUCCESS(f"Assigned {len(result.created)} {code} paper(s)")
            + (f"; {len(result.left_over)} still waiting" if result.left_over else "")
        )
