"""Issue 44: under `make run` (DEBUG on) an unknown address or key gets the project's 404 page,
not Django's list of every URL; a 400 is one line on the console; a favicon is answered."""

from __future__ import annotations

import logging

import pytest
from django.contrib.staticfiles import finders

from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("address", ["/no-such-page/", "/flags/987654/"])
def test_under_debug_a_404_is_our_page_without_the_url_list(client, settings, address):
    settings.DEBUG = True
    client.force_login(AdminFactory(username="boss"))
    response = client.get(address)
    body = response.content.decode()
    assert response.status_code == 404
    assert 'id="not-found"' in body and "SciVer Studio" in body
    assert "URLconf" not in body and "healthz" not in body and "DEBUG = True" not in body


def test_without_debug_the_404_is_our_page_too(client, settings):
    settings.DEBUG = False
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and 'id="not-found"' in response.content.decode()


def test_a_400_is_one_line_with_its_path_and_message(client, caplog):
    console = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    client.force_login(AdminFactory(username="boss"))
    with caplog.at_level(logging.WARNING):
        # caplog's handler after the console's: the record as the console printed it.
        for one in console.filters:
            caplog.handler.addFilter(one)
        response = client.get("/flags/?status=bogus")
    assert response.status_code == 400
    records = [r for r in caplog.records if getattr(r, "status_code", None) == 400]
    assert len(records) == 1
    line = caplog.handler.format(records[0])
    assert "\n" not in line and "Traceback" not in line
    assert "/flags/" in line and "status: one of" in line


def test_a_favicon_is_linked_and_answered(client):
    assert finders.find("favicon.svg")
    page = client.get("/accounts/login/").content.decode()
    assert 'rel="icon"' in page and "favicon.svg" in page
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
