"""Background job functions of the guidelines app: thin wrappers that call services."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from guidelines import services
from guidelines.models import Flag
from jobs.dispatch import JobContext


def rerender_flagged_element(*, job: JobContext, flag_id: int, by_id: int) -> dict[str, object]:
    """Re-render a flagged element (started from its flag page) and record the fix."""
    flag = Flag.objects.select_related("element").get(pk=flag_id)
    by = get_user_model().objects.get(pk=by_id)
    fix = services.rerender_flagged_element(
        flag=flag,
        by=by,
        job_id=job.job.pk,
        progress=lambda done, total, message: job.progress(done, total, message),
    )
    return {"fix_id": fix.pk, "flag_id": flag_id, **fix.after}
