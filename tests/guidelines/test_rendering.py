"""Issue 44: guidelines are rendered from Markdown (markdown-it-py), sanitised (nh3), with their
math left as `$…$` for the page's KaTeX, not shown as raw Markdown and LaTeX."""

from __future__ import annotations

import pytest
from django.urls import reverse

from guidelines import services
from guidelines.rendering import render_markdown
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db

BODY = (
    "Write **one** claim per pair.\n\n"
    "- read the table\n- check $x^2 + y_1 * z_2$ against it\n\n"
    "<script>alert('x')</script>\n\n"
    "[bad](javascript:alert(1)) and \\(a_1\\)"
)


def test_markdown_renders_with_math_kept_and_no_script():
    html = render_markdown(BODY)
    assert "<strong>one</strong>" in html
    assert "<ul>" in html and "<li>read the table</li>" in html
    assert "$x^2 + y_1 * z_2$" in html  # untouched by emphasis: KaTeX reads it as written
    assert "\\(a_1\\)" in html
    assert "<script" not in html and 'href="javascript' not in html
    assert "&lt;script&gt;" in html  # shown as text, never run


def test_the_guidelines_page_shows_rendered_markdown_for_katex(client):
    boss = AdminFactory(username="boss")
    services.publish_guidelines(
        by=boss,
        sections=[{"key": "writing", "title": "Writing", "body": BODY}],
        note="first",
        based_on=services.current_version().number,
    )
    client.force_login(boss)
    page = client.get(reverse("guidelines:current")).content.decode()
    assert "<strong>one</strong>" in page and "<li>read the table</li>" in page
    assert "**one**" not in page
    assert "data-math" in page and "js/math.js" in page and "$x^2 + y_1 * z_2$" in page
    assert "<script>alert" not in page
