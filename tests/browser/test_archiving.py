"""In a real browser (issue 20): an admin puts the demo away from the Papers page, finds it
gone from People, Statistics and Agreement (each saying how much is hidden), and brings it
back."""

from __future__ import annotations

import pytest

from annotation.models import ExpertProfile
from papers.models import Paper
from tests.annotation.factories import make_expert, make_paper
from tests.browser.pages import sign_in_to_workspace as sign_in
from tests.factories import AdminFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_archives_the_demo_and_brings_it_back(page):
    AdminFactory(username="boss")
    real = make_paper(title="A real paper")
    fake = [make_paper(title=f"Synthetic copy {n}") for n in range(3)]
    Paper.objects.filter(pk__in=[p.pk for p in fake]).update(synthetic=True)
    for n in range(2):
        user = make_expert(f"sim-cl-{n}")
        user.set_unusable_password()
        user.save()
    make_expert("alice")
    sign_in(page, "boss")

    page.goto("/papers/")
    assert "3 synthetic papers and 2 synthetic experts" in page.inner_text("#demo-archive")
    page.click("#archive-demo")
    assert "Nobody holds work" in page.inner_text("#strands")  # asked first, nothing stranded
    page.click("#archive-demo-confirmed")
    page.wait_for_selector("text=Archived 3 synthetic paper(s) and 2 synthetic expert(s)")
    assert page.locator("#paper-list tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.paper)"
    ) == [real.versioned_id]
    assert page.inner_text("#archived-note").startswith("3 archived papers hidden")

    page.goto("/manage/people/")
    users = page.locator("#people tbody tr[data-user]").evaluate_all(
        "rows => rows.map(r => r.dataset.user)"
    )
    assert "alice" in users and not any(u.startswith("sim-") for u in users)
    assert page.inner_text("#archived-note").startswith("2 archived accounts hidden")

    page.goto("/agreement/")
    assert "3 archived papers hidden" in page.inner_text("#archived-note")
    assert page.locator("h2", has_text="Per annotator pair").count() == 1
    assert page.locator("#plot-subset svg .tick").count() == 5  # a value axis, even when empty
    page.goto("/manage/people/")
    assert "counted up to 60 minutes" in page.inner_text("#time-definition")
    csv = page.request.get(page.get_attribute("#time-csv", "href"))
    assert csv.ok and csv.text().startswith("item,kind,paper,archived_paper,expert")

    page.goto("/manage/statistics/")
    assert "3 archived papers hidden" in page.inner_text("#archived-note")
    page.goto("/manage/releases/")
    assert "never enter a new split" in page.inner_text("#archived-note")

    # Per account: archive alice from People, then bring her back from the archived list.
    page.goto("/manage/people/")
    page.locator('tr[data-user="alice"] button[value=archive]').click()
    page.wait_for_selector("text=alice archived")
    assert page.locator('tr[data-user="alice"]').count() == 0
    page.goto("/manage/people/?show=archived")
    page.locator('tr[data-user="alice"] button[value=unarchive]').click()
    page.wait_for_selector("text=alice is shown again")
    assert ExpertProfile.objects.get(user__username="alice").archived_at is None

    page.goto("/papers/")
    page.click("#unarchive-demo")
    page.wait_for_selector("text=Un-archived 3 synthetic paper(s) and 2 synthetic expert(s)")
    assert page.locator("#paper-list tbody tr").count() == 4
    assert not Paper.objects.filter(archived_at__isnull=False).exists()
