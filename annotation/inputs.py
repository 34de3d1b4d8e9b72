"""What a request sends (form fields, query parameters, JSON bodies), read into typed values by
Django forms: a value that is not what its field takes is refused with a readable message (400,
never 500), and a page's POST and its autosaved JSON draft are read by the same form.

Numbers are ASCII digits only, with a length bound: `str.isdigit()` accepts "²" and "١٢",
which `int()` refuses or reads as another number, and `int()` refuses more than 4,300 digits.
Text never holds NUL characters or lone surrogates (PostgreSQL refuses both, in text and in
JSON), and is never cut: text longer than its field holds is refused with the limit and its
length, and a refused form keeps it, whole, to show again (`DraftForm.values`).

The fields read a form's QueryDict and a JSON object alike (`_Raw`: the value as sent, every
value for a list), so a JSON `5` where a list is expected is refused rather than taken for a
list. Every message names its field, as the pages show it beside the field.

What every work-item page reads the same way is here once: `MAX_TEXT` (a note, an explanation,
a claim as validated), the item's `version` the page was opened at and the submission `token`
(`DraftForm`: refused when missing, never invented), and `id_set` (the ids a service is handed).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from django import forms
from django.core.exceptions import BadRequest
from django.http import HttpRequest

from annotation.errors import too_long
from annotation.limits import MAX_NOTE

# Row ids fit a signed 64-bit integer (BigAutoField); SQLite cannot even compare a larger one.
MAX_ID = 2**63 - 1
MAX_ITEMS = 1000  # ids or strings in one list field
MAX_JSON_BYTES = 256 * 1024  # an autosaved draft is a few KB
# A note, an explanation, a claim as validated: longer is refused with the limit, never cut
# (the services refuse it too: annotation.limits).
MAX_TEXT = MAX_NOTE
# What a work page's form lost when its submission token is missing or unreadable.
TOKEN_LOST = "The form lost its submission token; submit again."

_DIGITS = re.compile(r"-?[0-9]{1,19}")  # ASCII only: [0-9] is not \d
_BAD_CHARACTERS = re.compile("[\x00\ud800-\udfff]")


class BadInput(BadRequest):
    """A request value that is not what its field takes. Django answers a BadRequest with 400;
    `annotation.views.common.bad_request` shows `message` (JSON to a JSON request)."""

    def __init__(self, message: str, *, field: str = "", kept: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        # The value as sent when a page may show it again (text refused only for its length).
        self.kept = kept


def _shown(value: object) -> str:
    """A value as a message names it: short, whatever was sent."""
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:20]}… ({len(str(value)):,} characters)"


def parse_int(
    value: object, *, field: str, min: int = 0, max: int = MAX_ID, default: int | None = None
) -> int | None:
    """A whole number in [min, max] from a form string or a JSON number; empty or missing:
    `default`."""
    if value is None or value == "":
        return default
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise BadInput(f"{field}: expected a whole number, got {_shown(value)}.", field=field)
    if isinstance(value, str):
        if not _DIGITS.fullmatch(value):
            raise BadInput(f"{field}: {_shown(value)} is not a whole number.", field=field)
        value = int(value)
    if not min <= value <= max:
        raise BadInput(f"{field}: {value} is not between {min} and {max}.", field=field)
    return value


def parse_id(value: object, *, field: str) -> int | None:
    """A row id (a positive whole number), or None when empty or missing."""
    return parse_int(value, field=field, min=1)


def parse_id_list(values: object, *, field: str, max_items: int = MAX_ITEMS) -> list[int]:
    """Row ids, without repeats, in the order sent: from a form (`getlist`) or a JSON list."""
    if values is None:
        return []
    if not isinstance(values, list | tuple):
        raise BadInput(f"{field}: expected a list of ids, got {_shown(values)}.", field=field)
    if len(values) > max_items:
        raise BadInput(f"{field}: more than {max_items} ids.", field=field)
    ids = []
    for value in values:
        try:
            ids.append(parse_id(value, field=field))
        except BadInput as exc:
            raise BadInput(f"{field}: invalid item id {_shown(value)}.", field=field) from exc
    return list(dict.fromkeys(i for i in ids if i is not None))


def id_set(values: object) -> set[int]:
    """The ids among `values` (whole numbers, or strings of ASCII digits) as a set: what a
    service was handed, or what a kept draft lists, anything else left out (a view has read
    them already); not a collection at all: none."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        return set()
    found = set()
    for value in values:
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            if value >= 0:
                found.add(value)
        elif isinstance(value, str) and _DIGITS.fullmatch(value) and not value.startswith("-"):
            found.add(int(value))
    return found


def parse_token(value: object) -> uuid.UUID:
    """A work page's submission token (its hidden field; the same token sent twice records
    once). Missing or unreadable is refused (`TOKEN_LOST`), never invented: a fresh one would
    let a form sent twice record twice."""
    if isinstance(value, str) and value:
        try:
            return uuid.UUID(value)
        except ValueError:
            pass
    raise BadInput(TOKEN_LOST, field="token")


def storable(text: str) -> bool:
    """Whether text holds no character a text column or JSON refuses (NUL, a lone surrogate)."""
    return not _BAD_CHARACTERS.search(text)


def parse_text(value: object, *, field: str, max_length: int, default: str = "") -> str:
    """A string without NUL characters or lone surrogates, at most `max_length` characters.
    Longer is refused with the limit and the length sent (never cut); the refusal keeps the
    whole text (`BadInput.kept`) for the page to show again."""
    if value is None:
        return default
    if not isinstance(value, str):
        raise BadInput(f"{field}: expected text, got {_shown(value)}.", field=field)
    if len(value) > max_length:
        raise BadInput(
            too_long(field, value, max_length),
            field=field,
            kept=value if storable(value) else None,
        )
    if not storable(value):
        raise BadInput(
            f"{field}: contains a character text cannot hold (NUL, or half of a surrogate pair).",
            field=field,
        )
    return value


def kept_text(
    data: Mapping, name: str, *, max_length: int, errors: dict[str, str], label: str = ""
) -> str:
    """One text field of a small form (an admin's note), whole: a value it refuses (longer
    than `max_length`, or holding a character text cannot) is recorded in `errors` under `name`
    (its message names `label`, else `name`) and comes back as sent when the page can show it
    again, never cut; the caller records nothing while `errors` holds anything."""
    try:
        return parse_text(data.get(name, ""), field=label or name, max_length=max_length)
    except BadInput as exc:
        errors[name] = exc.message
        return exc.kept if exc.kept is not None else ""


def parse_flag(value: object, *, field: str) -> bool:
    """A checkbox ("on", "1", "true") or a JSON boolean; missing: False."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, int | str):
        return str(value).lower() in ("1", "on", "true")
    raise BadInput(f"{field}: expected true or false, got {_shown(value)}.", field=field)


def page_number(request: HttpRequest) -> int:
    """`?page=` of a paginated list (a Paginator shows the last page for one past it)."""
    return parse_int(request.GET.get("page"), field="page", min=1, default=1) or 1


def json_object(request: HttpRequest, *, max_bytes: int = MAX_JSON_BYTES) -> dict:
    """A JSON object body, at most `max_bytes` (an empty body is `{}`)."""
    body = request.body
    if len(body) > max_bytes:
        raise BadInput(f"The request is larger than {max_bytes:,} bytes.")
    try:
        data = json.loads(body or b"{}")
    # Bad JSON or UTF-8, a number of 5,000 digits, or arrays nested beyond Python's stack.
    except (ValueError, RecursionError) as exc:
        raise BadInput("The request is not readable JSON.") from exc
    if not isinstance(data, dict):
        raise BadInput(f"Expected a JSON object, got {_shown(data)}.")
    return data


# --- Django form fields that read a QueryDict and a JSON object alike -------------------------


class _Raw(forms.Widget):
    """The value as sent: a form's last value for the name, or a JSON object's member."""

    def value_from_datadict(self, data, files, name):
        return data.get(name)

    def value_omitted_from_data(self, data, files, name):
        return name not in data


class _RawList(_Raw):
    """Every value a form sent for the name, or a JSON object's member (a list, or not)."""

    def value_from_datadict(self, data, files, name):
        if hasattr(data, "getlist"):
            return data.getlist(name)
        return data.get(name)


class _Strict(forms.Field):
    """A field whose reading says what was wrong, naming the field (`name`, set by the form):
    `read(value)` raises BadInput; its `kept` is what a refused form shows again."""

    widget = _Raw
    name = ""
    default: Any = None
    kept: str | None = None  # a refused text, as sent, when the page may show it again

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def read(self, value: object) -> Any:  # pragma: no cover - every field has its own
        raise NotImplementedError

    def clean(self, value):
        try:
            return self.read(value)
        except BadInput as exc:
            self.kept = exc.kept  # the field is the form's own copy
            raise forms.ValidationError(exc.message, code="bad") from None

    def empty(self) -> Any:
        return self.read(None)


class TextField(_Strict):
    """Text of at most `max_length` characters: longer is refused, never cut (a refused form
    keeps it, `DraftForm.values`)."""

    def __init__(self, max_length: int, *, default: str = "", **kwargs):
        super().__init__(**kwargs)
        self.limit, self.default = max_length, default

    def read(self, value: object) -> str:
        return parse_text(value, field=self.name, max_length=self.limit, default=self.default)


class ChoiceField(TextField):
    """One of `choices` (or empty: the service says what a submission must choose); anything
    else is refused, naming the choices."""

    def __init__(self, choices: Iterable[str], *, default: str = "", **kwargs):
        self.choices = tuple(choices)
        super().__init__(max(len(c) for c in self.choices), default=default, **kwargs)

    def read(self, value: object) -> str:
        if isinstance(value, str) and value and value not in self.choices:
            raise BadInput(
                f"{self.name}: {_shown(value)} is not one of {', '.join(self.choices)}.",
                field=self.name,
            )
        return super().read(value)


class WholeNumberField(_Strict):
    def __init__(self, *, min: int = 0, max: int = MAX_ID, default: int | None = None, **kw):
        super().__init__(**kw)
        self.low, self.high, self.default = min, max, default

    def read(self, value: object) -> int | None:
        return parse_int(value, field=self.name, min=self.low, max=self.high, default=self.default)


class IdsField(_Strict):
    """Row ids, without repeats, in the order sent."""

    widget = _RawList

    def __init__(self, *, max_items: int = MAX_ITEMS, **kwargs):
        super().__init__(**kwargs)
        self.max_items = max_items

    def read(self, value: object) -> list[int]:
        return parse_id_list(value, field=self.name, max_items=self.max_items)


class FlagField(_Strict):
    """A checkbox ("on", "1", "true") or a JSON boolean; missing: False."""

    def read(self, value: object) -> bool:
        return parse_flag(value, field=self.name)


class ChoicesField(_Strict):
    """Codes ticked from `choices` (e.g. failed criteria), without repeats, sorted; a code that
    is not one of them is refused, naming the choices."""

    widget = _RawList

    def __init__(self, choices: Iterable[str], *, max_items: int = MAX_ITEMS, **kwargs):
        super().__init__(**kwargs)
        self.choices, self.max_items = tuple(choices), max_items

    def read(self, value: object) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list | tuple) or len(value) > self.max_items:
            raise BadInput(
                f"{self.name}: expected a list of at most {self.max_items} strings.",
                field=self.name,
            )
        codes = {parse_text(v, field=self.name, max_length=64) for v in value}
        for code in codes - set(self.choices):
            raise BadInput(
                f"{self.name}: {_shown(code)} is not one of {', '.join(self.choices)}.",
                field=self.name,
            )
        return sorted(codes)


class ObjectField(_Strict):
    """A JSON object member (an autosave's draft), read by its own form later."""

    def read(self, value: object) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise BadInput(
                f"{self.name}: expected an object, got {_shown(value)}.", field=self.name
            )
        return value


class TokenField(_Strict):
    """A work page's submission token; missing or unreadable reads as None (the page refuses
    it with `TOKEN_LOST`, never invents one)."""

    def read(self, value: object) -> uuid.UUID | None:
        try:
            return parse_token(value)
        except BadInput:
            return None


# --- Forms ------------------------------------------------------------------------------------


class Values(dict):
    """A form's values by field name, also as attributes (`values.label`): what a view hands a
    service and a template shows (`{{ form.label }}`)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def as_draft(self) -> dict[str, Any]:
        """The draft's shape: what a work page's autosave keeps (the version the page was
        opened at and its token left out; ids sorted)."""
        return {
            name: sorted(value) if isinstance(value, set | list | tuple) else value
            for name, value in self.items()
            if name not in ("version", "token")
        }


class Form(forms.Form):
    """A form of strict fields, read from a QueryDict or a JSON object alike. `problems` are
    the refused fields' messages by name; `values()` every field's value, a refused one as
    sent when it was refused for its length (so a refused form comes back with everything that
    was typed), else its empty value."""

    def __init__(self, data: object = None, **kwargs):
        self.unreadable = "" if data is None or isinstance(data, Mapping) else _shown(data)
        super().__init__(data if isinstance(data, Mapping) else {}, **kwargs)
        for name, field in self.fields.items():
            if isinstance(field, _Strict):
                field.name = name

    @property
    def problems(self) -> dict[str, str]:
        found = {name: str(errors[0]) for name, errors in self.errors.items()}
        if self.unreadable:
            found[""] = f"Expected an object of fields, got {self.unreadable}."
        return found

    def values(self) -> Values:
        self.is_valid()
        values = Values()
        for name, field in self.fields.items():
            if name in self.cleaned_data:
                values[name] = self.cleaned_data[name]
                continue
            kept = field.kept if isinstance(field, TextField) else None
            empty = field.empty() if isinstance(field, _Strict) else None
            values[name] = kept if kept is not None else empty
        return values

    @classmethod
    def read(cls, data: object, *, errors: dict[str, str] | None = None) -> Values:
        """The values; the first problem raises BadInput, or with `errors` every problem is
        recorded there (the caller records nothing while it holds anything)."""
        form = cls(data)
        values = form.values()
        problems = form.problems
        if problems and errors is None:
            name, message = next(iter(problems.items()))
            field = form.fields.get(name)
            raise BadInput(message, field=name, kept=getattr(field, "kept", None))
        if errors is not None:
            errors.update(problems)
        return values


class DraftForm(Form):
    """A work page's form: what the expert typed and marked (its draft: what autosave keeps on
    the item and a reload puts back), with the item's version the page was opened at and the
    page's submission token (None when missing or unreadable: refused, never invented)."""

    version = WholeNumberField()
    token = TokenField()

    def __init__(self, data: object = None, **kwargs):
        super().__init__(data, **kwargs)
        # The page's own fields first, as its messages list them.
        mine = [name for name in self.fields if name not in ("version", "token")]
        self.order_fields([*mine, "version", "token"])

    @classmethod
    def from_draft(cls, draft: object) -> Values:
        """A draft kept on an item: whatever it holds, the page opens."""
        return cls.read(draft or {}, errors={})


def draft_ids(draft: object, *names: str) -> set[int]:
    """The ids a draft kept on an item lists under `names` (a draft is request data, kept:
    read by the same rules, what is not an id left out)."""
    found: set[int] = set()
    data = draft if isinstance(draft, Mapping) else {}
    for name in names:
        field = IdsField()
        field.name = name
        try:
            found.update(field.read(data.get(name)))
        except BadInput:
            continue
    return found


class AutosaveForm(Form):
    """An autosave's body: the item's version the page holds, and the draft."""

    version = WholeNumberField()
    draft = ObjectField()
