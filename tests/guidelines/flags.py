"""Helpers of the guideline tests: what a flagged item's page shows."""

from __future__ import annotations

from annotation.models import CuratedElement
from papers.models import Element


def _shown(item) -> list[Element]:
    ids = CuratedElement.objects.filter(context=item.pair.context, in_context=True)
    return list(Element.objects.filter(pk__in=ids.values("element_id")).order_by("order"))
