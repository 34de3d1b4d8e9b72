"""Every URL, for every role: anonymous, annotator on their own paper, annotator on a paper
that is not theirs, admin. Media files included; a new URL fails the coverage test until it
is added here."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from annotation.assignment import services as assignment_services
from annotation.models import Publication, Subfield
from papers.models import CrawlRun, Element
from tests.annotation.factories import make_expert, make_paper, png
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "other", "own", "admin")  # mutating roles last


@dataclass
class World:
    paper: object
    users: dict[str, object]
    table: Element
    publication: Publication
    media: str
    other_media: str
    crawl_run: int
    # Work items, pairs and claims by their opaque keys (what URLs name them by).
    item: str = ""  # a claim task held by the annotator ("own")
    pair: str = ""  # a claim pair she wrote
    evidence_item: str = ""  # a second-annotation item of that pair
    claim: str = ""  # a claim of that pair
    reperturb_item: str = ""  # a new perturbation asked of her (that pair's refuted claim)

    @property
    def vid(self) -> str:
        return self.paper.versioned_id


@pytest.fixture
def world() -> World:
    alice = make_expert("alice")
    bob = make_expert("bob")
    admin = AdminFactory(username="boss")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    chart = Element.objects.filter(paper=paper, kind="chart").first()
    chart.image.name = default_storage.save(
        f"papers/{paper.versioned_id}/20241101T000000000000/x1.png", ContentFile(png())
    )
    chart.save(update_fields=["image"])
    other = make_paper()
    other_chart = Element.objects.filter(paper=other, kind="chart").first()
    other_chart.image.name = default_storage.save(
        f"papers/{other.versioned_id}/20241101T000000000000/x1.png", ContentFile(png())
    )
    other_chart.save(update_fields=["image"])
    from annotation.queue import work
    from annotation.writing import services as writing
    from tests.annotation.claim_factories import curated_paper, submit

    written, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[written], experts=[alice], assigned_by=admin)
    writing.create_claim_tasks(paper=written, by=alice, count=2, seed=5)
    pair = submit(work.next_item(user=alice, kind="write"), alice)
    item = work.next_item(user=alice, kind="write")
    from annotation.writing import reperturbation

    reperturb = reperturbation.open_reperturbation(
        claim=pair.claims.get(label="refuted"), actor=admin, why="for the permission table"
    )
    return World(
        item=item.key,
        reperturb_item=reperturb.key,
        pair=pair.key,
        evidence_item=pair.work_items.filter(kind="evidence").first().key,
        claim=pair.claims.first().key,
        paper=paper,
        users={"own": alice, "other": bob, "admin": admin},
        table=Element.objects.filter(paper=paper, kind="table").first(),
        publication=Publication.objects.filter(expert__user=bob).first(),
        media="/media/" + chart.image.name,
        other_media="/media/" + other_chart.image.name,
        crawl_run=CrawlRun.objects.create(
            date_from=dt.date(2024, 9, 1),
            date_to=dt.date(2024, 9, 2),
            categories=["cs.CL"],
            status=CrawlRun.Status.FINISHED,
            phase=CrawlRun.Phase.DONE,
        ).pk,  # finished: stop and resume only explain why not
    )


LOGIN = "login"  # expected: a redirect to the sign-in page


@dataclass
class Case:
    route: str  # the URL name (namespace:name), or "media"
    url: Callable[[World], str]
    expect: dict[str, int | str]  # role -> status code, or LOGIN
    method: str = "get"
    data: Callable[[World], dict] = field(default=lambda w: {})
    content_type: str = ""


def signed_in(**codes: int | str) -> dict[str, int | str]:
    return {"anonymous": LOGIN, **codes}


def autosave(**codes: int | str) -> dict[str, int | str]:
    """A signed-out autosave gets 401 JSON with a sign-in link (config/middleware.py)."""
    return {**signed_in(**codes), "anonymous": 401}


STAFF_ONLY = signed_in(own=403, other=403, admin=200)
STAFF_POST = signed_in(own=403, other=403, admin=302)
EVERYONE = signed_in(own=200, other=200, admin=200)
PAPER = signed_in(own=200, other=403, admin=200)

CASES = [
    Case("annotation:home", lambda w: "/", EVERYONE),
    Case("papers:list", lambda w: "/papers/", EVERYONE),
    Case("papers:detail", lambda w: f"/papers/{w.vid}/", PAPER),
    Case("annotation:curate", lambda w: f"/curate/{w.vid}/", PAPER),
    Case(
        "annotation:curate",
        lambda w: f"/curate/{w.vid}/",
        signed_in(own=302, other=403, admin=409),  # admin's page is stale after alice's save
        method="post",
        data=lambda w: {"latest_seen": "", "note": "x"},
    ),
    Case("annotation:table_html", lambda w: f"/curate/{w.vid}/tables/{w.table.pk}/", PAPER),
    Case(
        "annotation:next_task",
        lambda w: "/claims/next/",
        signed_in(own=302, other=302, admin=302),
        method="post",
    ),
    Case(
        "annotation:create_tasks",
        lambda w: f"/claims/tasks/{w.vid}/",
        signed_in(own=302, other=403, admin=302),
        method="post",
    ),
    Case(
        "annotation:write",
        lambda w: f"/claims/write/{w.item}/",
        signed_in(own=200, other=404, admin=200),
    ),
    Case(
        "annotation:write",
        lambda w: f"/claims/write/{w.item}/",
        signed_in(own=400, other=404, admin=403),  # own: the empty claim is refused, kept
        method="post",
        data=lambda w: {"token": "6f1c4c53-3c5e-4d0e-9d5c-8f0d7f3a2b1e", "entailed": ""},
    ),
    Case(
        "annotation:save_draft",
        lambda w: f"/claims/write/{w.item}/draft/",
        autosave(own=200, other=404, admin=403),
        method="post",
        data=lambda w: '{"draft": {"entailed": "draft"}}',
        content_type="application/json",
    ),
    Case(
        "annotation:release_task",
        lambda w: f"/claims/write/{w.item}/release/",
        signed_in(own=302, other=404, admin=403),
        method="post",
    ),
    Case(
        "annotation:suggest",
        lambda w: f"/claims/write/{w.item}/suggest/",
        signed_in(own=200, other=404, admin=200),
        method="post",
        data=lambda w: {"entailed": "It is higher."},
    ),
    Case(
        "annotation:write_context",
        lambda w: f"/claims/write/{w.item}/context/",
        signed_in(own=200, other=404, admin=200),
    ),
    Case(
        "annotation:write_warnings",
        lambda w: f"/claims/write/{w.item}/warnings/",
        signed_in(own=200, other=404, admin=200),
        method="post",
        data=lambda w: {"entailed": "The the claim."},
    ),
    Case(
        "annotation:pair",
        lambda w: f"/claims/pairs/{w.pair}/",
        signed_in(own=200, other=404, admin=200),
    ),
    # A new perturbation asked of alice: she takes it with Next (then it is hers to write).
    Case(
        "annotation:next_reperturbation",
        lambda w: "/claims/reperturb/next/",
        signed_in(own=302, other=302, admin=302),
        method="post",
    ),
    Case(
        "annotation:reperturb",
        lambda w: f"/claims/reperturb/{w.reperturb_item}/",
        signed_in(own=403, other=404, admin=200),
    ),
    Case(
        "annotation:reperturb",
        lambda w: f"/claims/reperturb/{w.reperturb_item}/",
        signed_in(own=403, other=404, admin=403),
        method="post",
        data=lambda w: {"token": "6f1c4c53-3c5e-4d0e-9d5c-8f0d7f3a2b1e", "refuted": "x"},
    ),
    Case(
        "annotation:reperturb_draft",
        lambda w: f"/claims/reperturb/{w.reperturb_item}/draft/",
        autosave(own=403, other=404, admin=403),
        method="post",
        data=lambda w: '{"draft": {"refuted": "x"}}',
        content_type="application/json",
    ),
    Case(
        "annotation:reperturb_context",
        lambda w: f"/claims/reperturb/{w.reperturb_item}/context/",
        signed_in(own=403, other=404, admin=200),
    ),
    Case(
        "annotation:reperturb_suggest",
        lambda w: f"/claims/reperturb/{w.reperturb_item}/suggest/",
        signed_in(own=403, other=404, admin=200),
        method="post",
    ),
    Case(
        "annotation:reperturb_warnings",
        lambda w: f"/claims/reperturb/{w.reperturb_item}/warnings/",
        signed_in(own=403, other=404, admin=200),
        method="post",
        data=lambda w: {"refuted": "x"},
    ),
    Case(
        "annotation:reperturb_image",
        lambda w: f"/claims/reperturb/{w.reperturb_item}/images/{w.table.pk}/",
        signed_in(own=403, other=404, admin=404),
    ),
    Case(
        "annotation:reassign_reperturbation",
        lambda w: f"/manage/claims/reperturb/{w.reperturb_item}/reassign/",
        STAFF_POST,
        method="post",
        data=lambda w: {"expert": w.users["other"].pk},
    ),
    Case("annotation:claims_overview", lambda w: "/manage/claims/", STAFF_ONLY),
    # Review (roles in depth: tests/annotation/test_review_views.py). bob, the only other
    # cs.CL expert, may take either claim of alice's pair; nobody holds them yet, so to both
    # alice and bob an item answers 404, as for a key that names no item.
    Case(
        "annotation:next_review",
        lambda w: "/review/annotate/next/",
        signed_in(own=302, other=302, admin=302),
        method="post",
    ),
    Case(
        "annotation:annotate",
        lambda w: f"/review/annotate/{w.evidence_item}/",
        signed_in(own=404, other=404, admin=200),
    ),
    Case(
        "annotation:adjudicate",
        lambda w: "/review/adjudicate/" + "A" * 22 + "/",
        signed_in(own=404, other=404, admin=404),
    ),
    Case(
        "annotation:review_draft",
        lambda w: f"/review/items/{w.evidence_item}/draft/",
        autosave(own=404, other=404, admin=403),
        method="post",
        data=lambda w: "{}",
        content_type="application/json",
    ),
    Case(
        "annotation:review_context",
        lambda w: f"/review/items/{w.evidence_item}/context/",
        signed_in(own=404, other=404, admin=200),
    ),
    Case(
        "annotation:review_image",
        lambda w: f"/review/items/{w.evidence_item}/images/{w.table.pk}/",
        signed_in(own=404, other=404, admin=404),
    ),
    Case("annotation:review_overview", lambda w: "/manage/review/", STAFF_ONLY),
    Case(
        "annotation:allow_expert",
        lambda w: f"/manage/review/items/{w.evidence_item}/allow/",
        STAFF_POST,
        method="post",
        data=lambda w: {"expert": w.users["other"].pk},
    ),
    Case(
        "annotation:reopen_claim",
        lambda w: f"/manage/review/claims/{w.claim}/reopen/",
        STAFF_POST,
        method="post",
    ),
    Case(
        "annotation:drop_pair",
        lambda w: f"/manage/review/pairs/{w.pair}/drop/",
        STAFF_POST,
        method="post",
        data=lambda w: {"reason": "x"},
    ),
    Case("annotation:agreement", lambda w: "/agreement/", STAFF_ONLY),
    Case("annotation:agreement_csv", lambda w: "/agreement.csv", STAFF_ONLY),
    Case("annotation:assignments", lambda w: "/manage/assignments/", STAFF_ONLY),
    Case(
        "annotation:assignments",
        lambda w: "/manage/assignments/",
        STAFF_POST,
        method="post",
        data=lambda w: {
            "action": "subfield",
            "papers": [w.paper.pk],
            "subfield": Subfield.objects.get(code="cs.LG").pk,
        },
    ),
    Case("annotation:people", lambda w: "/manage/people/", STAFF_ONLY),
    Case(
        "annotation:people",
        lambda w: "/manage/people/",
        signed_in(own=403, other=403, admin=200),
        method="post",
        data=lambda w: {"username": "newcomer"},
    ),
    Case("annotation:expert", lambda w: f"/manage/people/{w.users['other'].pk}/", STAFF_ONLY),
    Case("annotation:people_time_csv", lambda w: "/manage/people/time.csv", STAFF_ONLY),
    Case("sign_ins", lambda w: "/manage/sign-ins/", STAFF_ONLY),
    Case("manage_api_tokens", lambda w: "/manage/api-tokens/", STAFF_ONLY),
    Case(
        "sign_ins",
        lambda w: "/manage/sign-ins/",
        STAFF_POST,
        method="post",
        data=lambda w: {"address": "192.0.2.1"},
    ),
    Case("account_sessions", lambda w: "/accounts/sessions/", EVERYONE),
    Case("api_tokens", lambda w: "/accounts/api-tokens/", EVERYONE),
    # Archiving (issue 20): posts that change nothing here (un-archive what is not archived).
    Case(
        "annotation:archive",
        lambda w: "/manage/archive/",
        STAFF_POST,
        method="post",
        data=lambda w: {"action": "unarchive_papers", "papers": [w.paper.pk]},
    ),
    Case(
        "annotation:archive_account",
        lambda w: f"/manage/people/{w.users['other'].pk}/archive/",
        STAFF_POST,
        method="post",
        data=lambda w: {"action": "unarchive"},
    ),
    Case(
        "annotation:expert_profile",
        lambda w: f"/manage/people/{w.users['other'].pk}/profile/",
        STAFF_POST,
        method="post",
        data=lambda w: {"active": "on", "subfields": [Subfield.objects.get(code="cs.CL").pk]},
    ),
    Case(
        "annotation:add_publication",
        lambda w: f"/manage/people/{w.users['other'].pk}/publications/",
        STAFF_POST,
        method="post",
        data=lambda w: {
            "title": "T",
            "venue": "V",
            "year": 2024,
            "subfield": Subfield.objects.first().pk,
        },
    ),
    Case(
        "annotation:remove_publication",
        lambda w: f"/manage/people/{w.users['other'].pk}/publications/{w.publication.pk}/remove/",
        STAFF_POST,
        method="post",
    ),
    Case(
        "annotation:record_training",
        lambda w: f"/manage/people/{w.users['other'].pk}/training/",
        STAFF_POST,
        method="post",
        data=lambda w: {"completed_on": "2024-11-01", "trainer": "me"},
    ),
    Case(
        "annotation:reset_password",
        lambda w: f"/manage/people/{w.users['other'].pk}/reset-password/",
        signed_in(own=403, other=403, admin=200),
        method="post",
    ),
    Case("media", lambda w: w.media, PAPER),
    Case("media", lambda w: w.other_media, signed_in(own=403, other=403, admin=200)),
    Case("media", lambda w: "/media/elsewhere/x.png", signed_in(own=403, other=403, admin=404)),
    Case(
        "media",
        lambda w: "/media/" + "../" * 6 + "etc/passwd",
        signed_in(own=403, other=403, admin=400),
    ),
    Case("crawl:list", lambda w: "/crawl/", STAFF_ONLY),
    Case("crawl:detail", lambda w: f"/crawl/{w.crawl_run}/", STAFF_ONLY),
    Case("crawl:progress", lambda w: f"/crawl/{w.crawl_run}/progress/", STAFF_ONLY),
    Case("crawl:runs", lambda w: "/crawl/runs/", STAFF_ONLY),
    Case("crawl:stop", lambda w: f"/crawl/{w.crawl_run}/stop/", STAFF_POST, method="post"),
    Case("crawl:resume", lambda w: f"/crawl/{w.crawl_run}/resume/", STAFF_POST, method="post"),
    Case(
        "login",
        lambda w: "/accounts/login/",
        {"anonymous": 200, "own": 302, "other": 302, "admin": 302},
    ),
    Case("logout", lambda w: "/accounts/logout/", {r: 302 for r in ROLES}, method="post"),
    Case("password_change", lambda w: "/accounts/password_change/", EVERYONE),
    Case("password_change_done", lambda w: "/accounts/password_change/done/", EVERYONE),
    Case(
        "password_reset_confirm",
        lambda w: "/accounts/reset/MQ/not-a-token/",
        {r: 200 for r in ROLES},  # shows "this link no longer works"
    ),
    Case("password_reset_complete", lambda w: "/accounts/reset/done/", {r: 200 for r in ROLES}),
    Case("healthz", lambda w: "/healthz", {r: 200 for r in ROLES}),
    Case("favicon", lambda w: "/favicon.ico", {r: 301 for r in ROLES}),
    Case(
        "admin",
        lambda w: "/admin/annotation/assignment/",
        {"anonymous": 302, "own": 302, "other": 302, "admin": 200},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.method} {c.route}")
def test_every_url_for_every_role(case: Case, world: World):
    for role in ROLES:
        client = Client()
        if role != "anonymous":
            client.force_login(world.users[role])
        url = case.url(world)
        extra = {"content_type": case.content_type} if case.content_type else {}
        response = getattr(client, case.method)(url, case.data(world), **extra)
        expected = case.expect[role]
        if expected == LOGIN:
            assert response.status_code == 302, (role, url)
            assert response.url.startswith("/accounts/login/"), (role, url, response.url)
        else:
            assert response.status_code == expected, (role, url, response.status_code)


def _routes(patterns, namespace: str = "") -> set[str]:
    names: set[str] = set()
    for p in patterns:
        if isinstance(p, URLResolver):
            if p.app_name == "admin" or str(p.pattern).startswith("django-rq"):
                continue
            names |= _routes(p.url_patterns, p.namespace or namespace)
        elif isinstance(p, URLPattern):
            if str(p.pattern).startswith("^media/"):
                names.add("media")
            elif str(p.pattern).startswith("^static/"):
                continue
            else:
                names.add(f"{namespace}:{p.name}" if namespace else str(p.name))
    return names


def test_the_table_covers_every_url():
    routes = _routes(get_resolver().url_patterns)
    # The validation and evaluation apps' routes have their own tables:
    # tests/validation/test_views.py and tests/evaluation/test_views.py; guidelines, flags and
    # "edit my last answer": tests/guidelines/test_permissions.py; the HTTP API's:
    # tests/api/test_api_permissions.py.
    own_tables = (
        "validation:",
        "evaluation:",
        "guidelines:",
        "answers:",
        "validation_answers:",
        "api:",
    )
    routes = {r for r in routes if not r.startswith(own_tables)}
    assert routes == {c.route for c in CASES} - {"admin"}


def test_annotators_see_only_their_papers_in_the_list(client, world: World):
    client.force_login(world.users["other"])
    assert world.vid not in client.get("/papers/").content.decode()
    client.force_login(world.users["own"])
    assert world.vid in client.get("/papers/").content.decode()


def test_forms_are_csrf_protected(world: World):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.users["own"])
    assert client.post(f"/curate/{world.vid}/", {"latest_seen": ""}).status_code == 403
    client.force_login(world.users["admin"])
    assert client.post("/manage/people/", {"username": "x"}).status_code == 403
    assert client.post("/manage/assignments/", {"action": "unassign"}).status_code == 403


def test_media_is_not_in_a_public_folder(settings):
    static_roots = [Path(settings.STATIC_ROOT), *map(Path, settings.STATICFILES_DIRS)]
    media = Path(settings.MEDIA_ROOT).resolve()
    assert all(not media.is_relative_to(root.resolve()) for root in static_roots)
