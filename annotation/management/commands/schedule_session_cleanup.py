"""Queue the daily clearing of expired sessions on RQ (with REDIS_URL; the worker runs
`--with-scheduler`). Without Redis, run Django's `clearsessions` from cron instead."""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand

from annotation.sessions import CLEANUP_JOB_ID, schedule_cleanup


class Command(BaseCommand):
    help = "Queue the daily clearing of expired sessions on RQ (REDIS_URL); else say to use cron."

    def handle(self, *args, **options) -> None:
        if schedule_cleanup(timedelta(minutes=1)):
            self.stdout.write(
                f"Expired sessions are cleared in a minute, then daily (RQ job {CLEANUP_JOB_ID}, "
                "run by a worker started with --with-scheduler)."
            )
        else:
            self.stdout.write(
                "No REDIS_URL: nothing queued. Run `python manage.py clearsessions` from cron, "
                "daily (docs/deploying.md)."
            )
