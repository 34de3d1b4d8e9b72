"""How long each kind of free text may be, one limit per kind, held alike by a page's form, the
counter under its field (`data-max`, static/js/counter.js) and the service behind it (called by
a page, the API, a command or a script). Longer text is refused whole, naming the field and the
limit (`annotation.errors.too_long`), never cut, and nothing is recorded."""

from __future__ import annotations

from collections.abc import Iterable

from annotation.errors import AnnotationError, too_long

MAX_NOTE = 5000  # a note, a reason, an explanation, a suggestion, an adjudication's notes
MAX_CLAIM = 5000  # a claim's text, as written and as validated (its words are ruled too)
MAX_CONTEXT_NOTE = 2000  # what a curated context's new version changed
MAX_LINE_NOTE = 500  # a one-line note: an assignment's

# What the pages put on their fields (`data-max`): the limits the services refuse beyond.
LIMITS = {
    "note": MAX_NOTE,
    "claim": MAX_CLAIM,
    "context_note": MAX_CONTEXT_NOTE,
    "line_note": MAX_LINE_NOTE,
}

Texts = Iterable[tuple[str, str, int]]  # (field, text, limit)


def long_texts(texts: Texts) -> dict[str, str]:
    """Field -> why its text is refused, for each text longer than its limit (the limit and the
    length said); empty when every text fits."""
    return {
        field: problem for field, text, limit in texts if (problem := too_long(field, text, limit))
    }


def refuse_long(texts: Texts, *, nothing: str = "Nothing was recorded") -> None:
    """Refuse (AnnotationError, reason "too_long") when a text is longer than its limit, naming
    each such field with its limit and length after `nothing`: what the refusal left undone."""
    if problems := long_texts(texts):
        raise AnnotationError(f"{nothing}: " + " ".join(problems.values()), reason="too_long")


def text_limits(request: object) -> dict[str, dict[str, int]]:
    """A context processor: every page's template reads the limits (`text_limits.note`) for
    its fields' `data-max`."""
    return {"text_limits": LIMITS}
