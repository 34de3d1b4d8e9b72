"""Helpers the browser tests share: signing in, sample papers and claim tasks, page scripts."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from django.core.management import call_command

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.models import (
    Subfield,
)
from annotation.writing import services as writing
from papers.models import Element, Paper, Section
from tests.annotation.factories import make_expert


def sign_in_to_workspace(page, username: str, password: str = "pw-for-tests-1") -> None:
    """Sign in and wait for the workspace (the login page's own URL ends in "/" too)."""
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Your workspace")


CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"


SHOTS = os.environ.get("SCIVER_SCREENSHOTS", "")


def sample_folder(category: str = "cs.CL") -> Path:
    """A corpus paper of this category that has sections SciVer removes."""
    for meta in sorted(CORPUS.glob("*/meta.json")):
        if json.loads(meta.read_text()).get("primary_category") == category:
            return meta.parent
    return sorted(p.parent for p in CORPUS.glob("*/paper.html"))[0]


def sign_in(page, username: str, password: str = "pw-for-tests-1") -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith("/"), page.url


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=False)


def broken_images(page) -> list[str]:
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # lazy images load
    page.wait_for_function("Array.from(document.images).every(i => i.complete)")
    return page.eval_on_selector_all(
        "img", "imgs => imgs.filter(i => !(i.naturalWidth > 0)).map(i => i.src)"
    )


def with_math(paper: Paper) -> Paper:
    """Every paragraph and caption of the paper holds inline math, as a parsed paper does."""
    for element in Element.objects.filter(paper=paper):
        if element.kind == "paragraph":
            element.text += MATH
        elif element.caption:
            element.caption += CAPTION_MATH
        element.save(update_fields=["text", "caption"])
    return paper


def math_rendered(page, selector: str) -> None:
    """Formulas under `selector` are KaTeX's, and their `$…$` source is not what one reads."""
    page.locator(f"{selector} .math .katex").first.wait_for()
    assert "$k=1$" not in page.locator(selector).first.inner_text()


RECORDER = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${where}`);
});
"""


ENTAILED = (
    "Across the reported experiments the proposed approach obtains a higher score than "
    "every baseline, reaching 42.5 overall."
)


def sample_claim_task(*names: str, folder: Path | None = None):
    """The bundled sample paper (or the saved page in `folder`) imported, its images drawn;
    `names` (default alice) experts of its subfield, the first assigned it with its body and
    abstract kept, one claim task waiting."""
    Subfield.ensure_sciver_subfields()
    with open(os.devnull, "w") as sink:
        call_command(
            "import_arxiv_html", str(folder or sample_folder()), "--images", "now", stdout=sink
        )
    paper = Paper.objects.get()
    writer, *_ = (make_expert(n, (paper.primary_category,)) for n in names or ("alice",))
    assignment_services.assign_papers(papers=[paper], experts=[writer], assigned_by=None)
    body = Section.objects.filter(paper=paper, kind__in=["body", "abstract"])
    curation_services.save_curated_context(
        paper=paper,
        user=writer,
        kept_section_ids=set(body.values_list("pk", flat=True)),
        kept_element_ids=set(Element.objects.filter(paper=paper).values_list("pk", flat=True)),
        not_chart_ids=(),
        latest_seen=None,
    )
    return writing.create_claim_tasks(paper=paper, by=writer, count=1, seed=11)[0]


DUPLICATE_IDS = """() => {
  const seen = {};
  for (const el of document.querySelectorAll("[id]")) seen[el.id] = (seen[el.id] || 0) + 1;
  return Object.keys(seen).filter((id) => seen[id] > 1);
}"""


def open_whole_context(page) -> None:
    page.keyboard.press("w")
    page.locator("#whole-context .context-body .ev-item").first.wait_for()


def _polled_from_python(page) -> Callable[..., object]:
    """`page.wait_for_function` that works under the app's Content-Security-Policy. Playwright
    re-evaluates a predicate that is not yet true with `eval` inside the page, which the policy
    (no 'unsafe-eval') refuses; `page.evaluate` goes through the DevTools protocol, which the
    policy does not govern. Same arguments, the same timeout error."""
    import time

    from playwright.sync_api import Error, TimeoutError

    def wait_for_function(expression: str, *, arg=None, timeout: float | None = None, polling=None):
        limit = (timeout if timeout is not None else 10_000) / 1000
        deadline = time.monotonic() + limit
        while True:
            try:
                value = page.evaluate(expression, arg)
            except Error as exc:
                # The page navigated while it was evaluated, or the new page is still loading
                # (an element the predicate reads is not parsed yet): try again.
                said = str(exc)
                if not any(
                    words in said
                    for words in ("context was destroyed", "navigat", "properties of null")
                ):
                    raise
                value = None
            if value:
                return value
            if limit and time.monotonic() > deadline:
                raise TimeoutError(
                    f"Timeout {limit * 1000:.0f}ms exceeded waiting for {expression!r}"
                )
            page.wait_for_timeout(polling if isinstance(polling, (int, float)) else 50)

    return wait_for_function


# What LaTeXML's alttext becomes in the parsed text: `$…$`, as annotators used to read it.
MATH = (
    r" Routing with $k=1$ keeps $70\%$ of the gain $\rightarrow$ with $\mathcal{L}_{\text{bal}}$."
)


CAPTION_MATH = r" at $\alpha=0.5$"
