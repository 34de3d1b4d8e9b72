"""The API reads input with the pages' own forms (`XForm(data=request.data)`): the same fields,
limits and messages. This is the one bridge: cleaned values, or FormRefused with every field's
messages (the first one is the refusal's message, as the page shows it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from annotation import inputs
from api.errors import FormRefused


def read(form_class: type[forms.Form], data: object, **kwargs: Any) -> Mapping[str, Any]:
    form = form_class(data=data, **kwargs)
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
