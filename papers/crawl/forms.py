"""The admin's form to start a crawl."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from papers.crawl.services import DEFAULT_CATEGORIES, DEFAULT_WINDOW


class CrawlForm(forms.Form):
    date_from = forms.DateField(
        label="Submitted from",
        initial=DEFAULT_WINDOW[0],
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    date_to = forms.DateField(
        label="to", initial=DEFAULT_WINDOW[1], widget=forms.DateInput(attrs={"type": "date"})
    )
    categories = forms.MultipleChoiceField(
        choices=[(c, c) for c in DEFAULT_CATEGORIES],
        initial=DEFAULT_CATEGORIES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    other_categories = forms.CharField(
        required=False, help_text="More categories, comma-separated (e.g. cs.HC, stat.ML)"
    )
    max_papers = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=1_000_000,
        help_text="Fetch at most this many papers (empty: all)",
    )
    accepted_only = forms.BooleanField(required=False, label="Accepted papers only")
    # Inline in a sentence ("at least [2] tables and [2] charts"), not full-width fields.
    min_tables = forms.IntegerField(
        min_value=0, max_value=100, widget=forms.NumberInput(attrs={"class": "inline-number"})
    )
    min_charts = forms.IntegerField(
        min_value=0, max_value=100, widget=forms.NumberInput(attrs={"class": "inline-number"})
    )

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["min_tables"].initial = settings.MIN_TABLES
        self.fields["min_charts"].initial = settings.MIN_CHARTS

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        extra = [c.strip() for c in data.get("other_categories", "").split(",") if c.strip()]
        data["all_categories"] = list(dict.fromkeys([*data.get("categories", []), *extra]))
        if not data["all_categories"]:
            raise forms.ValidationError("Choose at least one category.")
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", "The window ends before it starts.")
        return data
