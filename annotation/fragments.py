"""Cached bodies of the elements the work pages show (issue 49).

An element on a work page is a viewer-dependent wrapper (its box and whether it is ticked, the
W/S marks, its image through the item's route) around a body that depends on nothing but the
element and the stage's view: a paragraph's text (with, on the writer's view, its reference
links), a table's or chart's caption under its name. Only the body is cached, in the
"fragments" cache (in each process's memory, whatever CACHE_URL says: a Redis round trip cost
more than the rendering it saved, docs/benchmarks.md), under a key that holds
everything that changes it: the view, a digest of the fields the body shows (read by `shown`,
the only thing the body template is given, so nothing else can reach it) and a digest of the
body template's source (a changed template never serves old fragments from a shared cache).
Element ids are not in the key: a reparse rewrites elements in place and test databases reuse
ids, while the same shown fields make the same body whatever the element.

Bodies are attached lazily (`attach`): a page builder that also serves the suggester or a
fragment's list of ids pays nothing, and the first body a template prints fetches all of the
page's bodies with one `get_many`, renders the misses and stores them with one `set_many`. A
cache that fails (Redis down) costs the cache, not the page: the bodies are rendered and a
warning is logged."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from typing import Any

from django.core.cache import caches
from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from papers.models import Element

logger = logging.getLogger(__name__)

TEMPLATE = "annotation/_element_body.html"
# The stages' views of an element's body. The writer's view links a paragraph's references
# (`→ Table 2`); the review pages (blind and adjudication) show the paragraph alone; the
# validation page shows a paragraph bare and of a table or chart only its caption (its name
# and the "sampled" badge stand in the wrapper, before it).
WRITER, REVIEW, VALIDATION = "writer", "review", "validation"
VIEWS = (WRITER, REVIEW, VALIDATION)
TIMEOUT = 7 * 24 * 3600  # a body never goes stale (its key is its content): this bounds memory
KEY_PREFIX = "element-body"
CACHE = "fragments"  # settings.CACHES' alias


def shown(element: Element, view: str) -> dict[str, Any]:
    """What the body of `element` shows on `view`, and all the body template is given."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}")
    if element.kind == Element.Kind.PARAGRAPH:
        refs = []
        if view == WRITER:
            refs = [[r.pk, r.label or r.anchor] for r in element.references.all()]
        return {"paragraph": True, "text": element.text, "refs": refs}
    return {"paragraph": False, "name": element.display_name, "caption": element.caption}


def template_digest() -> str:
    """A digest of the body template's source as the template loader holds it now: read once
    a page (hashing a few hundred bytes), so that a template changed under a running
    development server is not answered with bodies rendered from the old one."""
    # The Django backend's template keeps its source (the stubs know only `render`).
    source = get_template(TEMPLATE).template.source  # type: ignore[attr-defined]
    return hashlib.blake2b(source.encode(), digest_size=8).hexdigest()


def key(view: str, fields: dict[str, Any], template: str = "") -> str:
    """The cache key of a body: the view, the body template's digest (`template`, else read
    now) and a digest of the fields it shows."""
    digest = hashlib.blake2b(
        json.dumps(fields, sort_keys=True, ensure_ascii=False).encode(), digest_size=16
    ).hexdigest()
    return f"{KEY_PREFIX}:{view}:{template or template_digest()}:{digest}"


def bodies(elements: Iterable[Element], view: str) -> dict[int, SafeString]:
    """Each element's body on `view`, by element id: one `get_many`, the misses rendered from
    the body template, one `set_many`."""
    fields = {e.pk: shown(e, view) for e in elements}
    template_key = template_digest()
    keys = {pk: key(view, f, template_key) for pk, f in fields.items()}
    try:
        found = caches[CACHE].get_many(set(keys.values()))
    except Exception:
        logger.warning("Element bodies rendered without the cache: it failed", exc_info=True)
        found, keys = {}, {}  # nor written to it: a cache that failed a read is not asked again

    template = get_template(TEMPLATE)
    out: dict[int, SafeString] = {}
    missed: dict[str, str] = {}
    for pk, f in fields.items():
        k = keys.get(pk)
        if k in found:
            out[pk] = mark_safe(found[k])
            continue
        out[pk] = mark_safe(template.render({"b": f, "view": view}))
        if k is not None:
            missed[k] = str(out[pk])
    if missed:
        try:
            caches[CACHE].set_many(missed, TIMEOUT)
        except Exception:
            logger.warning("Element bodies not stored in the cache: it failed", exc_info=True)
    return out


class _Batch:
    """The bodies of one page's elements, fetched together when the first is printed."""

    def __init__(self, elements: list[Element], view: str):
        self.elements = elements
        self.view = view
        self.found: dict[int, SafeString] | None = None

    def body(self, pk: int) -> SafeString:
        if self.found is None:
            self.found = bodies(self.elements, self.view)
        return self.found[pk]


class Body:
    """An element's body as a template prints it (`{{ e.body }}`): safe HTML, fetched with the
    rest of its page's bodies on first use."""

    __slots__ = ("_batch", "_pk")

    def __init__(self, batch: _Batch, pk: int):
        self._batch, self._pk = batch, pk

    def __html__(self) -> SafeString:
        return self._batch.body(self._pk)

    __str__ = __html__


def attach(elements: Iterable[Element], view: str) -> None:
    """Give each element its `body` on `view` (nothing is read or rendered until printed)."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}")
    elements = list(elements)
    batch = _Batch(list({e.pk: e for e in elements}.values()), view)
    for element in elements:
        # An attribute of the page's copy, as the page builders' `section_title`.
        element.body = Body(batch, element.pk)  # type: ignore[attr-defined]
