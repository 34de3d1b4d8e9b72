"""Every route of guidelines, flags and "edit my last answer", for each role: anonymous (to
sign-in), an expert with no part in the item (404 for items, as for one that does not exist;
403 for admin pages), the item's author, an admin."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import WorkItem, WorkKind
from guidelines import services
from tests.annotation.factories import make_expert
from tests.validation.factories import Team, final_pair, validate_all

pytestmark = pytest.mark.django_db


def test_each_route_for_each_role(client) -> None:
    team = Team()
    pair, _ = final_pair(team)
    validate_all(team)
    held = WorkItem.objects.filter(kind=WorkKind.BLIND, done_by=team.second).first()
    checked = WorkItem.objects.filter(kind=WorkKind.VALIDATE, status="done").first()
    stranger = make_expert("stranger")
    flag = services.raise_flag(user=team.second, kind="unsure", note="n", item=held)
    paper = pair.paper
    # route, its author (None: any signed-in user), expected for stranger / author / admin
    table = [
        (reverse("guidelines:current"), None, 200, 200, 200),
        (reverse("guidelines:versions"), None, 200, 200, 200),
        (reverse("guidelines:version", args=[1]), None, 200, 200, 200),
        (reverse("guidelines:version", args=[99]), None, 404, 404, 404),
        (reverse("guidelines:edit"), None, 403, 403, 200),
        (reverse("guidelines:queue"), None, 403, 403, 200),
        (reverse("guidelines:flag", args=[flag.pk]), team.second, 403, 403, 200),
        (reverse("guidelines:flag_item", args=[held.key]), team.second, 404, 200, 404),
        (reverse("guidelines:flag_paper", args=[paper.pk]), team.writer, 403, 200, 403),
        (reverse("answers:edit", args=[held.key]), team.second, 404, 200, 404),
        (reverse("validation_answers:edit", args=[checked.key]), checked.done_by, 404, 200, 404),
    ]
    for url, author, as_stranger, as_author, as_admin in table:
        client.logout()
        assert client.get(url).status_code == 302, url  # to the sign-in page
        for user, expected in (
            (stranger, as_stranger),
            (author or team.third, as_author),
            (team.admin, as_admin),
        ):
            client.force_login(user)
            assert client.get(url).status_code == expected, (url, user.username)
    # Writes too: a stranger's POST changes nothing.
    client.force_login(stranger)
    for url in (
        reverse("guidelines:flag_item", args=[held.key]),
        reverse("answers:edit", args=[held.key]),
    ):
        assert (
            client.post(url, {"kind": "unsure", "note": "x", "label": "refuted"}).status_code == 404
        )
    assert (
        client.post(
            reverse("guidelines:flag", args=[flag.pk]), {"action": "dismissed", "note": "x"}
        ).status_code
        == 403
    )
    flag.refresh_from_db()
    assert flag.status == "open" and flag.fixes.count() == 0
