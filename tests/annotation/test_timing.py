"""Time per item and per expert from the work items' history (issue 20): the definition on
events built by hand, then through the real lease and submission services, the People page and
its CSV."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.utils import timezone

from annotation import timing
from annotation.assignment import services as assignment_services
from annotation.models import WorkAction, WorkEvent
from annotation.queue import work
from annotation.timing import Event, leases
from annotation.writing import services as writing
from tests.annotation.claim_factories import curated_paper, submit
from tests.annotation.factories import make_expert
from tests.factories import AdminFactory

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
CAP = dt.timedelta(minutes=60)


def at(minutes: float) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def test_active_time_runs_from_claim_to_submission_each_stretch_capped():
    events = [
        Event(1, WorkAction.CLAIMED, 7, at(0)),
        Event(1, WorkAction.LEASE_RENEWED, 7, at(10)),
        Event(1, WorkAction.SUBMITTED, 7, at(25)),
        # Item 2: claimed, away for three hours, back (renewed), ten minutes, submitted.
        Event(2, WorkAction.CLAIMED, 7, at(0)),
        Event(2, WorkAction.LEASE_RENEWED, 7, at(180)),
        Event(2, WorkAction.SUBMITTED, 7, at(190)),
    ]
    found = {lease.item_id: lease for lease in leases(events, cap=CAP)}
    assert found[1].active_seconds == 25 * 60 and found[1].outcome == "submitted"
    assert found[2].active_seconds == (60 + 10) * 60  # the three hours count as one


def test_leases_that_end_without_a_submission_are_counted_apart():
    events = [
        Event(3, WorkAction.CLAIMED, 7, at(0)),
        Event(3, WorkAction.RELEASED, 7, at(5)),
        Event(3, WorkAction.CLAIMED, 8, at(30)),
        # Recorded when someone next asked for work; the lease ran out at minute 50.
        Event(3, WorkAction.LEASE_EXPIRED, None, at(400), {"lease_expires_at": at(50).isoformat()}),
        Event(3, WorkAction.CLAIMED, 9, at(400)),
        Event(3, WorkAction.SUBMITTED, 9, at(412)),
        Event(4, WorkAction.CLAIMED, 9, at(0)),  # still held
        Event(4, WorkAction.LEASE_RENEWED, 9, at(3)),
    ]
    found = leases(events, cap=CAP)
    assert [(lease.expert_id, lease.outcome, lease.active_seconds) for lease in found] == [
        (7, "released", 300.0),
        (8, "expired", 20 * 60.0),
        (9, "submitted", 12 * 60.0),
        (9, "open", 180.0),
    ]


def test_durations_read_as_people_say_them():
    assert timing.format_duration(None) == "—"
    assert timing.format_duration(40) == "40 s"
    assert timing.format_duration(12 * 60 + 5) == "12 min"
    assert timing.format_duration(65 * 60) == "1 h 05 min"


@pytest.mark.django_db
def test_people_page_and_csv_give_each_experts_time_from_the_real_history(client, settings):
    admin = AdminFactory()
    writer = make_expert("writer")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[writer], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=writer, count=1, seed=3)
    item = work.next_item(user=writer, kind="write")
    submit(item, writer)
    # The history's clock: claimed at 9:00, submitted at 9:17 (moved back from "now").
    events = WorkEvent.objects.filter(item=item)
    events.filter(action=WorkAction.CLAIMED).update(at=at(0))
    events.filter(action=WorkAction.SUBMITTED).update(at=at(17))
    assert timezone.now() > at(17)

    client.force_login(admin)
    page = client.get("/manage/people/").content.decode()
    row = page[page.index('data-user="writer"') :]
    row = row[: row.index("</tr>")]
    assert "17 min" in row and ">1<" in row  # one item done, 17 minutes active
    assert "counted up to 60 minutes" in page  # the definition, with the cap in force
    response = client.get("/manage/people/time.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["expert"], r["kind"], r["active_seconds"], r["leases"]) for r in rows] == [
        ("writer", "write", "1020", "1")
    ]
    assert rows[0]["paper"] == paper.versioned_id and rows[0]["archived_paper"] == "no"

    client.force_login(writer)
    assert client.get("/manage/people/time.csv").status_code == 403
    client.logout()
    assert client.get("/manage/people/time.csv").status_code == 302
