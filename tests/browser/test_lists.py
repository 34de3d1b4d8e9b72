"""In a real browser (issue 20): an admin of a project with a retired demo finds People and
Assignment short, searches and pages through them, and no page is wider than the window."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Publication
from tests.annotation.factories import make_expert, make_paper
from tests.browser.pages import sign_in_to_workspace as sign_in
from tests.factories import AdminFactory
from workspace.demo.archive import archive_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = "document.documentElement.scrollWidth <= window.innerWidth"


def test_people_and_assignment_stay_short_searchable_and_paged(page, new_page):
    admin = AdminFactory(username="boss")
    for n in range(36):  # the retired demo: synthetic experts, archived
        user = make_expert(f"sim-cl-{n}")
        user.set_unusable_password()
        user.save()
    archive_demo(by=admin)
    for n in range(55):
        make_expert(f"person{n:02d}")
    make_expert("resting", active=False)
    for n in range(3):
        make_paper(title=f"Paper {n}")
    sign_in(page, "boss")

    page.goto("/manage/people/")
    assert page.locator("#people tbody tr").count() == 50
    assert page.locator("#archived-note").inner_text().startswith("36 archived accounts hidden")
    assert page.evaluate(WIDTH)
    page.click("a[rel=next]")
    page.wait_for_url("**page=2")
    assert page.locator("#people tbody tr").count() == 6  # 55 people and the admin
    page.fill("#people-filters input[name=q]", "person07")
    page.press("#people-filters input[name=q]", "Enter")
    page.wait_for_url("**q=person07**")
    assert page.locator("#people tbody tr").all_inner_texts()[0].startswith("person07")
    assert page.locator("#people tbody tr").count() == 1
    page.select_option("#people-filters select[name=show]", "inactive")
    page.fill("#people-filters input[name=q]", "")
    page.click("#people-filters button[type=submit]")
    page.wait_for_url("**show=inactive**")
    assert page.locator("#people tbody tr[data-user]").evaluate_all(
        "rows => rows.map(r => r.dataset.user)"
    ) == ["resting"]

    page.goto("/manage/assignments/?subfield=cs.CL")
    offered = page.locator("#id_expert option").all_inner_texts()[1:]
    assert len(offered) == 55 and not any(o.startswith(("sim-", "resting")) for o in offered)
    assert page.locator("#expert-overview tbody tr").count() == 55
    assert "37 inactive or archived hidden" in page.locator("#experts-shown").inner_text()
    assert page.evaluate(WIDTH)
    overview = page.locator("#expert-overview tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.expert)"
    )
    assert not any(name.startswith("sim-") for name in overview)  # the retired demo is gone
    page.click("#show-all-experts")
    page.wait_for_url("**experts=all**")
    assert page.locator("#expert-overview tbody tr").count() == 55 + 37

    # Papers: searched; a long publication title typed in full is stored in full.
    page.goto("/papers/")
    page.fill("#paper-filters input[name=q]", "Paper 1")
    page.press("#paper-filters input[name=q]", "Enter")
    page.wait_for_url("**q=Paper+1**")
    assert page.locator("#paper-list tbody tr").count() == 1
    person = get_user_model().objects.get(username="person00")
    page.goto(f"/manage/people/{person.pk}/")
    title = "On " + "very " * 120 + "long titles"  # 617 characters
    page.fill("#publication-form input[name=title]", title)
    page.fill("#publication-form input[name=venue]", "ACL")
    page.fill("#publication-form input[name=year]", "2024")
    page.select_option(
        "#publication-form select[name=subfield]", label="Computation and Language (cs.CL)"
    )
    page.click("#add-publication")
    page.wait_for_selector("text=Publication recorded.")
    assert Publication.objects.filter(expert__user=person, title=title).exists()

    # An annotator with nothing assigned is told what to do as an annotator, not a command.
    annotator = new_page()
    sign_in(annotator, "person01")
    annotator.goto("/papers/")
    text = annotator.inner_text("#no-papers")
    assert text.startswith("No papers are assigned to you yet") and "manage.py" not in text
