"""Re-rendering a flagged element is a background job, as the paper renders are: the flag page
answers at once, says which job started, follows its progress (htmx asks the page until the job
ends, then reloads it), and shows how it ended; the job records the fix with the image it made.
Without Redis the job runs in a thread; a second start while one runs, and an element no render
can draw, are refused with why."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from annotation.models import WorkKind
from annotation.review import services as review
from guidelines import services
from guidelines.models import FixAction, FlagFix
from jobs.dispatch import run_job
from jobs.models import Job
from papers.models import Element, Paper
from tests.annotation.review_factories import crew, written_pair
from tests.guidelines.flags import _shown

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def flagged(settings):
    settings.USE_CHROMIUM = False  # re-rendering draws with Pillow: no browser needed
    settings.REDIS_URL = ""  # jobs run in-process (a thread from a page)
    people = crew("writer", "second")
    written_pair(people["writer"], people["boss"])
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    table = next(e for e in _shown(item) if e.kind == "table")
    Paper.objects.filter(pk=table.paper_id).update(media_dir="papers/flagged-v1")
    flag = services.raise_flag(
        user=people["second"],
        kind="extraction",
        note="cells shifted",
        item=item,
        element_id=table.pk,
    )
    return people, item, table, flag


def test_the_flag_page_starts_the_render_and_follows_the_job(flagged, client) -> None:
    people, _, table, flag = flagged
    url = reverse("guidelines:flag", args=[flag.pk])
    client.force_login(people["boss"])
    image_before = table.image.name
    response = client.post(url, {"action": "rerender"}, follow=True)
    job = Job.objects.get()
    page = response.content.decode()
    # The answer came before any drawing: a queued job, nothing rendered, nothing recorded.
    assert (job.kind, job.status, job.queue) == ("rerender_flagged_element", "queued", "render")
    assert job.params == {"flag_id": flag.pk, "by_id": people["boss"].pk}
    table.refresh_from_db()
    assert table.image.name == image_before and not FlagFix.objects.exists()
    assert f"Re-render started in the background (job {job.pk})" in page
    assert 'id="rerender-status"' in page and f'hx-get="{url}"' in page
    assert reverse("admin:jobs_job_change", args=[job.pk]) in page
    assert 'id="rerender" disabled' in page
    # One at a time: a second start is refused, saying which job runs.
    again = client.post(url, {"action": "rerender"})
    assert again.status_code == 400
    assert f"already queued (job {job.pk})" in again.content.decode()
    assert Job.objects.count() == 1
    polled = client.get(url, **HX)
    assert 'id="rerender-state">queued' in polled.content.decode()
    assert "<html" not in polled.content.decode() and "HX-Refresh" not in polled

    run_job(job.pk)  # what the thread (or the RQ worker) runs
    job.refresh_from_db()
    assert job.status == "finished", job.error
    fix = FlagFix.objects.get()
    table.refresh_from_db()
    assert fix.action == FixAction.RERENDERED and fix.by == people["boss"] and table.image.name
    assert fix.after == {
        "image": table.image.name,
        "renderer": "pillow",
        "problems": [],
        "job": job.pk,
    }
    assert job.result["fix_id"] == fix.pk
    ended = client.get(url, **HX)
    assert ended["HX-Refresh"] == "true"  # the whole page again: the new image and the fix
    page = client.get(url).content.decode()
    assert 'id="rerender-done"' in page and "Re-rendered by pillow" in page
    assert "re-rendered the element" in page and "hx-get" not in page
    assert 'id="rerender" disabled' not in page


def test_a_failed_render_says_so_and_records_nothing(flagged, client, settings, tmp_path) -> None:
    people, _, _, flag = flagged
    url = reverse("guidelines:flag", args=[flag.pk])
    client.force_login(people["boss"])
    client.post(url, {"action": "rerender"})
    job = Job.objects.get()
    # A media folder that is a file: the render cannot write its image.
    settings.MEDIA_ROOT = tmp_path / "media-is-a-file"
    settings.MEDIA_ROOT.write_text("not a folder")
    run_job(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and not FlagFix.objects.exists()
    page = client.get(url).content.decode()
    assert 'id="rerender-error"' in page
    assert "The re-render failed: NotADirectoryError: [Errno 20] Not a directory" in page
    assert "No fix was recorded." in page
    assert client.post(url, {"action": "rerender"}).status_code == 302  # may be started again
    assert Job.objects.filter(status="queued").count() == 1


def test_what_no_render_can_draw_is_refused_with_why(flagged, client) -> None:
    people, item, table, _ = flagged
    client.force_login(people["boss"])
    paragraph = next(e for e in _shown(item) if e.kind == "paragraph")
    Element.objects.filter(pk=table.pk).update(is_image_table=True)
    for element, why in (
        (paragraph, "Only a table or a chart can be re-rendered."),
        (table, "This table is an image in the paper"),
    ):
        flag = services.raise_flag(
            user=people["second"], kind="extraction", note="odd", item=item, element_id=element.pk
        )
        response = client.post(reverse("guidelines:flag", args=[flag.pk]), {"action": "rerender"})
        assert response.status_code == 400 and why in response.content.decode()
    assert not Job.objects.exists()
    with pytest.raises(services.GuidelineError, match="Only admins"):
        services.start_rerender(flag=flag, by=people["second"])


@pytest.mark.django_db(transaction=True)
def test_without_redis_the_render_runs_in_a_thread_after_the_answer(flagged, client) -> None:
    people, _, table, flag = flagged
    client.force_login(people["boss"])
    response = client.post(reverse("guidelines:flag", args=[flag.pk]), {"action": "rerender"})
    assert response.status_code == 302
    job = Job.objects.get()
    deadline = time.monotonic() + 30
    while Job.objects.get(pk=job.pk).status in Job.ACTIVE and time.monotonic() < deadline:
        time.sleep(0.1)
    job.refresh_from_db()
    assert job.status == "finished", job.error
    table.refresh_from_db()
    assert FlagFix.objects.get().after["image"] == table.image.name != ""
