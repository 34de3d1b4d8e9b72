"""Blindness against a curious second annotator, tested from outside.

The differential test builds the same pair twice from one seed (same database ids: sequences
are reset and each world is rolled back), once with the annotator holding the entailed claim
and once the refuted one. As that annotator it fetches every page, fragment, image, CSV and
redirect reachable from the item, and every neighbouring identifier; after the claim's text,
the opaque keys and what changes with the clock are replaced by placeholders, both worlds must
answer byte for byte alike. The three-expert test takes SciVer's usual subfield (a writer and
two colleagues) from writing to validation under the strict rule."""

from __future__ import annotations

import html
import re
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
from django.apps import apps
from django.core.management.color import no_style
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone

from annotation.models import Claim, ClaimPair, EvidenceAnnotation, PairRole, WorkItem
from annotation.queue import work
from annotation.review import services as review
from tests.annotation.factories import make_expert
from tests.annotation.review_factories import FLIP, adjudicate, annotate, crew, written_pair
from tests.validation.factories import add_images, pass_validation
from validation import services as validation

pytestmark = pytest.mark.django_db

SEED = 7
# What differs between two builds for reasons that have nothing to do with the label.
CLOCK = [
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:?\d{2}|Z)?"), "<DT>"),
    (re.compile(r"\b\d{1,2}:\d{2}(:\d{2})?\b"), "<TIME>"),
    (re.compile(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2}\b"), "<DATE>"),
]
SECRETS = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"'), 'name="csrfmiddlewaretoken"'),
    (re.compile(r'"X-CSRFToken": "[^"]+"'), '"X-CSRFToken"'),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<UUID>"),
]
LINKS = re.compile(r'(?:href|src|hx-get|data-draft-url|action)="(/[^"#]*)"')
SKIP = ("/static/", "/accounts/logout", "/admin/")
HEADERS = ("Content-Type", "Location", "Content-Disposition", "Cache-Control", "X-Frame-Options")


def reset_sequences() -> None:
    """Next ids from the rows there are (PostgreSQL's sequences survive a rollback; SQLite's
    AUTOINCREMENT counters roll back with it, so there is nothing to do)."""
    tables = set(connection.introspection.table_names())
    models = [m for m in apps.get_models() if m._meta.managed and m._meta.db_table in tables]
    statements = connection.ops.sequence_reset_sql(no_style(), models)
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


@dataclass
class World:
    label: str  # the label of the claim the annotator holds
    answers: dict[str, tuple] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)  # every body, normalised
    forbidden: dict[str, str] = field(default_factory=dict)  # what must never appear


def build_and_fetch(label: str) -> World:
    world = World(label)
    reset_sequences()
    sid = transaction.savepoint()
    try:
        c = crew("wren", "ann", "bob")
        pair = written_pair(c["wren"], c["boss"], seed=SEED)
        add_images(pair.paper)
        items = {i.claim.label: i for i in pair.work_items.filter(kind="evidence")}
        # bob holds the other claim (named for it, so the queue is the same in both worlds):
        # ann's Next leaves her the claim of `label`.
        work.assign(items[FLIP[label]], c["bob"].pk, actor=c["boss"])
        review.take_next(user=c["bob"], kind="evidence")
        mine = items[label].claim
        other = items[FLIP[label]].claim
        world.forbidden = {
            "the paired claim": other.text,
            "its explanation": (mine.explanation or other.explanation),
            "the writer's name": "wren",
        }
        names = placeholders(pair, mine)
        ann = Client()
        ann.force_login(c["ann"])
        fetch(world, ann, names, mine)
    finally:
        transaction.savepoint_rollback(sid)
    return world


def placeholders(pair: ClaimPair, mine: Claim) -> dict[str, str]:
    """Each opaque key of the world, and what stands for it (its role, never its label)."""
    names = {
        pair.key: "<pair>",
        pair.paper.versioned_id: "<paper>",
        pair.paper.arxiv_id: "<arxiv-id>",
    }
    for claim in Claim.objects.filter(pair=pair):
        names[claim.key] = "<claim:held>" if claim.pk == mine.pk else "<claim:other>"
    for item in WorkItem.objects.filter(paper=pair.paper):
        side = "write" if item.claim_id is None else "held" if item.claim_id == mine.pk else "other"
        names[item.key] = f"<item:{item.kind}:{side}>"
    return names


def normalise(text: str, names: dict[str, str], mine: Claim) -> str:
    for raw in (html.escape(mine.text), mine.text):
        text = text.replace(raw, "<CLAIM>")
    for key in sorted(names, key=len, reverse=True):
        text = text.replace(key, names[key])
    for pattern, stand_in in CLOCK + SECRETS:
        text = pattern.sub(stand_in, text)
    return text


def answer(client: Client, method: str, url: str, **kwargs):
    response = getattr(client, method)(url, **kwargs)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response, body


def fetch(world: World, ann: Client, names: dict[str, str], mine: Claim) -> None:
    keys = {k: v for k, v in names.items() if v.startswith("<item") or v[1:6] in ("claim", "pair>")}

    def record(method: str, url: str, **kwargs) -> str:
        response, body = answer(ann, method, url, **kwargs)
        try:
            text = body.decode()
        except UnicodeDecodeError:
            text = f"<{len(body)} bytes: {hash(body)}>"
        text = normalise(text, names, mine)
        headers = tuple((h, normalise(response.get(h, ""), names, mine)) for h in HEADERS)
        world.answers[f"{method} {normalise(url, names, mine)}"] = (
            response.status_code,
            headers,
            text,
        )
        world.texts.append(body.decode(errors="replace"))
        return body.decode(errors="replace")

    # The annotator takes her claim as she would: Next, then the redirect.
    start = ann.post("/review/annotate/next/")
    assert start.status_code == 302 and "/review/annotate/" in start.url
    queue = [
        start.url,
        "/",
        "/agreement/",
        "/agreement.csv",
        "/papers/",
        "/manage/review/",
        f"/papers/{mine.pair.paper.versioned_id}/",
        f"/curate/{mine.pair.paper.versioned_id}/",
    ]
    queue = [(url, True) for url in queue]
    queued = {url for url, _ in queue}
    seen: set[str] = set()

    def push(url: str, found_by_link: bool) -> None:
        if url not in queued and not url.startswith(SKIP):
            queued.add(url)
            queue.append((url, found_by_link))

    while queue:
        url, found_by_link = queue.pop(0)
        seen.add(url)
        body = record("get", url)
        for link in LINKS.findall(body):
            push(html.unescape(urlsplit(link).path), True)
        if not found_by_link:
            continue
        # Neighbouring identifiers: every other key of the world in the same place.
        for key in keys:
            if key in url:
                for other in keys:
                    push(url.replace(key, other), False)
        # And the element ids around each image.
        found = re.search(r"^(.*/images/)(\d+)/$", url)
        if found:
            for delta in (-2, -1, 1, 2):
                push(f"{found.group(1)}{int(found.group(2)) + delta}/", False)
    # Sequential ids, as they used to be in the URLs, name nothing any more.
    for item in WorkItem.objects.filter(paper=mine.pair.paper):
        for pk in (item.pk - 1, item.pk, item.pk + 1):
            record("get", f"/review/annotate/{pk}/")
    # Writes to what she never held: the draft and the submission of every other item.
    body = '{"version": 1, "draft": {"label": "entailed"}}'
    for key, name in keys.items():
        if name.startswith("<item"):
            record(
                "post", f"/review/items/{key}/draft/", data=body, content_type="application/json"
            )
            record(
                "post",
                f"/review/annotate/{key}/",
                data={"token": str(uuid.uuid4()), "label": "entailed"},
            )
    assert len(seen) > 20  # the crawl reached the item's page, fragments and images


def test_nothing_the_annotator_can_fetch_differs_with_the_label_of_her_claim():
    entailed = build_and_fetch("entailed")
    refuted = build_and_fetch("refuted")
    assert entailed.answers.keys() == refuted.answers.keys()
    differ = [url for url in entailed.answers if entailed.answers[url] != refuted.answers[url]]
    assert not differ, differ
    statuses = {code for code, _, _ in entailed.answers.values()}
    assert {200, 404} <= statuses  # pages she may open, and one answer for all she may not
    # The 404 is one answer: an item she never held reads like a key that names nothing.
    not_found = {text for code, _, text in entailed.answers.values() if code == 404}
    assert len(not_found) == 1
    for world in (entailed, refuted):
        for what, text in world.forbidden.items():
            assert text and not any(text in body for body in world.texts), what


def test_three_experts_take_a_subfield_from_writing_to_validation():
    """SciVer's usual subfield: wren writes; ann and bob annotate one claim each, blind; each
    adjudicates and validates the claim they did not annotate. An adjudicated claim has used up
    all three (written, annotated, adjudicated): its validation waits, visibly, for an admin's
    recorded cross-subfield override. Nobody ever holds both claims blind."""
    c = crew("wren", "ann", "bob")
    pair = written_pair(c["wren"], c["boss"], seed=SEED)
    first = annotate(c["ann"], flip=True)  # disagrees with the writer: adjudication
    with pytest.raises(work.NothingToDo):  # ann may not see the other claim blind
        review.take_next(user=c["ann"], kind="evidence")
    second = annotate(c["bob"])
    assert first.claim_id != second.claim_id
    assert work.waiting_items()[0] == 0
    with pytest.raises(work.NothingToDo):  # ann annotated the disputed claim herself
        review.take_next(user=c["ann"], kind="adjudicate")
    decided = adjudicate(c["bob"])
    assert decided.claim_id == first.claim_id
    validated = {}

    def validate_all(person) -> None:
        while True:
            try:
                item = validation.take_next(user=person)
            except work.NothingToDo:
                return
            pass_validation(item, person)
            validated[item.claim.pk] = person.username

    validate_all(c["ann"])
    validate_all(c["bob"])
    assert set(validated) == {second.claim_id}  # ann validates bob's claim
    total, waiting = work.waiting_items()
    assert total == 1 and waiting[0].item.claim_id == first.claim_id
    assert waiting[0].reason == (
        "nobody eligible for cs.CL may take it (ann annotated this claim; bob adjudicated this "
        "claim; wren wrote the pair)"
    )
    olga = make_expert("olga", ("cs.CV",))
    admin = Client()
    admin.force_login(c["boss"])
    page = admin.get("/manage/validation/").content.decode()
    assert f'action="/manage/review/items/{waiting[0].item.key}/allow/"' in page
    admin.post(
        f"/manage/review/items/{waiting[0].item.key}/allow/",
        {"expert": olga.pk, "note": "cs.CL has no fourth expert"},
    )
    validate_all(olga)
    assert validated == {second.claim_id: "ann", first.claim_id: "olga"}
    assert work.waiting_items()[0] == 0
    # Who did what: never two of write / annotate / adjudicate / validate on one claim.
    for claim in Claim.objects.filter(pair=pair):
        people = [
            "wren",
            EvidenceAnnotation.objects.get(claim=claim).annotator.username,
            *PairRole.objects.filter(claim=claim, role="adjudicator").values_list(
                "expert__username", flat=True
            ),
            validated[claim.pk],
        ]
        assert len(people) == len(set(people)), (claim.label, people)
    blind = PairRole.objects.filter(pair=pair, role="evidence")
    assert blind.count() == 2 and len({r.expert_id for r in blind}) == 2


def test_an_image_is_served_only_for_the_items_curated_context():
    """One image rule at every stage: the holder of a review or validation item gets an
    element's image only for an element of the item's curated context."""
    from annotation.models import CuratedElement
    from tests.validation.factories import Team, final_pair

    team = Team()
    pair, _ = final_pair(team)
    item = validation.take_next(user=team.validators[0])
    visuals = list(
        CuratedElement.objects.filter(
            context=pair.context, in_context=True, element__kind__in=["table", "chart"]
        ).values_list("element_id", flat=True)
    )
    kept, removed = visuals[0], visuals[-1]
    CuratedElement.objects.filter(context=pair.context, element_id=removed).update(in_context=False)
    validator = Client()
    validator.force_login(team.validators[0])
    assert validator.get(f"/validate/{item.key}/images/{kept}/").status_code == 200
    assert validator.get(f"/validate/{item.key}/images/{removed}/").status_code == 404


def test_an_item_held_and_lost_says_why_and_nothing_else():
    c = crew("wren", "ann", "bob", "cy")
    written_pair(c["wren"], c["boss"], seed=SEED)
    item = review.take_next(user=c["ann"], kind="evidence")
    review.take_next(user=c["cy"], kind="evidence")  # the pair's other claim
    WorkItem.objects.filter(pk=item.pk).update(lease_expires_at=timezone.now())
    assert review.take_next(user=c["bob"], kind="evidence").pk == item.pk  # the only free one
    ann, cy = Client(), Client()
    ann.force_login(c["ann"])
    cy.force_login(c["cy"])
    lost = ann.get(f"/review/annotate/{item.key}/")
    assert lost.status_code == 403 and "your lease ran out" in lost.content.decode()
    assert item.claim.text not in lost.content.decode()
    never = cy.get(f"/review/annotate/{item.key}/")
    nothing = cy.get(f"/review/annotate/{'A' * 22}/")
    assert never.status_code == nothing.status_code == 404
    assert never.content == nothing.content
