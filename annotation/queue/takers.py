"""Who an admin may hand a waiting item to (*Allow someone*): the active experts the blindness
rule lets take it, judged by the queue's own rule (`work`'s refusal, called, not restated), so
the list offers nobody `allow_expert` would then refuse."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser

from annotation.experts import selectors as expert_selectors
from annotation.models import Subfield, WorkItem
from annotation.queue import work


@dataclass
class Takers:
    """For one item: the experts who may take it, and the others with why not."""

    allowed: list[AbstractBaseUser] = field(default_factory=list)
    refused: list[tuple[AbstractBaseUser, str]] = field(default_factory=list)


def takers(
    items: Iterable[WorkItem], experts: Sequence[AbstractBaseUser] | None = None
) -> dict[int, Takers]:
    """Per item (by pk), which of `experts` (default: every active expert) may take it, in a
    fixed number of queries whatever the number of items."""
    items = list(items)
    if experts is None:
        experts = list(expert_selectors.experts(active_only=True).select_related(None))
    roles, pending = work.pair_roles(i.pair_id for i in items)
    shared = set(
        Subfield.objects.filter(shared_second_annotator=True).values_list("code", flat=True)
    )
    found: dict[int, Takers] = {}
    for item in items:
        who = found.setdefault(item.pk, Takers())
        for expert in experts:
            # The rule as `work.refusal_for` applies it, over the roles read once for all items.
            why = (
                work._refusal(
                    item,
                    expert.pk,
                    roles[item.pair_id],
                    pending[item.pair_id],
                    item.subfield_code in shared,
                )
                if item.pair_id
                else ""
            )
            if why:
                who.refused.append((expert, why))
            else:
                who.allowed.append(expert)
    return found
