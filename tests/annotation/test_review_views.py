"""Review pages over HTTP: each role's access, blindness of the second annotation (no response
reachable by the second annotator reveals the first annotation), constant query counts."""

from __future__ import annotations

import re
import uuid

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import Client

from annotation.assignment import services as assignment_services
from annotation.models import ClaimReview, PairRole, WorkItem
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import services as writing
from papers.models import Element
from tests.annotation.claim_factories import curated_paper, submit
from tests.annotation.factories import png
from tests.annotation.review_factories import annotate, crew, written_pair

pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "writer", "second", "adjudicator", "other", "admin")


def with_images(pair) -> None:
    for element in Element.objects.filter(paper_id=pair.paper_id, kind__in=["table", "chart"]):
        element.image.name = default_storage.save(
            f"papers/{element.paper.versioned_id}/20241101T000000000000/{element.anchor}.png",
            ContentFile(png()),
        )
        element.save(update_fields=["image"])


@pytest.fixture
def world():
    """alice wrote a pair; bob agreed on one claim, carol disagreed on the other's label and
    dave holds its adjudication; erin is an eligible expert with no role on the pair."""
    c = crew("alice", "bob", "carol", "dave", "erin")
    pair = written_pair(c["alice"], c["boss"])
    with_images(pair)
    agreed = annotate(c["bob"])
    disputed = annotate(c["carol"], flip=True)
    adjudication = review.take_next(user=c["dave"], kind="adjudicate")
    users = {
        "writer": c["alice"],
        "second": c["carol"],
        "adjudicator": c["dave"],
        "other": c["erin"],
        "admin": c["boss"],
        "bob": c["bob"],
    }
    return {
        "pair": pair,
        "users": users,
        "agreed": agreed,
        "disputed": disputed,
        "adjudication": adjudication,
    }


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def expect(world, method: str, url: str, codes: dict[str, int], data=None, **extra) -> None:
    for role in ROLES:
        user = world["users"].get(role)
        response = getattr(client_for(user), method)(url, data or {}, **extra)
        code = codes.get(role, 404)  # never held: as for a key that names no item
        if role == "anonymous" and extra.get("content_type") == "application/json":
            assert (
                response.status_code == 401 and "/accounts/login/" in response.json()["login_url"]
            )
        elif role == "anonymous":
            assert response.status_code == 302 and "/accounts/login/" in response.url, url
        else:
            assert response.status_code == code, (role, method, url, response.status_code)


def test_each_role_on_the_review_pages(world):
    disputed, item = world["disputed"], world["adjudication"]
    image = Element.objects.filter(paper_id=world["pair"].paper_id, kind="table").first()
    sampled = world["pair"].task.sampled_ids[0]
    own_done = {"second": 200, "admin": 200}
    held = {"adjudicator": 200, "admin": 200}
    expect(world, "get", f"/review/annotate/{disputed.key}/", own_done)
    expect(world, "get", f"/review/items/{disputed.key}/context/", own_done)
    expect(world, "get", f"/review/items/{disputed.key}/images/{sampled}/", own_done)
    expect(world, "get", f"/review/adjudicate/{item.key}/", held)
    expect(world, "get", f"/review/items/{item.key}/context/", held)
    expect(world, "get", f"/review/items/{item.key}/images/{image.pk}/", held)
    expect(
        world,
        "post",
        f"/review/items/{item.key}/draft/",
        {"adjudicator": 200, "admin": 403},
        data='{"draft": {"label": "entailed"}}',
        content_type="application/json",
    )
    expect(
        world,
        "post",
        f"/review/adjudicate/{item.key}/",
        {"adjudicator": 400, "admin": 403},
        data={"token": str(uuid.uuid4()), "decision": "decided"},
    )  # refused: nothing chosen
    expect(
        world,
        "post",
        f"/review/annotate/{disputed.key}/",
        {"admin": 409, "second": 409},
        data={"token": str(uuid.uuid4()), "label": "entailed"},
    )  # done: nobody may write
    for url in ("/agreement/", "/agreement.csv", "/manage/review/"):  # admins' pages: 403
        expect(world, "get", url, {r: 403 for r in ROLES} | {"admin": 200})
    expect(world, "get", f"/claims/pairs/{world['pair'].key}/", {"writer": 200, "admin": 200})


def test_the_adjudication_page_refuses_evidence_that_breaks_the_rule_and_keeps_it(world):
    """A direct claim: the adjudicator ticks one table too many, sees the rule and what to
    untick next to the evidence with everything kept, unticks it and is recorded."""
    item, pair = world["adjudication"], world["pair"]
    dave = client_for(world["users"]["adjudicator"])
    page = dave.get(f"/review/adjudicate/{item.key}/").content.decode()
    assert "A direct claim rests on exactly one table or chart, one of the three" in page
    assert page.count("meets it") == 2  # both sides' evidence meets the rule
    sampled = pair.task.sampled_ids
    data = {
        "token": str(uuid.uuid4()),
        "version": item.version,
        "decision": "decided",
        "label": "entailed",
        "confidence": "high",
        "reason": "ambiguous_claim",
        "notes": "Two tables say it.",
        "evidence": [str(pk) for pk in sampled[:2]],
    }
    response = dave.post(f"/review/adjudicate/{item.key}/", data)
    assert response.status_code == 400
    html = response.content.decode()
    error = html.split('id="err-evidence">')[1].split("</p>")[0]
    assert "A direct claim rests on exactly one table or chart" in error and "Untick one" in error
    for label in Element.objects.filter(pk__in=sampled[:2]).values_list("label", flat=True):
        assert label in error
    for pk in sampled[:2]:  # nothing lost: both boxes stay ticked, the notes stay
        assert re.search(rf'name="evidence" value="{pk}" form="review-form" checked', html)
    assert "Two tables say it." in html and not ClaimReview.objects.filter(state="adjudicated")
    response = dave.post(f"/review/adjudicate/{item.key}/", data | {"evidence": [str(sampled[0])]})
    assert response.status_code == 302
    decided = ClaimReview.objects.get(state="adjudicated")
    assert list(decided.final_evidence.values_list("pk", flat=True)) == [sampled[0]]


def test_the_adjudication_page_says_which_side_breaks_the_rule(world):
    item = world["adjudication"]
    disputed = world["disputed"].evidence_annotation
    disputed.evidence.set(world["pair"].task.sampled_ids[:2])  # as if the second marked two
    page = client_for(world["users"]["adjudicator"]).get(f"/review/adjudicate/{item.key}/")
    rows = page.content.decode().split("Evidence rule</th>")[1].split("</tr>")[0]
    writer, second = rows.split('<td class="small side-rule">')[1:]
    assert "meets it" in writer and "2 are marked" in second


def test_next_takes_the_expert_to_their_item(world):
    client = client_for(world["users"]["other"])  # erin: nothing to annotate, may adjudicate
    response = client.post("/review/annotate/next/")
    assert response.status_code == 302 and response.url == "/"
    assert "No claim to annotate" in client.get("/").content.decode()
    assert client.post("/review/nothing/next/").status_code == 404


def test_admins_reopen_drop_and_allow_over_http(world):
    admin = client_for(world["users"]["admin"])
    item = world["adjudication"]
    review.submit_adjudication(
        item=item,
        user=world["users"]["adjudicator"],
        version=item.version,
        token=uuid.uuid4(),
        decision="unresolved",
        label="",
        evidence_ids=[],
        confidence="low",
        reason="other",
        notes="cannot tell",
    )
    page = admin.get("/manage/review/").content.decode()
    claim = world["disputed"].claim
    assert f'id="unresolved-{claim.key}"' in page and "cannot tell" in page
    assert '<span class="n">1</span> unresolved' in page  # the tiles read as words
    assert "awaiting second annotation</div>" in page and "</span> second</div>" not in page
    writer = client_for(world["users"]["writer"])
    assert writer.post(f"/manage/review/claims/{claim.key}/reopen/").status_code == 403
    assert (
        admin.post(f"/manage/review/claims/{claim.key}/reopen/", {"note": "erin"}).status_code
        == 302
    )
    assert ClaimReview.objects.get(claim=claim).state == "adjudication"
    erin = client_for(world["users"]["other"])
    response = erin.post("/review/adjudicate/next/")
    assert response.status_code == 302 and "/review/adjudicate/" in response.url
    pair = world["pair"]
    response = admin.post(f"/manage/review/pairs/{pair.key}/drop/", {"reason": ""}, follow=True)
    assert "Say why the pair is dropped" in response.content.decode()
    admin.post(f"/manage/review/pairs/{pair.key}/drop/", {"reason": "misparsed table"})
    assert set(ClaimReview.objects.filter(claim__pair=pair).values_list("state", flat=True)) == {
        "dropped"
    }


def test_an_admin_allows_an_expert_of_another_subfield_over_http():
    from tests.annotation.factories import make_expert

    c = crew("alice")
    olga = make_expert("olga", ("cs.CV",))
    pair = written_pair(c["alice"], c["boss"])
    admin = client_for(c["boss"])
    page = admin.get("/manage/review/").content.decode()
    assert "nobody eligible for cs.CL may take it (alice wrote the pair)" in page
    item = WorkItem.objects.filter(pair=pair, kind="evidence").first()
    admin.post(f"/manage/review/items/{item.key}/allow/", {"expert": olga.pk, "note": "none left"})
    response = client_for(olga).post("/review/annotate/next/")
    assert response.url == f"/review/annotate/{item.key}/"


# --- Blindness ------------------------------------------------------------------------------

TOKENS = [
    re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"'),
    re.compile(r'"X-CSRFToken": "[^"]+"'),
    re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
]


def normalise(text: str) -> str:
    for pattern in TOKENS:
        text = pattern.sub("~", text)
    return text


def reachable(client: Client, item: WorkItem, pair) -> dict[str, bytes]:
    """Every page, fragment and file the second annotator can reach while annotating."""
    urls = [
        "/",
        "/papers/",
        f"/review/annotate/{item.key}/",
        f"/review/items/{item.key}/context/",
        f"/claims/pairs/{pair.key}/",
        "/agreement/",
        "/agreement.csv",
        "/manage/review/",
        "/manage/claims/",
    ]
    writing_item = WorkItem.objects.get(pair=pair, kind="write")
    urls += [f"/claims/write/{writing_item.key}/", f"/claims/write/{writing_item.key}/context/"]
    urls += [
        f"/review/adjudicate/{i.key}/"
        for i in WorkItem.objects.filter(pair=pair, kind="adjudicate").values_list("pk", flat=True)
    ]
    bodies = {url: client.get(url).content for url in urls}
    page = bodies[f"/review/annotate/{item.key}/"].decode()
    page += bodies[f"/review/items/{item.key}/context/"].decode()
    images = sorted(set(re.findall(r'src="(/review/items/[^"]+)"', page)))
    assert images, "the page shows the tables/charts"
    for url in images:
        response = client.get(url)
        assert response.status_code == 200
        bodies[url] = b"".join(response.streaming_content)
    draft = client.post(
        f"/review/items/{item.key}/draft/",
        '{"draft": {"label": "refuted"}}',
        content_type="application/json",
    )
    bodies["draft"] = draft.content
    return bodies


def test_nothing_reachable_by_the_second_annotator_reveals_the_first_annotation():
    c = crew("alice", "bob", "carol", "dave")
    pair = written_pair(c["alice"], c["boss"])
    with_images(pair)
    claims = {claim.label: claim for claim in pair.claims.all()}
    bob, carol = client_for(c["bob"]), client_for(c["carol"])
    bob_item = review.take_next(user=c["bob"], kind="evidence")
    carol_item = review.take_next(user=c["carol"], kind="evidence")
    own = claims[bob_item.claim.label]
    sibling = claims["refuted" if own.label == "entailed" else "entailed"]
    refuted = claims["refuted"]
    secrets = [
        c["alice"].username,
        sibling.text,
        refuted.explanation,
        refuted.suggestion,
        refuted.get_perturbation_kind_display(),
    ]
    if own.label == "refuted":
        secrets.remove(refuted.suggestion)  # the suggestion is the claim's own text here
    before = reachable(bob, bob_item, pair)
    for url, body in before.items():
        text = body.decode("utf-8", "replace")
        for secret in secrets:
            assert secret not in text, (url, secret)
        assert "checked" not in text or url == "/", url  # nothing pre-marked, no label chosen

    # The same pages whatever the first annotation was: other evidence, writer, explanation.
    other_evidence = sorted(
        set(pair.task.sampled_ids) - set(own.evidence.values_list("pk", flat=True))
    )
    own.evidence.set(other_evidence + list(own.evidence.values_list("pk", flat=True))[:1])
    c["alice"].username = "someone-else"
    c["alice"].save()
    type(refuted).objects.filter(pk=refuted.pk).update(explanation="A different explanation.")
    WorkItem.objects.filter(pk=bob_item.pk).update(draft={})
    after = reachable(bob, bob_item, pair)
    for url in before:
        if url in ("draft",):
            continue
        assert normalise(before[url].decode("utf-8", "replace")) == normalise(
            after[url].decode("utf-8", "replace")
        ), url

    # The label: the entailed claim's page and the refuted claim's page say the same about it.
    WorkItem.objects.filter(pk__in=[bob_item.pk, carol_item.pk]).update(draft={})

    def label_words(client, item):
        text = client.get(f"/review/annotate/{item.key}/").content.decode()
        text = text.replace(item.claim.text, "")
        return text.count("entailed"), text.count("refuted")

    assert label_words(bob, bob_item) == label_words(carol, carol_item)

    # Submitting says nothing about the comparison; the done page shows only their own work.
    response = bob.post(
        f"/review/annotate/{bob_item.key}/",
        {
            "token": str(uuid.uuid4()),
            "version": bob_item.version,
            "label": "refuted" if own.label == "entailed" else "entailed",
            "evidence": list(own.evidence.values_list("pk", flat=True)),
        },
        follow=True,
    )
    text = response.content.decode()
    assert (
        "Recorded. Thank you." in text
        and "adjudicat" not in text.split("<main>")[1].split('id="adjudications"')[0]
    )
    done = bob.get(f"/review/annotate/{bob_item.key}/").content.decode()
    for secret in (c["alice"].username, sibling.text, "A different explanation."):
        assert secret not in done and secret not in text


def test_the_review_pages_run_a_fixed_number_of_queries(django_assert_max_num_queries):
    c = crew("alice", "bob", "carol", "dave")
    big = [("body", f"Section {n}", None, "ptpcpp") for n in range(60)]
    for layout in (None, big):
        paper, _ = curated_paper(c["boss"], layout=layout)
        assignment_services.assign_papers(
            papers=[paper], experts=[c["alice"]], assigned_by=c["boss"]
        )
        writing.create_claim_tasks(paper=paper, by=c["alice"], count=1, seed=3)
        pair = submit(work.next_item(user=c["alice"], kind="write"), c["alice"])
        item = review.take_next(user=c["bob"], kind="evidence")
        context_ids = list(pair.task.candidate_ids)
        work.save_draft(
            item=item,
            user=c["bob"],
            version=item.version,
            draft={"label": "entailed", "evidence": context_ids},
        )
        bob, dave = client_for(c["bob"]), client_for(c["dave"])
        with django_assert_max_num_queries(8):  # no reference read: the review view shows none
            assert bob.get(f"/review/annotate/{item.key}/").status_code == 200
        review.submit_second_annotation(
            item=item,
            user=c["bob"],
            version=item.version + 0,
            token=uuid.uuid4(),
            label=review.LABELS[item.claim.label == "entailed"],
            evidence_ids=context_ids,
        )
        review.take_next(user=c["carol"], kind="evidence")  # the other claim is taken blind
        adjudication = review.take_next(user=c["dave"], kind="adjudicate")
        # One more than before the evidence rule: the context's kinds, to judge each side by it.
        with django_assert_max_num_queries(11):
            assert dave.get(f"/review/adjudicate/{adjudication.key}/").status_code == 200
        WorkItem.objects.filter(pk=adjudication.pk).update(status="cancelled")
        WorkItem.objects.filter(pair=pair, kind="evidence", status__in=["open", "leased"]).update(
            status="cancelled"
        )
        PairRole.objects.filter(pair=pair, expert=c["dave"]).delete()


def test_the_sampled_images_load_with_the_page_and_the_rest_when_near(world):
    """The three sampled tables and charts are what a review page is read for: they load with
    the page (no `loading="lazy"`), so nothing above the reader grows once the page is open and
    `j`/`k` land where they aim. The whole context's images wait until they are near."""
    item, sampled = world["adjudication"], world["pair"].task.sampled_ids
    client = client_for(world["users"]["adjudicator"])
    page = client.get(f"/review/adjudicate/{item.key}/").content.decode()
    found = re.findall(r'(<img src="/review/items/[^/]+/images/(\d+)/"[^>]*>)', page)
    tags = {pk: tag for tag, pk in found}
    assert sorted(map(int, tags)) == sorted(sampled)
    assert not [tag for tag in tags.values() if "lazy" in tag]
    context = client.get(f"/review/items/{item.key}/context/").content.decode()
    tags = re.findall(r'<img src="/review/items/[^"]+"[^>]*>', context)
    assert tags and all('loading="lazy"' in tag for tag in tags)
