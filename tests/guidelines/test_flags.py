"""Flags: who may flag what (the item's holder or submitter, an element its page shows), that a
blind annotator's flag page shows nobody else's flags on the claim, and that only admins fix,
each fix recorded with who, when, what, before and after."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import CuratedElement, WorkKind
from annotation.review import services as review
from guidelines import services
from guidelines.models import FixAction, Flag, FlagFix, FlagStatus
from papers.models import Element, Paper
from tests.annotation.review_factories import annotate, crew, written_pair
from tests.factories import UserFactory
from tests.guidelines.flags import _shown

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    people = crew("writer", "second", "third")
    pair = written_pair(people["writer"], people["boss"])
    return people, pair


def test_the_holder_flags_an_element_or_the_item_and_nobody_else_may(setup, client) -> None:
    people, pair = setup
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    table = next(e for e in _shown(item) if e.kind == "table")
    url = reverse("guidelines:flag_item", args=[item.key])
    client.force_login(people["second"])
    assert client.get(url).status_code == 200
    response = client.post(
        url, {"kind": "extraction", "note": "cells shifted", "element": str(table.pk)}
    )
    assert response.status_code == 302
    client.post(url, {"kind": "unclear", "note": "which model?", "element": ""})
    flags = Flag.objects.order_by("id")
    assert [(f.kind, f.element_id, f.item_id, f.by) for f in flags] == [
        ("extraction", table.pk, item.pk, people["second"]),
        ("unclear", None, item.pk, people["second"]),
    ]
    # An element that is not on this page (another paper's, or one the curator removed).
    other = written_pair(people["writer"], people["boss"], seed=2)
    foreign = Element.objects.filter(paper=other.paper).first()
    bad = client.post(url, {"kind": "unsure", "note": "x", "element": str(foreign.pk)})
    assert bad.status_code == 400 and "not shown on this task" in bad.content.decode()
    removed = CuratedElement.objects.filter(context=item.pair.context).first()
    CuratedElement.objects.filter(pk=removed.pk).update(in_context=False)
    assert (
        client.post(
            url, {"kind": "unsure", "note": "x", "element": str(removed.element_id)}
        ).status_code
        == 400
    )
    assert client.post(url, {"kind": "bogus", "note": "x"}).status_code == 400
    assert client.post(url, {"kind": "unsure", "note": "  "}).status_code == 400
    assert Flag.objects.count() == 2
    # Not the holder: the same 404 as an item that does not exist (nothing to learn).
    for name in ("third", "writer", "boss"):
        client.force_login(people[name])
        assert client.get(url).status_code == 404
        assert client.post(url, {"kind": "unsure", "note": "x"}).status_code == 404
    with pytest.raises(services.GuidelineError):
        services.raise_flag(user=people["third"], kind="unsure", note="x", item=item)
    assert Flag.objects.count() == 2


def test_a_blind_annotators_flag_page_shows_only_their_own_flags(setup, client) -> None:
    people, pair = setup
    write = pair.work_items.get(kind=WorkKind.WRITE)
    services.raise_flag(
        user=people["writer"], kind="extraction", note="WRITER-SAYS-REFUTED", item=write
    )
    done = annotate(people["second"])  # submitted: still theirs to flag
    services.raise_flag(user=people["second"], kind="unsure", note="SECOND-ON-HIS-CLAIM", item=done)
    item = review.take_next(user=people["third"], kind=WorkKind.BLIND)
    client.force_login(people["third"])
    page = client.get(reverse("guidelines:flag_item", args=[item.key])).content.decode()
    assert "WRITER-SAYS-REFUTED" not in page and "SECOND-ON-HIS-CLAIM" not in page
    services.raise_flag(user=people["third"], kind="unsure", note="MINE", item=item)
    assert "MINE" in client.get(reverse("guidelines:flag_item", args=[item.key])).content.decode()
    # The queue is the admins': all three, with links; an expert is refused.
    assert client.get(reverse("guidelines:queue")).status_code == 403
    client.force_login(people["boss"])
    queue = client.get(reverse("guidelines:queue")).content.decode()
    assert all(n in queue for n in ("WRITER-SAYS-REFUTED", "SECOND-ON-HIS-CLAIM", "MINE"))
    for f in Flag.objects.all():
        assert reverse("guidelines:flag", args=[f.pk]) in queue


def test_only_admins_fix_and_every_fix_is_recorded(setup, client, settings) -> None:
    settings.USE_CHROMIUM = False  # re-rendering draws with Pillow: no browser needed
    people, pair = setup
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    table = next(e for e in _shown(item) if e.kind == "table")
    flag = services.raise_flag(
        user=people["second"], kind="extraction", note="caption cut", item=item, element_id=table.pk
    )
    url = reverse("guidelines:flag", args=[flag.pk])
    old_caption = table.caption
    for who in (people["second"], UserFactory()):
        client.force_login(who)
        assert client.post(url, {"action": "edit", "caption": "hacked"}).status_code == 403
        with pytest.raises(services.GuidelineError, match="Only admins"):
            services.edit_flagged_element(flag=flag, by=who, caption="hacked")
    table.refresh_from_db()
    assert table.caption == old_caption and not FlagFix.objects.exists()
    client.force_login(people["boss"])
    assert (
        client.post(
            url, {"action": "edit", "caption": "Table 1: BLEU and F1 on WMT.", "note": "restored"}
        ).status_code
        == 302
    )
    assert client.post(url, {"action": "mark", "note": "merged header cells"}).status_code == 302
    assert client.post(url, {"action": "dismissed", "note": ""}).status_code == 400
    assert client.post(url, {"action": "fixed", "note": "done"}).status_code == 302
    assert client.post(url, {"action": "fixed", "note": "again"}).status_code == 400
    table.refresh_from_db()
    assert table.caption == "Table 1: BLEU and F1 on WMT." and table.degraded
    assert "flagged: merged header cells" in table.degraded_reasons
    fixes = list(FlagFix.objects.order_by("id"))
    assert [(x.action, x.by) for x in fixes] == [
        (FixAction.CAPTION, people["boss"]),
        (FixAction.MARKED, people["boss"]),
        (FixAction.FIXED, people["boss"]),
    ]
    assert fixes[0].before == {"caption": old_caption}
    assert fixes[0].after == {"caption": "Table 1: BLEU and F1 on WMT."}
    assert all(x.at for x in fixes)
    flag.refresh_from_db()
    assert flag.status == FlagStatus.FIXED
    page = client.get(url).content.decode()
    assert "edited the caption" in page and "restored" in page
    # Re-rendering the table: an admin's, recorded with the image it made.
    Paper.objects.filter(pk=table.paper_id).update(media_dir="papers/flagged-v1")
    with pytest.raises(services.GuidelineError):
        services.rerender_flagged_element(flag=flag, by=people["second"])
    fix = services.rerender_flagged_element(flag=flag, by=people["boss"])
    table.refresh_from_db()
    assert fix.action == FixAction.RERENDERED and fix.by == people["boss"] and table.image.name
    assert fix.after["image"] == table.image.name and fix.after["renderer"] == "pillow"
