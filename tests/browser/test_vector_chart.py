"""In a real browser (issue 39): a chart whose graphic is a vector file (arXiv's 2026 pages,
`<object type="image/svg+xml">`) is shown drawn, as a PNG, on the writing page; without
Chromium to draw it, its inert SVG file is shown as an `<img>` (never inline), and it draws
under the policy the file is served with."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from papers.models import Element
from tests.browser.pages import open_whole_context, sample_claim_task, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OXIDE = Path(__file__).resolve().parents[1] / "papers" / "pages" / "oxide-boxes"


@pytest.mark.parametrize("drawn", [True, False], ids=["png", "svg-only"])
def test_a_vector_chart_is_shown_on_the_writing_page(
    page, settings, chromium_path, tmp_path, drawn
):
    settings.USE_CHROMIUM, settings.CHROMIUM_PATH = drawn, chromium_path
    folder = tmp_path / "oxide"
    shutil.copytree(OXIDE, folder)
    (folder / "meta.json").write_text(  # the page alone names no category: experts need one
        json.dumps({"arxiv_id": "2410.00260", "version": 2, "primary_category": "cs.CL"})
    )
    sample_claim_task(folder=folder)
    chart = Element.objects.get(anchor="S2.F4")
    assert chart.panels.get().svg.startswith("<svg")
    assert chart.picture.name.endswith(".png" if drawn else ".svg")

    sign_in(page, "alice")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    if (
        page.locator(f"#ev-{chart.pk}").count() == 0
        or not page.locator(f"#ev-{chart.pk}").first.is_visible()
    ):
        open_whole_context(page)  # not among the sampled three: in the whole context
    shown = page.locator(f'#ev-{chart.pk} img[alt^="Figure 4"]').first
    shown.scroll_into_view_if_needed()
    page.wait_for_function("(el) => el.complete && el.naturalWidth > 0", arg=shown.element_handle())
    width = shown.evaluate("(el) => el.naturalWidth")
    assert width >= 400  # the drawn calibration plot, not a placeholder
    assert shown.get_attribute("src").split("?")[0].endswith(".png" if drawn else ".svg")
    assert page.locator(f"#ev-{chart.pk} svg").count() == 0  # never inline
