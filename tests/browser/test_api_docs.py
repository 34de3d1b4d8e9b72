"""The API's documentation (/api/docs/, Swagger UI from drf-spectacular's sidecar files) runs
under the Content-Security-Policy: its style is a static file (templates/drf_spectacular/
swagger_ui.html, static/api/swagger.css), its script is served from this origin, and the page
shows the schema's operations with no violation recorded."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from tests.browser.pages import RECORDER

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_api_docs_render_the_operations_with_no_csp_violation(new_page):
    started = time.perf_counter()
    schema = Client().get("/api/schema/?format=json").json()
    page = new_page()
    page.add_init_script(RECORDER)
    console: list[str] = []
    page.on(
        "console",
        lambda m: console.append(m.text) if "Content Security Policy" in m.text else None,
    )
    response = page.goto("/api/docs/")
    assert response.status == 200
    assert "style-src 'self'" in response.headers["content-security-policy"]
    page.locator(".swagger-ui .info .title").filter(has_text=schema["info"]["title"]).wait_for()
    paths = sorted(schema["paths"])
    if paths:  # each path of the schema is an operation on the page
        page.locator(".opblock-summary-path").first.wait_for()
        shown = set(
            page.locator(".opblock-summary-path").evaluate_all(
                "nodes => nodes.map(n => n.dataset.path)"
            )
        )
        assert set(paths) <= shown, set(paths) - shown
    else:  # no route yet: Swagger UI says so, having read the schema
        page.get_by_text("No operations defined in spec!").wait_for()
    page.wait_for_load_state("networkidle")
    assert page.locator("style").count() == 0  # the template's inline style is gone
    assert [*page.evaluate("window.__csp || []"), *console] == []
    assert time.perf_counter() - started < 15
