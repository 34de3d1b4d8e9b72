"""A pair dropped after its claims reached validation: its validation items (open or leased) and
any new-perturbation item are cancelled, and its validations no longer count anywhere."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.errors import InvalidTransition
from annotation.models import WorkEvent, WorkItem, WorkKind
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import selectors as writing_selectors
from tests.annotation.reperturbation import found_true
from tests.validation.factories import Team, final_pair, pass_validation
from validation import selectors, services
from validation.models import Validation

pytestmark = pytest.mark.django_db


def overview(client, admin) -> dict:
    client.force_login(admin)
    response = client.get(reverse("validation:overview"))
    assert response.status_code == 200
    return response.context


def test_dropping_a_pair_in_validation_cancels_its_items_and_nothing_counts_as_pending(client):
    team = Team()
    pair, claims = final_pair(team)
    other, _ = final_pair(team, seed=2)  # a pair that stays
    validator = team.validators[0]
    leased = services.take_next(user=validator)
    validated = pass_validation(leased, validator)
    held = services.take_next(user=validator)  # the pair's other claim, named for its validator
    assert held.pair_id == pair.pk and held.status == "leased"
    assert overview(client, team.admin)["pending"] == 3

    review.drop_pair(pair=pair, by=team.admin, reason="the paper was withdrawn")

    items = WorkItem.objects.filter(pair=pair, kind=WorkKind.VALIDATE)
    assert {i.pk: i.status for i in items} == {leased.pk: "done", held.pk: "cancelled"}
    event = WorkEvent.objects.get(item=held, action="cancelled")
    assert (event.from_status, event.actor, event.note) == (
        "leased",
        team.admin,
        "pair dropped: the paper was withdrawn",
    )
    with pytest.raises(work.NotHolder):  # the validator's open page is refused, nothing recorded
        pass_validation(held, validator)
    assert Validation.objects.get(claim=held.claim).status == "pending"
    # No longer waiting, no longer validated: only the other pair counts.
    context = overview(client, team.admin)
    assert (context["pending"], context["validated"]) == (2, 0)
    assert selectors.dataset_statistics()["validated"] == 0
    assert not selectors.live_validations().filter(claim__pair=pair).exists()
    assert validated.status == "validated"  # the row itself is kept, with its history
    queue = selectors.validation_queue(team.validators[1])
    assert queue["available"] == 2  # the other pair's two claims
    assert {
        i.pair_id for i in work.available_to(validator, WorkKind.VALIDATE, held.created_at)
    } <= {other.pk}
    with pytest.raises(InvalidTransition, match="dropped"):
        services.reopen_validation(claim=validated.claim, by=team.admin, reason="look again")
    assert not selectors.final_claims().filter(pair=pair).exists()


def test_dropping_a_pair_cancels_its_open_new_perturbation():
    c, pair = found_true()
    item = WorkItem.objects.get(pair=pair, kind=WorkKind.REPERTURB)
    validation_item = WorkItem.objects.get(pair=pair, kind=WorkKind.VALIDATE)
    assert writing_selectors.writing_queue(c["wendy"], []).reperturb_to_write == 1

    review.drop_pair(pair=pair, by=c["boss"], reason="duplicate of pair 1")

    item.refresh_from_db()
    validation_item.refresh_from_db()
    assert (item.status, validation_item.status) == ("cancelled", "cancelled")
    assert writing_selectors.writing_queue(c["wendy"], []).reperturb_to_write == 0
    with pytest.raises(work.NothingToDo):
        work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    assert selectors.complete_pair_ids() == ([], [])  # no longer waiting for its writer
    assert selectors.back_to_writer() == []
