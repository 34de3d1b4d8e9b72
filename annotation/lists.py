"""Search, filters and pages of the admins' list pages (papers, people, assignment, claim
pairs, validation): one form per page parses the GET, one pager keeps the filters."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.paginator import Page, Paginator
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.http import HttpRequest

from annotation import inputs as parse
from annotation.models import Claim

PAGE_SIZE = 50

SHOW_LIVE, SHOW_ARCHIVED, SHOW_ALL = "", "archived", "all"
PAPER_SHOW = [(SHOW_LIVE, "not archived"), (SHOW_ARCHIVED, "archived only"), (SHOW_ALL, "all")]


class SearchForm(forms.Form):
    """A search box (optional); pages add their filters."""

    q = forms.CharField(required=False, max_length=200, label="Search")

    def value(self, name: str, default: Any = "") -> Any:
        if not self.is_valid():
            return default
        value = self.cleaned_data.get(name)
        return value.strip() if isinstance(value, str) else (default if value is None else value)


class PaperListForm(SearchForm):
    status = forms.ChoiceField(required=False, choices=[("", "any")])
    show = forms.ChoiceField(required=False, choices=PAPER_SHOW, label="Show")

    def __init__(self, *args: Any, status_choices: list[tuple[str, str]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["status"].choices = [("", "any"), *status_choices]


PEOPLE_SHOW = [
    ("", "active"),
    ("inactive", "inactive or disabled"),
    ("archived", "archived"),
    ("all", "all"),
]


class PeopleListForm(SearchForm):
    show = forms.ChoiceField(required=False, choices=PEOPLE_SHOW, label="Show")


class PairListForm(SearchForm):
    subset = forms.ChoiceField(required=False, choices=[("", "any")])
    show = forms.ChoiceField(required=False, choices=PAPER_SHOW, label="Papers")

    def __init__(self, *args: Any, subset_choices: list[tuple[str, str]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["subset"].choices = [("", "any"), *subset_choices]
        self.fields["q"].widget.attrs["placeholder"] = "pair key, paper, writer or claim text"


def pair_search(pairs: QuerySet, query: str) -> QuerySet:
    """Claim pairs whose key is `query`, or whose paper (id, title), writer or claim text (the
    entailed or the refuted claim, a replaced one too) contains it, ignoring case; each with
    its claims that match as `matching` (one query more for the page)."""
    claims = Claim.objects.filter(text__icontains=query)
    return pairs.filter(
        Q(key__iexact=query)
        | Q(paper__arxiv_id__icontains=query)
        | Q(paper__title__icontains=query)
        | Q(writer__username__icontains=query)
        | Q(Exists(claims.filter(pair=OuterRef("pk"))))
    ).prefetch_related(
        Prefetch(
            "claims", queryset=claims.only("id", "pair_id", "label", "text"), to_attr="matching"
        )
    )


def archived_filter(queryset: QuerySet, show: str, field: str = "archived_at") -> QuerySet:
    """Rows of papers (or accounts) not archived (default), archived only, or all."""
    if show == SHOW_ARCHIVED:
        return queryset.filter(**{f"{field}__isnull": False})
    if show == SHOW_ALL:
        return queryset
    return queryset.filter(**{f"{field}__isnull": True})


def page_of(request: HttpRequest, items: Any, size: int = PAGE_SIZE) -> dict[str, Any]:
    """The requested page of `items`, and the query string that keeps the filters (for the
    pager's links: `?{{ pager_query }}page=N`)."""
    page: Page = Paginator(items, size).get_page(parse.page_number(request))
    kept = request.GET.copy()
    kept.pop("page", None)
    query = kept.urlencode()
    return {"page": page, "pager_query": f"{query}&" if query else ""}
