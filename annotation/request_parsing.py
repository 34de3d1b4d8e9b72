"""Reading what a request sends (form fields, query parameters, JSON bodies) into typed values:
a value that is not what the field takes is a `BadInput`, which answers 400 with a readable
message, never 500.

Numbers are ASCII digits only, with a length bound: `str.isdigit()` accepts "²" and "١٢",
which `int()` refuses or reads as another number, and `int()` refuses more than 4,300 digits.
Text never holds NUL characters or lone surrogates (PostgreSQL refuses both, in text and in
JSON), and is never cut: text longer than its field holds is refused with the limit and its
length, and a refused form keeps it, whole, to show again (`kept_text`, `parse_fields`). A
schema (`{"name": Text(5000), "evidence": Ids()}`) reads a form's QueryDict and a JSON object
alike, so a page's POST and its autosave draft are parsed by the same rules.

What every work-item page reads the same way is here once: `MAX_TEXT` (a note, an explanation,
a claim as validated), `VERSION` (the item's version the page was opened at), `parse_token`
(the submission token, refused when missing, never invented) and `id_set` (the ids a service
is handed).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import BadRequest
from django.http import HttpRequest

from annotation.errors import too_long

# Row ids fit a signed 64-bit integer (BigAutoField); SQLite cannot even compare a larger one.
MAX_ID = 2**63 - 1
MAX_ITEMS = 1000  # ids or strings in one list field
MAX_JSON_BYTES = 256 * 1024  # an autosaved draft is a few KB
# A note, an explanation, a claim as validated: longer is refused with the limit, never cut.
MAX_TEXT = 5000
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
    service was handed, or what a kept draft lists, anything else left out (a view has parsed
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


def parse_text(
    value: object, *, field: str, max_length: int, truncate: bool = False, default: str = ""
) -> str:
    """A string without NUL characters or lone surrogates, at most `max_length` characters.
    Longer is refused with the limit and the length sent; the refusal keeps the whole text
    (`BadInput.kept`) for the page to show again. `truncate` cuts instead: no view asks for it
    (a cut is text lost without a word)."""
    if value is None:
        return default
    if not isinstance(value, str):
        raise BadInput(f"{field}: expected text, got {_shown(value)}.", field=field)
    if len(value) > max_length:
        if not truncate:
            raise BadInput(
                too_long(field, value, max_length),
                field=field,
                kept=value if storable(value) else None,
            )
        value = value[:max_length]
    if not storable(value):
        raise BadInput(
            f"{field}: contains a character text cannot hold (NUL, or half of a surrogate pair).",
            field=field,
        )
    return value


def kept_text(
    data: Mapping, name: str, *, max_length: int, errors: dict[str, str], label: str = ""
) -> str:
    """A form's text field, whole: a value it refuses (longer than `max_length`, or holding a
    character text cannot) is recorded in `errors` under `name` (its message names `label`,
    else `name`) and comes back as sent when the page can show it again, never cut; the caller
    records nothing while `errors` holds anything."""
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


# --- Schemas: one declaration reads a form's QueryDict and a JSON object alike -----------------


def _one(data: Mapping, name: str) -> object:
    """The field's value: a form's last value for the name, or a JSON object's member."""
    return data.get(name)


def _many(data: Mapping, name: str) -> object:
    """The field's values: every value a form sent for the name, or a JSON object's member."""
    if hasattr(data, "getlist"):
        return data.getlist(name)
    return data.get(name)


@dataclass(frozen=True)
class Text:
    """Text of at most `max_length` characters: longer is refused, never cut (a refused form
    keeps it, `parse_fields`)."""

    max_length: int
    default: str = ""

    def read(self, data: Mapping, name: str) -> str:
        return parse_text(
            _one(data, name), field=name, max_length=self.max_length, default=self.default
        )


@dataclass(frozen=True)
class Int:
    min: int = 0
    max: int = MAX_ID
    default: int | None = None

    def read(self, data: Mapping, name: str) -> int | None:
        return parse_int(
            _one(data, name), field=name, min=self.min, max=self.max, default=self.default
        )


@dataclass(frozen=True)
class Ids:
    max_items: int = MAX_ITEMS

    def read(self, data: Mapping, name: str) -> list[int]:
        return parse_id_list(_many(data, name), field=name, max_items=self.max_items)


@dataclass(frozen=True)
class Flag:
    def read(self, data: Mapping, name: str) -> bool:
        return parse_flag(_one(data, name), field=name)


@dataclass(frozen=True)
class Strings:
    """A list of short strings (e.g. ticked criteria)."""

    max_length: int = 64
    max_items: int = MAX_ITEMS

    def read(self, data: Mapping, name: str) -> list[str]:
        values = _many(data, name)
        if values is None:
            return []
        if not isinstance(values, list | tuple) or len(values) > self.max_items:
            raise BadInput(
                f"{name}: expected a list of at most {self.max_items} strings.", field=name
            )
        return [parse_text(v, field=name, max_length=self.max_length) for v in values]


@dataclass(frozen=True)
class Object:
    """A JSON object member (e.g. the draft of an autosave), read by its own schema later."""

    def read(self, data: Mapping, name: str) -> dict:
        value = data.get(name)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise BadInput(f"{name}: expected an object, got {_shown(value)}.", field=name)
        return value


Field = Text | Int | Ids | Flag | Strings | Object

# The item's version a work page was opened at (a submission or a draft from an older page is
# refused as stale); every work page's form and autosave reads it so.
VERSION: dict[str, Field] = {"version": Int()}


def parse_fields(
    data: object, schema: Mapping[str, Field], *, errors: dict[str, str] | None = None
) -> dict[str, Any]:
    """Every field of the schema, read from a form's QueryDict or a JSON object (members the
    schema does not name are ignored; missing ones take their default). A bad value raises
    BadInput; with `errors`, it is recorded there instead (field -> message) and the field
    keeps the text as sent when it was refused for its length (else it takes its default), so
    a refused form comes back with everything that was typed; the caller records nothing while
    `errors` holds anything."""
    if not isinstance(data, Mapping):
        if errors is None:
            raise BadInput(f"Expected an object of fields, got {_shown(data)}.")
        errors[""] = f"Expected an object of fields, got {_shown(data)}."
        data = {}
    values: dict[str, Any] = {}
    for name, field in schema.items():
        try:
            values[name] = field.read(data, name)
        except BadInput as exc:
            if errors is None:
                raise
            errors[name] = exc.message
            kept = exc.kept if isinstance(field, Text) else None
            values[name] = kept if kept is not None else field.read({}, name)
    return values


def draft_ids(draft: object, *names: str) -> set[int]:
    """The ids a draft kept on an item lists under `names` (a draft is request data, kept: read
    by the same rules, what is not an id left out)."""
    fields = parse_fields(draft or {}, dict.fromkeys(names, Ids()), errors={})
    return {pk for name in names for pk in fields[name]}


def parse_json_body(
    request: HttpRequest, schema: Mapping[str, Field], *, max_bytes: int = MAX_JSON_BYTES
) -> dict[str, Any]:
    """A JSON object body, at most `max_bytes`, read by `schema` (an empty body is `{}`)."""
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
    return parse_fields(data, schema)
