"""Forms of the annotation pages: they parse and validate input; services do the writing."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.utils import timezone

from annotation.errors import too_long
from annotation.experts.services import MAX_NAME, MAX_NOTES, MAX_VENUE
from annotation.inputs import MAX_ID, BadInput, parse_id
from annotation.limits import MAX_LINE_NOTE
from annotation.models import AssignmentStatus, Subfield
from annotation.models.experts import MAX_PUBLICATION_TITLE
from papers.models import Paper


class ModelIdsField(forms.ModelMultipleChoiceField):
    """Rows ticked by id: a value that is not an id is refused before the query (Django would
    hand SQLite a 25-digit number, which it cannot compare: a crash, not a form error)."""

    def clean(self, value):
        for pk in value if isinstance(value, list | tuple) else ():
            try:
                parse_id(pk, field=self.label or "id")
            except BadInput as exc:
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"],
                    code="invalid_pk_value",
                    params={"pk": str(pk)[:20]},
                ) from exc
        return super().clean(value)


class LimitedText(forms.CharField):
    """Free text of at most `limit` characters: longer is refused, naming the field and the
    limit, never cut. The input carries `data-max` (the counter of static/js/counter.js), not
    `maxlength`, at which a browser would silently cut a paste."""

    def __init__(self, limit: int, **kwargs):
        self.limit = limit
        super().__init__(**kwargs)

    def widget_attrs(self, widget: forms.Widget) -> dict:
        return super().widget_attrs(widget) | {"data-max": str(self.limit)}

    def clean(self, value):
        value = super().clean(value)
        if problem := too_long(str(self.label or "text"), value or "", self.limit):
            raise forms.ValidationError(problem, code="too_long")
        return value


class AccountForm(forms.Form):
    username = LimitedText(MAX_NAME, label="Username")
    first_name = LimitedText(MAX_NAME, required=False, label="First name")
    last_name = LimitedText(MAX_NAME, required=False, label="Last name")
    email = forms.EmailField(required=False)
    is_staff = forms.BooleanField(required=False, label="Admin (staff)")


class ExpertProfileForm(forms.Form):
    subfields = ModelIdsField(
        queryset=Subfield.objects.all(), required=False, widget=forms.CheckboxSelectMultiple
    )
    active = forms.BooleanField(required=False, label="Active (gets new assignments)")
    notes = LimitedText(
        MAX_NOTES, widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Notes"
    )


class PublicationForm(forms.Form):
    # No max_length: the input would get a maxlength, at which a browser silently cuts a paste.
    title = forms.CharField(
        widget=forms.TextInput(attrs={"class": "medium", "data-max": MAX_PUBLICATION_TITLE})
    )
    venue = LimitedText(MAX_VENUE, label="Venue")
    year = forms.IntegerField(min_value=1950, max_value=2100)
    subfield = forms.ModelChoiceField(queryset=Subfield.objects.all())

    def clean_title(self) -> str:
        title = self.cleaned_data["title"].strip()
        if len(title) > MAX_PUBLICATION_TITLE:
            raise forms.ValidationError(
                f"This title has {len(title):,} characters; at most "
                f"{MAX_PUBLICATION_TITLE:,} are accepted. Nothing was saved: check that only "
                "the title was pasted."
            )
        return title


class TrainingForm(forms.Form):
    completed_on = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    trainer = LimitedText(MAX_NAME, label="Trained by")
    notes = LimitedText(
        MAX_NOTES, widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Notes"
    )

    def __init__(self, *args, **kwargs):
        # Its ids differ from the profile form's on the same page (both have `notes`).
        kwargs.setdefault("auto_id", "id_training_%s")
        super().__init__(*args, **kwargs)

    def clean_completed_on(self) -> dt.date:
        value = self.cleaned_data["completed_on"]
        if value > timezone.localdate():
            raise forms.ValidationError("Training can only be recorded once it has taken place.")
        return value


STATE_CHOICES = [
    ("", "any"),
    ("unassigned", "waiting for an expert"),
    (AssignmentStatus.ASSIGNED, "assigned, to curate"),
    (AssignmentStatus.CURATED, "curated"),
]


class PaperFilterForm(forms.Form):
    """GET filters of the assignment page (all optional)."""

    subfield = forms.ChoiceField(required=False)
    status = forms.ChoiceField(
        required=False, choices=[("", "any")] + list(Paper.Status.choices), initial="parsed"
    )
    acceptance = forms.ChoiceField(
        required=False, choices=[("", "any")] + list(Paper.Acceptance.choices)
    )
    state = forms.ChoiceField(required=False, choices=STATE_CHOICES, label="Assignment")
    min_tables = forms.IntegerField(required=False, min_value=0, max_value=10_000, label="Tables ≥")
    min_charts = forms.IntegerField(required=False, min_value=0, max_value=10_000, label="Charts ≥")
    q = forms.CharField(required=False, max_length=200, label="Search")

    def __init__(self, *args, subfield_codes: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["subfield"].choices = [("", "any")] + [(c, c) for c in subfield_codes]


class PaperSelectionForm(forms.Form):
    """The POST of the assignment page: selected papers and what to do with them."""

    ACTIONS = ("assign", "spread", "unassign", "subfield")

    action = forms.ChoiceField(choices=[(a, a) for a in ACTIONS])
    papers = ModelIdsField(
        queryset=Paper.objects.defer("raw_html_compressed"),
        error_messages={"required": "Select at least one paper."},
    )
    expert = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    experts = forms.TypedMultipleChoiceField(coerce=int, required=False)
    per_expert = forms.IntegerField(required=False, min_value=1, max_value=100_000)
    reassign = forms.BooleanField(required=False)
    subfield = forms.ModelChoiceField(queryset=Subfield.objects.all(), required=False)
    note = LimitedText(MAX_LINE_NOTE, required=False, label="Note")

    def __init__(self, *args, expert_choices: list[tuple[int, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["experts"].choices = expert_choices

    def clean(self) -> dict:
        data = super().clean()
        action = data.get("action")
        if action == "assign" and not data.get("expert"):
            self.add_error("expert", "Choose the expert to assign the papers to.")
        if action == "spread" and not data.get("experts"):
            self.add_error("experts", "Tick the experts to spread the papers over.")
        if action == "subfield" and not data.get("subfield"):
            self.add_error("subfield", "Choose the subfield.")
        return data
