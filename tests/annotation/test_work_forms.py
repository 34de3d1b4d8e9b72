"""One form system and one work-item page (issue 40): every work page is the one page class, its
form a Django form that reads a POST and an autosaved JSON draft by the same fields."""

from __future__ import annotations

import importlib.util
import uuid

import pytest
from django import forms
from django.http import QueryDict

from annotation import inputs
from annotation.views import claims, review
from annotation.views.work_page import WorkItemPage
from validation import views as validation_views
from validation.forms import ValidationForm


def test_every_work_page_is_a_subclass_of_the_one_page_class():
    pages = [
        claims.write,
        claims.reperturb,
        review.annotate,
        review.adjudicate,
        validation_views.validate,
        validation_views.baseline_answer,
    ]
    for view in pages:
        assert issubclass(view.view_class, WorkItemPage), view
        assert issubclass(view.view_class.form_class, inputs.DraftForm)
        assert issubclass(view.view_class.form_class, forms.Form)
    assert importlib.util.find_spec("annotation.request_parsing") is None  # the old library


def test_a_post_and_a_json_draft_are_read_alike():
    token = uuid.uuid4()
    post = QueryDict(mutable=True)
    post.update({"entailed": "A beats B.", "refuted": "B beats A.", "version": "3"})
    post.setlist("evidence", ["7", "5", "7"])
    post["token"] = str(token)
    from_post = claims.PairForm.read(post)
    from_json = claims.PairForm.read(
        {"entailed": "A beats B.", "refuted": "B beats A.", "evidence": [7, 5, 7], "version": 3}
    )
    assert from_post.entailed == from_json.entailed == "A beats B."
    assert from_post.evidence == from_json.evidence == [7, 5]  # repeats out, order kept
    assert from_post.version == from_json.version == 3
    assert from_post.token == token and from_json.token is None  # a draft has none
    assert from_post.as_draft() == from_json.as_draft()
    assert "token" not in from_post.as_draft() and "version" not in from_post.as_draft()
    assert from_post.as_draft()["evidence"] == [5, 7]


def test_what_a_form_refuses_names_the_field_and_keeps_the_typed_text():
    long = "word " * 2000  # 10,000 characters: over MAX_TEXT, never cut
    errors: dict[str, str] = {}
    values = ValidationForm.read(
        {
            "text": long,
            "label": "maybe",
            "subset": "direct",
            "criteria_failed": ["language", "bogus"],
            "evidence": ["1", "²"],
            "version": "١٢",
        },
        errors=errors,
    )
    assert list(errors) == ["criteria_failed", "text", "label", "evidence", "version"]
    assert errors["label"] == "label: 'maybe' is not one of entailed, refuted."
    assert errors["criteria_failed"].startswith("criteria_failed: 'bogus' is not one of ")
    assert errors["text"].startswith("text: longer than 5,000 characters (it has 10,000)")
    assert errors["evidence"] == "evidence: invalid item id '²'."
    assert values.text == long  # kept whole, to show again
    assert values.label == "" and values.evidence == [] and values.version is None
    assert values.subset == "direct"  # what was readable stands
    with pytest.raises(inputs.BadInput, match="^criteria_failed: ") as refused:
        ValidationForm.read({"criteria_failed": ["bogus"], "text": long})
    assert refused.value.field == "criteria_failed"


@pytest.mark.parametrize(
    "data, why",
    [
        ({"label": "\x00"}, "label: "),
        ({"notes": "a\ud800b"}, "notes: contains a character text cannot hold"),
        ({"evidence": 5}, "evidence: expected a list of ids"),
        ({"notes": ["x"]}, "notes: expected text"),
        ([1, 2], "Expected an object of fields"),
    ],
)
def test_a_draft_of_the_wrong_shape_is_refused_with_why(data, why):
    errors: dict[str, str] = {}
    review.ReviewForm.read(data, errors=errors)
    assert any(message.startswith(why) for message in errors.values()), errors
