"""In a real browser: an admin publishes a new version of the guidelines; an expert on a task
page follows its Guidelines link to the version in force, and reads the old one, kept."""

from __future__ import annotations

import pytest

from annotation.models import WorkItem, WorkKind
from annotation.review import services as review
from guidelines import services as guidelines
from guidelines.models import GuidelineVersion
from guidelines.seed import first_sections
from tests.annotation.review_factories import annotate, crew, written_pair
from tests.browser.pages import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_publishes_version_two_and_an_expert_reads_it_from_the_task(new_page) -> None:
    people = crew("writer", "second", "third")
    # A transactional test may start from an emptied table: then version 1 as the migration.
    if not GuidelineVersion.objects.exists():
        guidelines.publish_guidelines(
            by=people["boss"], sections=first_sections(), note="v1", based_on=0
        )
    pair = written_pair(people["writer"], people["boss"])
    admin = new_page()
    sign_in(admin, "boss")
    admin.goto("/guidelines/")
    assert admin.locator("#guideline-version").inner_text() == "version 1"
    admin.click("#edit-guidelines")
    admin.fill("textarea[name=body-0]", "One number from one table or chart, read exactly.")
    admin.fill("input[name=note]", "direct: sharper")
    with admin.expect_navigation():
        admin.click("#publish")
    assert admin.locator("#guideline-version").inner_text() == "version 2"
    assert "read exactly" in admin.locator("#subset-direct").inner_text()
    assert GuidelineVersion.objects.count() == 2

    expert = new_page()
    sign_in(expert, "second")
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    expert.goto(f"/review/annotate/{item.key}/")
    link = expert.locator("#task-aids #guidelines-link")
    assert link.is_visible()
    expert.goto(link.get_attribute("href"))
    assert expert.locator("#guideline-version").inner_text() == "version 2"
    assert "read exactly" in expert.locator("#subset-direct").inner_text()
    assert "Validation criterion 5" in expert.content()
    expert.goto("/guidelines/versions/")
    with expert.expect_navigation():
        expert.click("text=version 1")
    assert expert.locator("#old-version").is_visible()
    assert "read exactly" not in expert.locator("#subset-direct").inner_text()
    assert expert.locator("#edit-guidelines").count() == 0  # experts do not edit
    # The curation page links them too, and what is submitted now is done under version 2.
    writer = new_page()
    sign_in(writer, "writer")
    writer.goto(f"/curate/{pair.paper.arxiv_id}v{pair.paper.version}/")
    assert writer.locator("#task-aids #guidelines-link").is_visible()
    write = pair.work_items.get(kind=WorkKind.WRITE)
    done = annotate(people["third"])
    assert WorkItem.objects.get(pk=done.pk).guideline.number == 2
    assert WorkItem.objects.get(pk=write.pk).guideline.number == 1
