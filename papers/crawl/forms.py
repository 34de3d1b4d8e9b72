"""The admin's forms to start a crawl: over a window of days, or of listed ids."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.conf import settings

from papers.crawl.ids import IdListError, ListedId, read_id_lines
from papers.crawl.services import DEFAULT_CATEGORIES, DEFAULT_WINDOW

# An arXiv category as the crawl service takes it ("cs.CL", "math", "q-bio.NC").
_CATEGORY = re.compile(r"[a-z][a-z\-]*(\.[A-Za-z][A-Za-z\-]*)?")
MAX_OTHER_CATEGORIES = 500  # the "More categories" field, in characters


class _FilterForm(forms.Form):
    """The filter every crawl applies: at least N tables and M charts (inline in a sentence,
    "at least [2] tables and [2] charts", not full-width fields)."""

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


class CrawlForm(_FilterForm):
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
    # Its limit is the counter's (`data-max`), refused whole in `clean_other_categories`: a
    # `maxlength` would have the browser cut a pasted list silently.
    other_categories = forms.CharField(
        required=False,
        widget=forms.TextInput(attrs={"data-max": MAX_OTHER_CATEGORIES}),
        help_text="More categories, comma-separated (e.g. cs.HC, stat.ML)",
    )
    max_papers = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=1_000_000,
        help_text="Fetch at most this many papers (empty: all)",
    )
    accepted_only = forms.BooleanField(required=False, label="Accepted papers only")

    def clean_other_categories(self) -> list[str]:
        """The typed categories, each once; what is not a category is refused here, beside the
        field, once (not again by the service the valid form is handed to)."""
        typed = self.cleaned_data["other_categories"]
        if len(typed) > MAX_OTHER_CATEGORIES:
            raise forms.ValidationError(
                f"More categories: longer than {MAX_OTHER_CATEGORIES:,} characters (it has "
                f"{len(typed):,}); shorten it."
            )
        extra = [c.strip() for c in typed.split(",") if c.strip()]
        extra = list(dict.fromkeys(extra))
        if bad := [c for c in extra if not _CATEGORY.fullmatch(c)]:
            raise forms.ValidationError(
                f"These are not arXiv categories: {', '.join(bad)} (e.g. cs.CL)."
            )
        return extra

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if "other_categories" in self.errors:
            return data
        extra = data.get("other_categories", [])
        data["all_categories"] = list(dict.fromkeys([*data.get("categories", []), *extra]))
        if not data["all_categories"]:
            raise forms.ValidationError("Choose at least one category.")
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", "The window ends before it starts.")
        return data


class IdCrawlForm(_FilterForm):
    """Papers by arXiv id: a reading list pasted into a box, one id a line."""

    ids = forms.CharField(
        label="arXiv ids",
        strip=False,  # a line of spaces is refused by its number: lines must stay as given
        widget=forms.Textarea(
            attrs={"rows": 6, "placeholder": "2410.00260\n2409.13817v2\ncs/0112017  # a comment"}
        ),
        help_text="One id a line (no version: the latest); # starts a comment.",
    )
    keep_all = forms.BooleanField(
        required=False,
        label="Keep papers below the filter too",
        help_text="Stored and marked as such, instead of set aside.",
    )

    def clean_ids(self) -> list[ListedId]:
        try:
            return read_id_lines(self.cleaned_data["ids"])
        except IdListError as exc:
            raise forms.ValidationError(
                [f"Nothing fetched: {len(exc.problems)} problem(s).", *exc.problems]
            ) from None
