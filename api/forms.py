"""The API reads input with the pages' own forms (`XForm(data=request.data)`): the same fields,
limits and messages. This is the one bridge: cleaned values, or FormRefused with every field's
messages (the first one is the refusal's message, as the page shows it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from django import forms

from annotation import inputs
from api.errors import FormRefused


def read(
    form_class: type[forms.Form], data: object, *, prefill: bool = False, **kwargs: Any
) -> Mapping[str, Any]:
    """The cleaned values of `data` read by `form_class`; with `prefill`, a JSON body's absent
    fields take the values the page shows filled in (`prefilled`)."""
    if prefill:
        data = prefilled(form_class, data, kwargs)
    form = form_class(data=cast(Mapping[str, Any], data), **kwargs)
    if isinstance(form, inputs.Form):
        values = form.values()
        if problems := form.problems:
            raise FormRefused({name or "__all__": [m] for name, m in problems.items()})
        return values
    if not isinstance(data, Mapping):
        raise FormRefused({"__all__": ["Expected an object of fields."]})
    if not form.is_valid():
        raise FormRefused(
            {name: [str(m) for m in messages] for name, messages in form.errors.items()}
        )
    return form.cleaned_data


def prefilled(form_class: type[forms.Form], data: object, kwargs: dict[str, Any]) -> object:
    """A JSON body with each field it leaves out set to what the page's form shows filled in
    (e.g. the crawl's "at least 2 tables"): absent means the page's default, as a person who
    submits the page without touching a field gets it. Form posts are read as sent."""
    if not isinstance(data, dict):
        return data
    blank = form_class(**kwargs)
    missing = {
        name: blank.get_initial_for_field(field, name)
        for name, field in blank.fields.items()
        if name not in data
    }
    return {**{k: v for k, v in missing.items() if v is not None}, **data}
