"""One staff check and one 403 page (`papers.access`): a crawl page and an annotation page refuse
a signed-in non-staff person alike, with the same page; a page's script gets JSON."""

from __future__ import annotations

import pytest
from django.urls import reverse

from papers.access import STAFF_ONLY
from tests.factories import AdminFactory, UserFactory

pytestmark = [pytest.mark.django_db]

STAFF_PAGES = ["crawl:list", "annotation:agreement", "validation:overview"]


@pytest.mark.parametrize("name", STAFF_PAGES)
def test_non_staff_get_the_one_403_page(client, name):
    client.force_login(UserFactory())
    response = client.get(reverse(name))
    page = response.content.decode()
    assert response.status_code == 403
    assert "Not allowed" in page and STAFF_ONLY in page and "Back to your workspace" in page


@pytest.mark.parametrize("name", STAFF_PAGES)
def test_anonymous_go_to_sign_in(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_script_gets_the_refusal_as_json(client):
    client.force_login(UserFactory())
    response = client.get(reverse("crawl:list"), headers={"HX-Request": "true"})
    assert response.status_code == 403
    assert response.json() == {"error": STAFF_ONLY, "reason": "forbidden", "message": STAFF_ONLY}


def test_staff_pass(client):
    client.force_login(AdminFactory())
    assert client.get(reverse("crawl:list")).status_code == 200
