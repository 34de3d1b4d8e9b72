"""The cached bodies of the work pages' elements (issue 49, annotation/fragments.py): the blind
page after the writer's shows no mark and is served from the cache, an element rewritten in
place shows its new text at once, the writer's reference links stay on the writer's view, and
a failing cache costs the cache, not the page."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.test import Client, override_settings
from django.urls import reverse

from annotation import fragments
from annotation.assignment import services as assignment_services
from annotation.models import Claim, ClaimPair, WorkItem
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import services as writing_services
from papers.models import Element
from tests.annotation.claim_factories import curated_paper, pair_fields, submit
from tests.annotation.review_factories import crew
from tests.validation.factories import Team, add_images, second_annotate

pytestmark = pytest.mark.django_db


class CountingCache(LocMemCache):
    """Django's in-memory cache, recording what the pages asked of it and what it answered."""

    asked: list[set[str]] = []
    answered: list[dict[str, object]] = []
    stored: dict[str, object] = {}

    def get_many(self, keys, version=None):
        found = super().get_many(keys, version)
        type(self).asked.append(set(keys))
        type(self).answered.append(found)
        return found

    def set_many(self, data, timeout=None, version=None):
        type(self).stored.update(data)
        return super().set_many(data, timeout, version)


class BrokenCache(LocMemCache):
    """A cache whose server is gone, as Redis down answers: every read and write raises."""

    def get_many(self, keys, version=None):
        raise ConnectionError("the cache server is gone")

    def set_many(self, data, timeout=None, version=None):
        raise ConnectionError("the cache server is gone")


class UnwritableCache(LocMemCache):
    """A cache that answers reads and fails writes (a Redis out of memory refuses them)."""

    def set_many(self, data, timeout=None, version=None):
        raise ConnectionError("OOM command not allowed when used memory > 'maxmemory'")


def caches(backend: type, location: str) -> dict:
    # A LOCATION of its own: LocMem stores outlive a test, and this one starts empty.
    return {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "fragments": {"BACKEND": f"{__name__}.{backend.__name__}", "LOCATION": location},
    }


@pytest.fixture
def counting():
    CountingCache.asked, CountingCache.answered, CountingCache.stored = [], [], {}
    with override_settings(CACHES=caches(CountingCache, "fragment-cache-tests")):
        from django.core import cache

        cache.caches["fragments"].clear()
        yield CountingCache


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def get(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def ev_items(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<div class="ev-item[^"]*" data-ev="(\d+)"', html)]


@dataclass
class Writing:
    """A writer holding a claim task's item, their draft marking the evidence the pair will be
    submitted with, and their page as it showed."""

    writer: object
    item: WorkItem
    client: Client
    evidence: list[int]
    page: str = ""

    def url(self, name: str = "annotation:write") -> str:
        return reverse(name, args=[self.item.key])

    def submit(self) -> ClaimPair:
        return submit(self.item, self.writer, evidence_ids=self.evidence)


def writing(writer, admin, *, seed: int) -> Writing:
    paper, _ = curated_paper(admin)
    add_images(paper)
    assignment_services.assign_papers(papers=[paper], experts=[writer], assigned_by=admin)
    writing_services.create_claim_tasks(paper=paper, by=writer, count=1, seed=seed)
    item = work.next_item(user=writer, kind="write")
    found = Writing(writer, item, client_for(writer), pair_fields(item)["evidence_ids"])
    saved = found.client.post(
        found.url("annotation:save_draft"),
        json.dumps({"version": item.version, "draft": {"evidence": found.evidence}}),
        content_type="application/json",
    )
    assert saved.status_code == 200
    found.page = get(found.client, found.url())
    return found


# What an evidence mark looks like on any page: a ticked box, a selected element, a W/A badge.
MARKS = (" checked", " selected", "mark-W", "mark-S", "mark-A")


def test_the_blind_page_after_the_writers_shows_no_mark_and_comes_from_the_cache(counting):
    """The issue's blindness test: the writer's page, with its evidence ticked, renders first;
    then each claim's blind page. Neither shows a mark, a claim's key or the paired claim's text,
    and the second blind page takes every body from the cache the first filled."""
    c = crew("wren", "ann", "bob")
    w = writing(c["wren"], c["boss"], seed=7)
    # The writer's page carries the marks: the test would prove nothing otherwise.
    assert w.evidence and all(
        f'name="evidence" value="{pk}" form="writing" checked' in w.page for pk in w.evidence
    )
    assert ' selected"' in w.page or " selected " in w.page
    assert ' class="ref" href="#ev-' in w.page  # the writer's view links references
    assert counting.stored, "the writer's page stored no body"
    pair = w.submit()
    claims = {claim.label: claim for claim in Claim.objects.filter(pair=pair)}
    assert set(claims["entailed"].evidence.values_list("pk", flat=True)) == set(w.evidence)

    pages = {}
    for name in ("ann", "bob"):
        item = review.take_next(user=c[name], kind="evidence")
        before = len(counting.asked)
        html = get(client_for(c[name]), reverse("annotation:annotate", args=[item.key]))
        assert len(counting.asked) == before + 1, "one get_many a page"
        pages[item.claim.label] = (html, counting.asked[-1], counting.answered[-1])
    assert set(pages) == {"entailed", "refuted"}

    for label, (html, asked, _) in pages.items():
        other = claims["refuted" if label == "entailed" else "entailed"]
        shown = ev_items(html)
        assert set(w.evidence) <= set(shown) and len(asked) <= len(shown)
        for mark in MARKS:
            assert mark not in html, (label, mark)
        for claim in claims.values():
            assert claim.key not in html
        assert other.text not in html
        assert ' class="ref"' not in html  # the writer's reference links stay on its view
        for element in Element.objects.filter(pk__in=shown, kind="paragraph"):
            assert f'<p class="ev-text" data-math>{element.text}</p>' in html
    # The first blind page missed (the writer's view is another key) and stored the review
    # view's bodies; the second found every one of them there.
    first, second = sorted(pages.values(), key=lambda page: len(page[2]))
    assert first[2] == {}
    assert second[2] and set(second[2]) == second[1]
    for body in [*second[2].values(), *counting.stored.values()]:
        for mark in (*MARKS, "ev-item", "<input", "data-ev"):
            assert mark not in body, (mark, body)
        for claim in claims.values():
            assert claim.key not in body and claim.text not in body


def test_an_element_rewritten_in_place_shows_its_new_text_and_references_at_once(counting):
    """A reparse rewrites elements in place (same ids): the next page shows the new text, the
    new caption and a reference's new label, never a body cached under the old ones."""
    c = crew("wren")
    w = writing(c["wren"], c["boss"], seed=3)
    html, shown = w.page, ev_items(w.page)
    paragraph = (
        Element.objects.filter(pk__in=shown, kind="paragraph", references__isnull=False)
        .distinct()
        .first()
    )
    target = paragraph.references.first()
    table = Element.objects.filter(pk__in=shown).exclude(kind="paragraph").first()
    assert paragraph.text in html and f"→ {target.label}</a>" in html
    assert f"{table.caption}</figcaption>" in html
    keys = {
        e.pk: fragments.key(fragments.WRITER, fragments.shown(e, fragments.WRITER))
        for e in (paragraph, table)
    }

    Element.objects.filter(pk=paragraph.pk).update(text="Rewritten: a BLEU of 99.9.")
    Element.objects.filter(pk=table.pk).update(caption="A caption rewritten by the parser.")
    Element.objects.filter(pk=target.pk).update(label="Table 42")
    again = get(w.client, w.url())
    assert "Rewritten: a BLEU of 99.9." in again and paragraph.text not in again
    assert "A caption rewritten by the parser.</figcaption>" in again
    assert f"{table.caption}</figcaption>" not in again
    assert f'href="#ev-{target.pk}">→ Table 42</a>' in again
    for e in Element.objects.filter(pk__in=keys).prefetch_related("references"):
        assert fragments.key(fragments.WRITER, fragments.shown(e, fragments.WRITER)) != keys[e.pk]
    # Only what changed was rendered again: the other bodies came from the cache.
    assert counting.answered[-1] and len(counting.answered[-1]) < len(counting.asked[-1])


def test_each_view_has_its_own_bodies(counting):
    """The same paragraph, cached on the writer's view with its reference links (the writer's
    whole context), is another body on the validation page: the key holds the view."""
    team = Team()
    w = writing(team.writer, team.admin, seed=1)
    context = get(w.client, w.url("annotation:write_context"))
    pair = w.submit()
    for annotator in (team.second, team.third):
        taken = review.take_next(user=annotator, kind="evidence")
        second_annotate(taken, annotator, label=taken.claim.label, evidence=w.evidence)
    linked = re.search(r'<p class="ev-text" data-math>([^<]+) <a class="ref"', context)
    assert linked, "no paragraph with a reference link in the writer's whole context"
    item = work.next_item(user=team.validators[0], kind="validate")
    html = get(client_for(team.validators[0]), reverse("validation:validate", args=[item.key]))
    assert f"<p data-math>{linked.group(1)}</p>" in html
    assert ' class="ref"' not in html and "ev-text" not in html
    paragraph = Element.objects.get(paper=pair.paper, text=linked.group(1))
    assert len({fragments.key(v, fragments.shown(paragraph, v)) for v in fragments.VIEWS}) == 3


@pytest.mark.parametrize("backend", [BrokenCache, UnwritableCache])
def test_a_failing_cache_still_renders_the_pages_and_says_so(caplog, backend):
    """A cache that fails costs the cache, not the page: the bodies are rendered without it
    and a warning with the error is logged, one a page (a failed read skips the write)."""
    caplog.set_level("WARNING", logger="annotation.fragments")
    with override_settings(CACHES=caches(backend, f"fragment-cache-{backend.__name__}")):
        check_a_failing_cache(caplog)


def check_a_failing_cache(caplog) -> None:
    c = crew("wren", "ann")
    w = writing(c["wren"], c["boss"], seed=2)
    w.submit()
    item = review.take_next(user=c["ann"], kind="evidence")
    blind = get(client_for(c["ann"]), reverse("annotation:annotate", args=[item.key]))
    for html in (w.page, blind):
        shown = ev_items(html)
        assert shown
        for element in Element.objects.filter(pk__in=shown):
            if element.kind == "paragraph":
                assert f'<p class="ev-text" data-math>{element.text}' in html
            else:
                assert f"<strong>{element.display_name}</strong>" in html
    failed = [r for r in caplog.records if r.name == "annotation.fragments"]
    assert len(failed) == 2  # one a page
    assert all(r.levelname == "WARNING" and r.exc_info for r in failed)


def test_the_key_holds_the_body_templates_source():
    """A changed body template gets other keys (a shared Redis never serves the old bodies):
    the digest is the template file's source as it is now."""
    from django.conf import settings

    source = (settings.BASE_DIR / "templates" / fragments.TEMPLATE).read_bytes()
    assert fragments.template_digest() == hashlib.blake2b(source, digest_size=8).hexdigest()
    fields = {"paragraph": True, "text": "A paragraph.", "refs": []}
    assert fragments.key(fragments.REVIEW, fields) == fragments.key(
        fragments.REVIEW, fields, fragments.template_digest()
    )
    assert fragments.key(fragments.REVIEW, fields, "1") != fragments.key(
        fragments.REVIEW, fields, "2"
    )
