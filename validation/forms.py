"""Forms of the validation pages: the validator's page and the human baseline's (work pages,
read from a POST and from the autosaved draft alike), and the admins' baseline study and split."""

from __future__ import annotations

from annotation.inputs import (
    MAX_TEXT,
    ChoiceField,
    ChoicesField,
    DraftForm,
    FlagField,
    Form,
    IdsField,
    TextField,
    WholeNumberField,
)
from annotation.models import ClaimLabel, Subset
from validation.models import CRITERIA


class ValidationForm(DraftForm):
    """The validator's answer: the criteria the claim fails and the claim as revised (a claim
    or explanation longer than MAX_TEXT is refused, never cut: the page's refusal panel keeps
    the text and names the field)."""

    criteria_failed = ChoicesField(CRITERIA)
    text = TextField(MAX_TEXT)
    subset = ChoiceField(Subset.values)
    label = ChoiceField(ClaimLabel.values)
    evidence = IdsField()
    explanation = TextField(MAX_TEXT)

    @staticmethod
    def is_draft(data: object) -> bool:
        """Whether an item's draft holds a validator's choices (an unsaved item's is empty)."""
        return isinstance(data, dict) and "text" in data and "evidence" in data


class BaselineAnswerForm(DraftForm):
    label = ChoiceField(ClaimLabel.values)
    explanation = TextField(MAX_TEXT)


class BaselineStudyForm(Form):
    experts = IdsField()
    per_subset = WholeNumberField(min=1, max=10_000)
    seed = WholeNumberField(max=2**31 - 1)
    anyway = FlagField()  # start even with an expert eligible for none of the claims


class SplitForm(Form):
    validation = WholeNumberField(max=1_000_000)
    test = WholeNumberField(max=1_000_000)
    seed = WholeNumberField(max=2**31 - 1)
    licenses = TextField(2000)
    name = TextField(200)
    allow_shared_papers = FlagField()
