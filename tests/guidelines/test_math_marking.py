"""The pages added after the math rendering mark paper text for it as the work pages do: the
edit-my-last-answer pages (blind annotation, validation) and the admins' flag page load the
vendored KaTeX and wrap the paragraphs and captions they show in `data-math`; the claim is
never inside it. (The browser tests check that KaTeX renders what is marked.)"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from annotation.models import ClaimReview, CuratedElement, WorkKind
from annotation.review import services as review
from guidelines import services as guidelines
from papers.models import Element
from tests.annotation.review_factories import annotate, crew, written_pair
from validation.models import Validation

pytestmark = pytest.mark.django_db

PARAGRAPH_MATH = r" Routing with $k=1$ keeps $70\%$ of the gain."
CAPTION_MATH = r" at $\alpha=0.5$"
KATEX = "vendor/katex/katex.min.js"
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class _Marked(HTMLParser):
    """The text inside elements marked `data-math`, and the text outside them."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []
        self.inside: list[str] = []
        self.outside: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag not in VOID:
            marked = any(name == "data-math" for name, _ in attrs)
            self.stack.append(marked or (bool(self.stack) and self.stack[-1]))

    def handle_endtag(self, tag) -> None:
        if tag not in VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data) -> None:
        (self.inside if self.stack and self.stack[-1] else self.outside).append(data)


def marked(page: str) -> tuple[str, str]:
    parser = _Marked()
    parser.feed(page)
    return " ".join(parser.inside), " ".join(parser.outside)


def with_math(paper_id: int) -> None:
    for element in Element.objects.filter(paper_id=paper_id):
        if element.kind == "paragraph":
            element.text = element.text[:60] + PARAGRAPH_MATH  # within the 140 shown
        elif element.caption:
            element.caption = element.caption[:40] + CAPTION_MATH
        element.save(update_fields=["text", "caption"])


def assert_marked(page: str, claim_text: str) -> None:
    assert KATEX in page and "js/math.js" in page
    inside, outside = marked(page)
    assert "$k=1$" in inside and r"$\alpha=0.5$" in inside
    assert "$k=1$" not in outside and r"$\alpha=0.5$" not in outside
    assert claim_text not in inside


@pytest.fixture
def people():
    people = crew("writer", "second", "third")
    written_pair(people["writer"], people["boss"])
    return people


def test_the_blind_annotators_edit_page_marks_the_evidence_not_the_claim(people, client):
    item = annotate(people["second"])
    with_math(item.pair.context.paper_id)
    client.force_login(people["second"])
    page = client.get(reverse("answers:edit", args=[item.key])).content.decode()
    assert item.claim.text in page
    assert_marked(page, item.claim.text)


def test_the_validators_edit_page_marks_the_evidence_not_the_claim(client):
    from tests.validation.factories import Team, final_pair, validate_all

    team = Team()
    _, claims = final_pair(team)
    validate_all(team)
    claim = claims["entailed"]
    item = Validation.objects.get(claim=claim).item
    with_math(claim.pair.context.paper_id)
    assert ClaimReview.objects.get(claim=claim).final_evidence.exists()
    client.force_login(team.validators[0])
    page = client.get(reverse("validation_answers:edit", args=[item.key])).content.decode()
    assert_marked(page, claim.text)


def test_the_flag_page_marks_the_flagged_paragraph_and_caption(people, client):
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    with_math(item.pair.context.paper_id)
    shown = CuratedElement.objects.filter(context=item.pair.context, in_context=True)
    elements = Element.objects.filter(pk__in=shown.values("element_id"))
    client.force_login(people["boss"])
    for kind, formula in (("paragraph", "$k=1$"), ("table", r"$\alpha=0.5$")):
        element = elements.filter(kind=kind).first()
        flag = guidelines.raise_flag(
            user=people["second"], kind="extraction", note="odd", item=item, element_id=element.pk
        )
        page = client.get(reverse("guidelines:flag", args=[flag.pk])).content.decode()
        assert KATEX in page and "js/math.js" in page
        inside, outside = marked(page)
        assert formula in inside  # shown as annotators read it
        assert formula in outside  # and, as typed, in the correction form
        assert "odd" not in inside  # the annotator's note is not paper text
