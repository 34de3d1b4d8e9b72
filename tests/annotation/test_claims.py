"""Claim writing through its services and pure rules: tasks, leases, drafts, submissions."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from annotation.assignment import services as assignment_services
from annotation.evidence import visuals_needed
from annotation.models import (
    Claim,
    ClaimPair,
    ClaimTask,
    CuratedElement,
    PairRole,
    WorkEvent,
    WorkItem,
)
from annotation.queue import work
from annotation.writing import services as writing
from annotation.writing.rules import ContextElement, PairDraft, check_pair, surrounding_paragraphs
from annotation.writing.sampling import sample_elements
from tests.annotation.claim_factories import ENTAILED, REFUTED, curated_paper, submit
from tests.annotation.factories import make_expert
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


# --- Pure rules ----------------------------------------------------------------------------


def test_surrounding_paragraphs_are_referencing_and_neighbouring_ones():
    e = ContextElement
    elements = [
        e(1, 10, "paragraph", 1),
        e(2, 10, "table", 2),
        e(3, 10, "chart", 3),
        e(4, 10, "paragraph", 4),
        e(5, 11, "paragraph", 5),
        e(6, 11, "chart", 6),
        e(7, 12, "paragraph", 7),
        e(8, 12, "paragraph", 8),
    ]
    # Table 2: paragraph 1 before it, paragraph 4 after (past chart 3); chart 6: paragraph 5
    # before, none after in its section; paragraph 8 references chart 6.
    assert surrounding_paragraphs(elements, {8: {6}}, [2, 6]) == [1, 4, 5, 8]
    assert surrounding_paragraphs(elements, {}, [3]) == [1, 4]


KINDS = {1: "paragraph", 2: "table", 3: "chart", 4: "chart", 5: "figure", 6: "paragraph"}


def draft(**kw) -> PairDraft:
    base = dict(
        subset="direct",
        entailed="The model scores 73.2 BLEU on the test set.",
        evidence=frozenset({2, 1}),
        refuted="The model scores 68.9 BLEU on the test set.",
        refuted_evidence=frozenset({2, 1}),
        explanation="It scores 73.2, per Table 1.",
        perturbation_kind="number",
    )
    base.update(kw)
    if "evidence" in kw and "refuted_evidence" not in kw:
        base["refuted_evidence"] = kw["evidence"]
    return PairDraft(**base)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({}, None, None),
        ({"entailed": "  "}, "entailed", "Write the entailed claim"),
        ({"entailed": "Too short."}, "entailed", "6–40 words; this one has 2"),
        ({"entailed": "word " * 41}, "entailed", "has 41"),
        ({"entailed": "The paragraph says exactly this about results."}, "entailed", "copied"),
        ({"refuted": " the MODEL scores 73.2 BLEU   on the test set. "}, "refuted", "must differ"),
        ({"evidence": frozenset({1, 6})}, "evidence", "one of the three sampled"),
        ({"evidence": frozenset({9})}, "evidence", "not part of this task"),
        ({"evidence": frozenset()}, "evidence", "Mark the evidence"),
        (
            {"subset": "parallel"},
            "evidence",
            "exactly two tables/charts (plus any paragraphs): 1 is",
        ),
        ({"subset": "sequential", "evidence": frozenset({2, 5})}, "evidence", "1 is marked"),
        ({"subset": "parallel", "evidence": frozenset({2, 4})}, None, None),
        ({"subset": "analytical", "evidence": frozenset({3})}, None, None),
        # The evidence rule: exactly one table/chart for direct/analytical, two for the others.
        ({"evidence": frozenset({1, 2, 3})}, "evidence", "2 are marked. Untick one"),
        ({"subset": "analytical", "evidence": frozenset({2, 3, 4})}, "evidence", "Untick two"),
        ({"subset": "sequential", "evidence": frozenset({2, 3, 4})}, "evidence", "Untick one"),
        ({"refuted_evidence": frozenset({2, 4})}, "refuted_evidence", "Untick one"),
        ({"refuted_evidence": frozenset({1})}, "refuted_evidence", "sampled"),
        ({"explanation": "no"}, "explanation", "Explain"),
        ({"perturbation_kind": ""}, "perturbation_kind", "how the refuted claim"),
    ],
)
def test_pair_rules(changes, field, message):
    errors = check_pair(
        draft(**changes),
        sampled={2, 3, 4},
        kinds=KINDS,
        paragraph_texts=["First. The paragraph says exactly this about results! More."],
        min_words=6,
        max_words=40,
        perturbation_kinds={"number", "other"},
    )
    if field is None:
        assert errors == {}
    else:
        assert message in errors[field], errors


# --- Tasks ---------------------------------------------------------------------------------


@pytest.fixture
def alice():
    return make_expert("alice")


@pytest.fixture
def curated(alice):
    admin = AdminFactory()
    paper, context = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    return paper, context


def test_tasks_sample_three_of_the_curated_context_reproducibly(alice, curated):
    paper, context = curated
    CuratedElement.objects.filter(context=context, element__label="Figure 3").update(
        not_a_chart=True
    )
    tasks = writing.create_claim_tasks(paper=paper, by=alice, count=8, seed=100)
    allowed = set(
        CuratedElement.objects.filter(
            context=context,
            in_context=True,
            not_a_chart=False,
            element__kind__in=["table", "chart"],
        ).values_list("element_id", flat=True)
    )
    assert len(allowed) == 3  # Table 1, Table 2, Figure 2 (Figure 3 is not a chart)
    for task in tasks:
        assert task.context == context
        assert set(task.candidate_ids) == allowed
        assert task.sampled_ids == sample_elements(task.candidate_ids, k=3, seed=task.seed)
        assert task.paragraph_ids
    # Balanced: 8 tasks, two of each subset.
    assert sorted(t.subset for t in tasks) == sorted(
        ["direct", "parallel", "sequential", "analytical"] * 2
    )
    items = WorkItem.objects.filter(task__in=tasks)
    assert {i.assignee_id for i in items} == {alice.pk}
    assert all(i.subfield_code == "cs.CL" for i in items)
    assert WorkEvent.objects.filter(item__in=items, action="created").count() == 8


def test_tasks_need_a_ready_context_and_the_paper(alice, curated):
    paper, context = curated
    bob = make_expert("bob")
    with pytest.raises(Exception, match="not assigned to you"):
        writing.create_claim_tasks(paper=paper, by=bob)
    CuratedElement.objects.filter(context=context, element__kind="chart").update(in_context=False)
    with pytest.raises(Exception, match="claim tasks need 3"):
        writing.create_claim_tasks(paper=paper, by=alice)
    assert not ClaimTask.objects.exists()


# --- Leases --------------------------------------------------------------------------------


def test_next_gives_the_oldest_item_then_the_same_until_submitted(alice, curated):
    paper, _ = curated
    first, second = writing.create_claim_tasks(paper=paper, by=alice, count=2, seed=1)
    item = work.next_item(user=alice, kind="write")
    assert item.task == first and item.holder == alice and item.status == "leased"
    assert work.next_item(user=alice, kind="write").pk == item.pk
    submit(item, alice)
    assert work.next_item(user=alice, kind="write").task == second
    with pytest.raises(work.NothingToDo):
        work.next_item(user=make_expert("bob"), kind="write")  # assigned to alice only


def test_an_expired_lease_returns_the_item_with_its_draft(alice, curated, settings):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=None, count=1, seed=1)
    WorkItem.objects.update(assignee=None)  # open to every eligible expert
    item = work.next_item(user=alice, kind="write")
    work.save_draft(item=item, user=alice, version=item.version, draft={"entailed": "half"})
    bob = make_expert("bob")
    with pytest.raises(work.NothingToDo):
        work.next_item(user=bob, kind="write")
    WorkItem.objects.update(lease_expires_at=timezone.now() - dt.timedelta(seconds=1))
    taken = work.next_item(user=bob, kind="write")
    assert taken.pk == item.pk and taken.holder == bob and taken.draft == {"entailed": "half"}
    actions = list(WorkEvent.objects.filter(item=item).values_list("action", flat=True))
    assert actions == ["created", "claimed", "lease expired", "claimed"]
    # Alice's open page is now stale: her draft and her submission are refused.
    with pytest.raises(work.StaleWork, match="changed since you opened"):
        work.save_draft(item=item, user=alice, version=item.version, draft={"entailed": "x"})
    with pytest.raises(work.StaleWork):
        writing.submit_claim_pair(
            item=item,
            user=alice,
            version=item.version,
            token=uuid.uuid4(),
            entailed=ENTAILED,
            evidence_ids=[],
            refuted=REFUTED,
            explanation="",
            perturbation_kind="",
        )
    assert not ClaimPair.objects.exists()


def test_drafts_renew_the_lease_and_are_only_the_holders(alice, curated):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=1)
    item = work.next_item(user=alice, kind="write")
    before = item.lease_expires_at
    saved = work.save_draft(item=item, user=alice, version=item.version, draft={"refuted": "r"})
    assert saved.lease_expires_at >= before and saved.draft == {"refuted": "r"}
    with pytest.raises(work.NotHolder):
        work.save_draft(item=item, user=make_expert("bob"), version=item.version, draft={})


def test_only_the_holder_hands_a_task_back_and_it_can_be_taken_again(alice, curated):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=None, count=1, seed=1)
    WorkItem.objects.update(assignee=None)  # open to every eligible expert
    item = work.next_item(user=alice, kind="write")
    work.save_draft(item=item, user=alice, version=item.version, draft={"entailed": "half"})
    bob = make_expert("bob")
    with pytest.raises(work.NotHolder):
        work.release_item(item=item, user=bob, version=item.version)
    with pytest.raises(work.StaleWork, match="changed since you opened"):
        work.release_item(item=item, user=alice, version=item.version - 1)
    item.refresh_from_db()
    assert item.status == "leased" and item.holder == alice
    released = work.release_item(item=item, user=alice, version=item.version)
    assert released.status == "open" and released.holder is None
    assert released.version == item.version + 1 and released.draft == {"entailed": "half"}
    event = WorkEvent.objects.filter(item=item).last()
    assert (event.action, event.actor) == ("released", alice)
    assert (event.from_status, event.to_status) == ("leased", "open")
    assert event.old["holder"] == alice.pk and event.new["holder"] is None
    # Alice's open page is stale now; bob takes the item with its draft, and when he hands it
    # back too, alice can take it again.
    with pytest.raises(work.NotHolder):
        work.release_item(item=item, user=alice, version=None)
    with pytest.raises(work.StaleWork):
        work.save_draft(item=item, user=alice, version=item.version, draft={})
    taken = work.next_item(user=bob, kind="write")
    assert taken.pk == item.pk and taken.holder == bob and taken.draft == {"entailed": "half"}
    work.release_item(item=taken, user=bob, version=taken.version)
    again = work.next_item(user=alice, kind="write")
    assert again.pk == item.pk and again.holder == alice and again.draft == {"entailed": "half"}
    actions = list(WorkEvent.objects.filter(item=item).values_list("action", flat=True))
    assert actions == ["created", "claimed", "released", "claimed", "released", "claimed"]


def test_a_submitted_task_cannot_be_handed_back(alice, curated):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=1)
    item = work.next_item(user=alice, kind="write")
    submit(item, alice)
    with pytest.raises(work.StaleWork, match="already submitted"):
        work.release_item(item=item, user=alice, version=None)
    item.refresh_from_db()
    assert item.status == "done"


def test_shared_evidence_is_judged_once():
    errors = check_pair(
        draft(evidence=frozenset()),
        sampled={2, 3, 4},
        kinds=KINDS,
        paragraph_texts=[],
        min_words=6,
        max_words=40,
        perturbation_kinds={"number"},
    )
    assert set(errors) == {"evidence"}


# --- Submissions ---------------------------------------------------------------------------


def test_submission_records_the_pair_claims_evidence_role_and_history(alice, curated):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=1)
    item = work.next_item(user=alice, kind="write")
    pair = submit(item, alice)
    entailed, refuted = pair.claims.get(label="entailed"), pair.claims.get(label="refuted")
    assert pair.writer == alice and pair.subset == item.task.subset and pair.paper == paper
    assert entailed.text == ENTAILED and refuted.text == REFUTED
    # As many sampled tables/charts as the evidence rule asks of the subset (the factory's).
    need = visuals_needed(pair.subset)
    assert set(entailed.evidence.values_list("pk", flat=True)) == set(item.task.sampled_ids[:need])
    assert set(refuted.evidence.all()) == set(entailed.evidence.all())
    assert refuted.perturbation_kind == "number" and refuted.suggestion == REFUTED
    assert PairRole.objects.get(pair=pair).role == "writer"
    item.refresh_from_db()
    assert item.status == "done" and item.pair == pair and item.done_by == alice
    event = WorkEvent.objects.get(item=item, action="submitted")
    assert event.pair == pair and event.from_status == "leased" and event.to_status == "done"
    assert event.new["entailed"]["text"] == ENTAILED and event.new["refuted"]["text"] == REFUTED


def test_the_same_submission_twice_records_once(alice, curated):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=1)
    item = work.next_item(user=alice, kind="write")
    token = uuid.uuid4()
    first = submit(item, alice, token=token)
    item.version -= 1  # the retry carries the version the page had
    again = writing.submit_claim_pair(
        item=item,
        user=alice,
        version=item.version,
        token=token,
        entailed=ENTAILED,
        evidence_ids=[],
        refuted=REFUTED,
        explanation="",
        perturbation_kind="",
    )
    assert again == first
    assert ClaimPair.objects.count() == 1 and Claim.objects.count() == 2
    assert WorkEvent.objects.filter(action="submitted").count() == 1
    with pytest.raises(work.StaleWork, match="already submitted by you"):
        submit(item, alice, token=uuid.uuid4())


def test_a_stale_version_is_refused_and_nothing_is_recorded(alice, curated):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=1)
    item = work.next_item(user=alice, kind="write")
    with pytest.raises(work.StaleWork, match="changed since you opened"):
        writing.submit_claim_pair(
            item=item,
            user=alice,
            version=item.version - 1,
            token=uuid.uuid4(),
            entailed=ENTAILED,
            evidence_ids=item.task.sampled_ids,
            refuted=REFUTED,
            explanation="because it is wrong",
            perturbation_kind="number",
        )
    assert not ClaimPair.objects.exists()
    assert WorkItem.objects.get(pk=item.pk).status == "leased"


def test_a_broken_rule_records_nothing_and_says_which_field(alice, curated):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=1)
    item = work.next_item(user=alice, kind="write")
    with pytest.raises(writing.InvalidClaim) as caught:
        submit(item, alice, refuted=ENTAILED.upper(), explanation="")
    assert set(caught.value.errors) == {"refuted", "explanation"}
    assert not ClaimPair.objects.exists() and not PairRole.objects.exists()
    assert WorkItem.objects.get(pk=item.pk).status == "leased"


def test_history_rows_are_append_only(alice, curated):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=1)
    event = WorkEvent.objects.get()
    event.note = "rewritten"
    with pytest.raises(ValueError, match="append-only"):
        event.save()
    with pytest.raises(ValueError, match="append-only"):
        event.delete()


# --- Waiting -------------------------------------------------------------------------------


def test_items_nobody_eligible_can_take_wait_with_the_reason(alice, curated):
    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=1)
    item = work.next_item(user=alice, kind="write")
    pair = submit(item, alice)
    # A later stage's item on the pair: alice (the only cs.CL expert) already writes it.
    later = work.create_item(
        kind="write", paper_id=paper.pk, subfield_code="cs.CL", actor=None, pair=pair
    )
    lonely = work.create_item(kind="write", paper_id=paper.pk, subfield_code="cs.RO", actor=None)
    total, waiting = work.waiting_items()
    reasons = {w.item.pk: w.reason for w in waiting}
    assert total == 4  # with the pair's two second-annotation items, which wait the same way
    assert reasons[later.pk] == "nobody eligible for cs.CL may take it (alice wrote the pair)"
    assert reasons[lonely.pk] == "nobody is eligible for cs.RO"
    with pytest.raises(work.NothingToDo):
        work.next_item(user=alice, kind="write")
    make_expert("bob")
    assert work.waiting_items()[0] == 1  # bob can take the pair's item now


def test_assignment_overview_counts_the_claim_pairs_each_expert_wrote(alice, curated, client):
    from annotation.assignment.selectors import assignment_overview

    paper, _ = curated
    writing.create_claim_tasks(paper=paper, by=alice, count=2, seed=3)
    for _ in range(2):
        submit(work.next_item(user=alice, kind="write"), alice)
    rows = {row.user.username: row for row in assignment_overview().experts}
    assert rows["alice"].claim_pairs == 2
    client.force_login(AdminFactory())
    html = client.get("/manage/assignments/").content.decode()
    assert "Claim pairs written" in html
