"""python manage.py reconcile_jobs : mark jobs whose worker is gone as failed."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from jobs.dispatch import reconcile_jobs


class Command(BaseCommand):
    help = "Mark as failed the queued/running jobs whose worker stopped (run it from cron)."

    def handle(self, *args, **options) -> None:
        ended = reconcile_jobs()
        for job in ended:
            self.stdout.write(f"{job}: {job.error}")
        self.stdout.write(f"{len(ended)} job(s) marked failed")
