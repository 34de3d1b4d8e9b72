"""Who may see what: sign-in everywhere, paper context and admin for staff, media for users."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from papers.models import Element, Paper
from tests.factories import AdminFactory, UserFactory

CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"
pytestmark = pytest.mark.django_db


@pytest.fixture
def paper(settings) -> Paper:
    settings.USE_CHROMIUM = False
    folder = sorted(p.parent for p in CORPUS.glob("*/paper.html"))[0]
    call_command("import_arxiv_html", str(folder), "--images", "now", stdout=open("/dev/null", "w"))
    return Paper.objects.get()


def test_pages_require_sign_in(client, paper):
    for url in ("/", f"/papers/{paper.versioned_id}/"):
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith("/accounts/login/")


def test_media_requires_sign_in(client, paper):
    image = Element.objects.exclude(image="").first().image
    assert client.get(image.url).status_code == 302
    client.force_login(UserFactory())  # not assigned to this paper (tests/annotation: roles)
    assert client.get(image.url).status_code == 403
    client.force_login(AdminFactory())
    response = client.get(image.url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content)[:8] == b"\x89PNG\r\n\x1a\n"


def test_annotator_sees_the_list_but_not_unassigned_context_or_admin(client, paper):
    client.force_login(UserFactory())
    response = client.get("/papers/")  # only the papers assigned to them: none
    assert response.status_code == 200 and paper.arxiv_id not in response.content.decode()
    refused = client.get(f"/papers/{paper.versioned_id}/")
    assert refused.status_code == 403
    page = refused.content.decode()  # the site's page, with a way back, not bare text
    assert "not assigned to you" in page and "Back to your workspace" in page
    assert client.get("/admin/papers/element/").status_code == 302  # admin login page


def test_admin_sees_context_with_images(client, paper):
    client.force_login(AdminFactory())
    html = client.get(f"/papers/{paper.versioned_id}/").content.decode()
    for element in paper.elements.exclude(kind="paragraph"):
        assert f'id="{element.anchor}"' in html
        if element.image:
            assert element.image.url in html
    assert "<script" not in html.split("<main>")[1]  # sanitized tables carry no script


@pytest.mark.parametrize(
    "url",
    [
        "/admin/papers/paper/",
        "/admin/papers/section/",
        "/admin/papers/element/",
        "/admin/papers/element/?kind__exact=table",
        "/admin/jobs/job/",
    ],
)
def test_admin_pages_render(client, paper, url):
    client.force_login(AdminFactory())
    assert client.get(url).status_code == 200


def test_admin_change_pages_show_outline_screenshot_and_panels(client, paper):
    client.force_login(AdminFactory())
    html = client.get(f"/admin/papers/paper/{paper.pk}/change/").content.decode()
    for section in paper.sections.all():
        assert section.title in html or section.anchor in html
    table = paper.elements.filter(kind="table").exclude(image="").first()
    html = client.get(f"/admin/papers/element/{table.pk}/change/").content.decode()
    assert table.image.url in html and "<table" in html
    chart = paper.elements.filter(kind="chart").first()
    html = client.get(f"/admin/papers/element/{chart.pk}/change/").content.decode()
    for panel in chart.panels.exclude(image=""):
        assert panel.image.url in html
