"""One declared lifecycle per workflow item: every state change of a work item, a claim review,
a validation and a claim pair goes through `annotation.lifecycle.move`, writes one declared
audit event, and follows the declared transitions; the handoff to validation is eager."""

from __future__ import annotations

import ast
import io
from collections import defaultdict
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotation import lifecycle
from annotation.errors import InvalidTransition
from annotation.models import (
    ClaimPair,
    ClaimReview,
    Machine,
    PairRole,
    Role,
    WorkAction,
    WorkEvent,
    WorkItem,
    WorkStatus,
)
from tests.demo import people
from tests.worlds import build_once
from validation.models import Validation

ROOT = Path(__file__).resolve().parents[2]
# The machines' state fields, and the version every move bumps.
STATE_FIELDS = {"state", "status", "version"}
# Other lifecycles that keep their own declared transitions or compare-and-set updates.
OWN_LIFECYCLES = {
    ("annotation/assignment/services.py", "assignment.status"),  # Assignment's declared transition
}
AUDIT_WRITES = {"create", "bulk_create", "get_or_create", "update_or_create", "update", "delete"}
MODELS = {
    Machine.ITEM: (WorkItem, "item_id"),
    Machine.REVIEW: (ClaimReview, "claim_id"),
    Machine.VALIDATION: (Validation, "claim_id"),
    Machine.PAIR: (ClaimPair, "pair_id"),
}


def _sources() -> list[Path]:
    files = []
    for app in ("annotation", "validation", "workspace"):
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts and path.name != "lifecycle.py":
                files.append(path)
    return files


def state_writes(path: Path) -> list[str]:
    """Assignments to a state field or `version`, `.update(...)` of one, `version += 1`, and
    audit rows written directly, in one module."""
    found = []
    rel = path.relative_to(ROOT).as_posix()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in ast.walk(target)]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in STATE_FIELDS:
                text = ast.unparse(target)
                if (rel, text) not in OWN_LIFECYCLES:
                    found.append(f"{rel}:{node.lineno}: {text} = …")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            keywords = {k.arg for k in node.keywords}
            if node.func.attr in {"update", "bulk_update"} and keywords & STATE_FIELDS:
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node.func)}(…)")
            if node.func.attr in AUDIT_WRITES and "WorkEvent" in ast.unparse(node.func.value):
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node.func)}(…)")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "WorkEvent" or (
                node.func.id == "setattr"
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in STATE_FIELDS
            ):
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node)[:60]}")
    return found


def test_no_module_but_the_lifecycle_changes_a_state_or_writes_the_audit_log():
    found = [line for path in _sources() for line in state_writes(path)]
    assert found == [], "state changed outside annotation.lifecycle.move:\n" + "\n".join(found)


def test_the_checker_finds_each_kind_of_write(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "item.status = 'done'\n"
        "review.state, x = 'dropped', 1\n"
        "item.version += 1\n"
        "Review.objects.filter(pk=1).update(state='dropped')\n"
        "WorkEvent.objects.create(action='x')\n"
        "setattr(item, 'status', 'open')\n"
        "item.note = 'fine'\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = state_writes(bad)
    finally:
        ROOT = saved
    assert len(found) == 6, found


pytestmark = pytest.mark.django_db


@pytest.fixture(scope="class")
def simulated(django_db_setup, django_db_blocker, tmp_path_factory):
    """The simulated pipeline over twelve papers, built once for the three tests that read it
    (what one of them writes is rolled back before the next)."""

    def build() -> None:
        people()
        call_command("simulate_annotation", "--papers", "12", "--seed", "5", stdout=io.StringIO())

    media = tmp_path_factory.mktemp("lifecycle-media")
    yield from build_once(
        "lifecycle: 12 papers, seed 5",
        build,
        django_db_blocker=django_db_blocker,
        media_root=media,
        USE_CHROMIUM=False,
    )


@pytest.fixture
def _simulate(simulated, settings):
    settings.USE_CHROMIUM = False


def test_a_handoff_no_stage_takes_is_refused_loudly_and_the_writing_stage_hands_pairs_on():
    """The writing stage hands pairs and new perturbations to blind review through
    `lifecycle.hand_on` (it never imports the review stage); an event nobody registered is a
    wiring fault, refused rather than leaving the work waiting unseen."""
    from annotation import lifecycle

    with pytest.raises(RuntimeError, match="No stage takes 'a rogue event' on"):
        lifecycle.hand_on("a rogue event", WorkItem(), actor=None)
    assert set(lifecycle._handlers) >= {lifecycle.PAIR_WRITTEN, lifecycle.CLAIM_REPLACED}


@pytest.mark.usefixtures("_simulate")
class TestOnTheSimulatedPipeline:
    """Tests that read the simulated pipeline (built once for the class, rolled back after it)."""

    def test_every_row_history_replays_to_its_state_through_declared_transitions(self):
        events = list(WorkEvent.objects.order_by("id"))
        assert events and {e.action for e in events} <= set(WorkAction.values)
        chains: dict[tuple[str, int], list[WorkEvent]] = defaultdict(list)
        for event in events:
            _, subject = MODELS[event.machine]
            if event.machine == Machine.ITEM:
                assert event.item_id is not None, event
            chains[(event.machine, getattr(event, subject))].append(event)
        for machine, (model, subject) in MODELS.items():
            rows = model.objects.all()
            assert rows.exists(), machine
            for row in rows:
                key = row.pk if subject == "pair_id" or machine == Machine.ITEM else row.claim_id
                chain = chains.get((machine, key), [])
                changes = [e for e in chain if e.from_status != e.to_status]
                assert changes, f"{machine} {key} has no history"
                assert changes[0].from_status == "", (
                    f"{machine} {key} does not start with its opening"
                )
                for before, after in zip(changes, changes[1:], strict=False):
                    assert after.from_status == before.to_status, (machine, key, before, after)
                    assert lifecycle.can_move(model, after.from_status, after.to_status), after
                state = getattr(row, model.STATE_FIELD)
                assert changes[-1].to_status == state, (machine, key, changes[-1], state)
                # One version per move after the opening (plus changes such as naming an assignee).
                assert row.version >= len(changes), (machine, key)
        # The review stage's dropped pairs, validations and new perturbations all appear.
        assert ClaimPair.objects.filter(state=ClaimPair.State.REPERTURB).exists()
        assert {e.machine for e in events} == set(Machine.values)
        # Pair roles are declared too: the database refuses another.
        role = PairRole.objects.first()
        assert role.role in Role.values
        with pytest.raises(IntegrityError), transaction.atomic():
            PairRole.objects.filter(pk=role.pk).update(role="spectator")

    def test_a_move_outside_the_table_is_refused_and_writes_nothing(self):
        done = WorkItem.objects.filter(status=WorkStatus.DONE).first()
        before = (WorkEvent.objects.count(), done.version)
        with pytest.raises(InvalidTransition, match="done: it cannot become open"):
            lifecycle.move(done, WorkStatus.OPEN, actor=None, action=WorkAction.RELEASED)
        done.refresh_from_db()
        assert (WorkEvent.objects.count(), done.version) == before
        assert done.status == WorkStatus.DONE

    def test_a_claim_is_validated_from_the_moment_it_is_final_and_a_get_writes_nothing(
        self, client
    ):
        final = ClaimReview.objects.filter(
            state__in=[ClaimReview.State.UNANIMOUS, ClaimReview.State.ADJUDICATED],
            claim__superseded_at__isnull=True,
        ).exclude(claim__pair__state=ClaimPair.State.DROPPED)
        final = final.exclude(claim__label="refuted", final_label="entailed")
        assert final.exists()
        assert not final.filter(claim__validation__isnull=True).exists()
        for review in final:
            opened = WorkEvent.objects.get(
                machine=Machine.VALIDATION, claim_id=review.claim_id, action=WorkAction.OPENED
            )
            made_final = (
                WorkEvent.objects.filter(machine=Machine.REVIEW, claim_id=review.claim_id)
                .exclude(from_status="")
                .latest("id")
            )
            assert made_final.to_status == review.state and made_final.id < opened.id
        client.force_login(get_user_model().objects.get(username="admin"))
        rows = (WorkItem.objects.count(), WorkEvent.objects.count(), Validation.objects.count())
        assert client.get(reverse("validation:overview")).status_code == 200
        assert (
            WorkItem.objects.count(),
            WorkEvent.objects.count(),
            Validation.objects.count(),
        ) == rows
