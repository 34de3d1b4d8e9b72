"""Archiving (issue 20): demo data and retired accounts put away, hidden from lists, queues,
statistics, agreement, splits and exports, kept in the history, and brought back."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from annotation import archiving, errors
from annotation.assignment import services as assignment_services
from annotation.experts import services as expert_services
from annotation.experts.selectors import eligible_experts, experts
from annotation.models import ArchiveEvent, ClaimPair, ExpertProfile, WorkEvent, WorkItem
from annotation.queue import work
from annotation.review.stats import agreement_items, agreement_summary
from papers.models import Paper
from tests.annotation.claim_factories import curated_paper
from tests.annotation.factories import make_expert, make_paper
from tests.factories import AdminFactory, UserFactory
from tests.validation.factories import Team, validated_pairs
from validation import selectors as validation_selectors
from validation.export import ReleaseError, build_release
from validation.split import services as split_services
from workspace import selectors as workspace_selectors
from workspace.demo.archive import archive_demo, unarchive_demo

pytestmark = pytest.mark.django_db


def synthetic_expert(name: str):
    user = make_expert(name)
    user.set_unusable_password()
    user.save()
    return user


def demo():
    real = make_paper(title="A real paper")
    fake = [make_paper(title=f"Synthetic {n}") for n in range(2)]
    Paper.objects.filter(pk__in=[p.pk for p in fake]).update(synthetic=True)
    sims = [synthetic_expert(f"sim-cl-{n}") for n in (1, 2)]
    return real, fake, sims


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_archive_demo_puts_synthetic_papers_and_experts_away_and_undo_brings_them_back(client):
    real, fake, sims = demo()
    person = make_expert("alice")
    papers_before = Paper.objects.count()
    output = run("archive_demo")
    assert "Archived 2 synthetic paper(s) and 2 synthetic expert(s)" in output
    assert set(Paper.objects.filter(archived_at__isnull=False)) == set(fake)
    assert Paper.objects.get(pk=real.pk).archived_at is None
    profiles = {p.user.username: p for p in ExpertProfile.objects.select_related("user")}
    assert profiles["sim-cl-1"].archived_at and not profiles["sim-cl-1"].active
    assert profiles["alice"].archived_at is None and profiles["alice"].active
    assert Paper.objects.count() == papers_before  # nothing deleted
    assert ArchiveEvent.objects.filter(action="archived").count() == 4  # 2 papers, 2 accounts
    assert run("archive_demo").startswith("Archived 0 synthetic paper(s) and 0")  # idempotent

    admin = AdminFactory()
    client.force_login(admin)
    people = client.get("/manage/people/").content.decode()
    assert "sim-cl-1" not in people and person.username in people
    assert "2 archived accounts hidden" in people
    assert "sim-cl-1" in client.get("/manage/people/?show=archived").content.decode()
    papers = client.get("/papers/").content.decode()
    assert real.versioned_id in papers and fake[0].versioned_id not in papers
    assert "2 archived papers hidden" in papers
    assert fake[0].versioned_id in client.get("/papers/?show=archived").content.decode()

    output = run("archive_demo", "--undo")
    assert "Un-archived 2 synthetic paper(s) and 2 synthetic expert(s)" in output
    assert not Paper.objects.filter(archived_at__isnull=False).exists()
    back = ExpertProfile.objects.get(user__username="sim-cl-1")
    assert back.archived_at is None and not back.active  # shown again, still no work
    assert ArchiveEvent.objects.filter(action="unarchived").count() == 4


def test_the_demo_is_archived_from_the_papers_page_and_only_by_an_admin(client):
    _, fake, _ = demo()
    annotator = UserFactory()
    client.force_login(annotator)
    assert client.post("/manage/archive/", {"action": "archive_demo"}).status_code == 403
    assert not Paper.objects.filter(archived_at__isnull=False).exists()
    client.logout()
    response = client.post("/manage/archive/", {"action": "archive_demo"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]

    client.force_login(AdminFactory())
    page = client.get("/papers/").content.decode()
    assert 'value="archive_demo"' in page and "2 synthetic papers and 2 synthetic experts" in page
    response = client.post(
        "/manage/archive/", {"action": "archive_demo", "confirm": "yes"}, follow=True
    )
    assert "Archived 2 synthetic paper(s) and 2 synthetic expert(s)" in response.content.decode()
    assert Paper.objects.filter(archived_at__isnull=False).count() == 2
    response = client.post(
        "/manage/archive/", {"action": "unarchive_papers", "papers": [fake[0].pk]}, follow=True
    )
    assert "Un-archived 1 paper(s)" in response.content.decode()
    assert Paper.objects.filter(archived_at__isnull=False).get() == fake[1]
    response = client.post("/manage/archive/", {"action": "archive_papers"}, follow=True)
    assert "Select at least one paper." in response.content.decode()


def test_an_archived_papers_work_leaves_every_queue_and_comes_back_with_it():
    admin = AdminFactory()
    writer = make_expert("writer")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[writer], assigned_by=admin)
    from annotation.writing import services as writing

    writing.create_claim_tasks(paper=paper, by=writer, count=1, seed=1)
    assert work.queue(writer).available["write"] == 1
    archiving.archive_papers(papers=[paper], by=admin)
    assert work.queue(writer).available["write"] == 0
    with pytest.raises(work.NothingToDo):
        work.next_item(user=writer, kind="write")
    assert workspace_selectors.workspace(writer).assigned == 0
    other, _ = curated_paper(admin)
    archiving.archive_papers(papers=[other], by=admin)
    with pytest.raises(errors.IneligibleExpert, match="Archived papers cannot be assigned"):
        assignment_services.assign_papers(papers=[other], experts=[writer], assigned_by=admin)

    archiving.unarchive_papers(papers=[paper], by=admin)
    item = work.next_item(user=writer, kind="write")  # the same open item, untouched
    assert item.paper_id == paper.pk and WorkItem.objects.filter(paper=paper).count() == 1


def test_archived_papers_leave_statistics_agreement_the_split_pool_and_exports(tmp_path):
    team = Team()
    pairs = validated_pairs(team, 3)
    ok, _ = validation_selectors.complete_pair_ids()
    assert len(ok) == 3
    split = split_services.freeze_split(validation=2, test=4, seed=1, name="before")
    claims_before = len(agreement_items())
    events_before = WorkEvent.objects.count()
    gone = pairs[0].paper
    archiving.archive_papers(papers=[gone], by=team.admin, note="test")

    ok, _ = validation_selectors.complete_pair_ids()
    assert pairs[0].pk not in ok and len(ok) == 2
    assert len(agreement_items()) == claims_before - 2
    assert agreement_summary().archived_papers == 1
    stats = validation_selectors.dataset_statistics()
    assert stats["validated"] == 4 and dict(stats["progress"])["claims validated"] == 4
    assert dict(stats["progress"])["papers crawled"] == 2
    with pytest.raises(ReleaseError, match="its paper was archived"):
        build_release(split)
    new = split_services.freeze_split(validation=2, test=2, seed=1, name="after")
    assert pairs[0].pk not in set(new.members.values_list("pair_id", flat=True))
    assert WorkEvent.objects.count() == events_before  # the history is untouched
    assert ClaimPair.objects.filter(paper=gone).count() == 1  # and nothing deleted

    archiving.unarchive_papers(papers=[gone], by=team.admin)
    assert len(validation_selectors.complete_pair_ids()[0]) == 3
    build_release(split)  # exportable again


def test_an_account_is_archived_from_people_only_without_open_work_and_never_oneself(client):
    admin = AdminFactory()
    busy = make_expert("busy")
    retired = make_expert("retired")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[busy], assigned_by=admin)
    client.force_login(admin)
    response = client.post(f"/manage/people/{busy.pk}/archive/", follow=True)
    assert "still has 1 open paper assignment" in response.content.decode()
    assert ExpertProfile.objects.get(user=busy).archived_at is None
    response = client.post(f"/manage/people/{admin.pk}/archive/", follow=True)
    assert "You cannot archive your own account." in response.content.decode()

    response = client.post(f"/manage/people/{retired.pk}/archive/", follow=True)
    assert "retired archived" in response.content.decode()
    profile = ExpertProfile.objects.get(user=retired)
    assert profile.archived_at and not profile.active
    assert retired not in eligible_experts("cs.CL")
    assert retired not in experts(active_only=True)
    page = client.get("/manage/assignments/").content.decode()
    assert f'value="{busy.pk}">busy' in page and f'name="experts" value="{busy.pk}"' in page
    assert f'value="{retired.pk}">retired' not in page  # neither offered to assign to one
    assert f'name="experts" value="{retired.pk}"' not in page  # nor to spread over

    # Ticking "active" on an archived profile does not make it eligible: archived wins.
    expert_services.update_expert_profile(
        profile=profile, subfields=list(profile.subfields.all()), active=True
    )
    assert retired not in eligible_experts("cs.CL")
    result = client.post(
        "/manage/assignments/",
        {"action": "assign", "papers": [make_paper().pk], "expert": retired.pk},
        follow=True,
    )
    assert "Nothing was changed" in result.content.decode()
    client.post(f"/manage/people/{retired.pk}/archive/", {"action": "unarchive"})
    assert ExpertProfile.objects.get(user=retired).archived_at is None


def test_archiving_an_account_needs_an_admin(client):
    person = make_expert("someone")
    client.force_login(make_expert("annotator"))
    assert client.post(f"/manage/people/{person.pk}/archive/").status_code == 403
    assert ExpertProfile.objects.get(user=person).archived_at is None


def test_an_archiving_note_over_the_limit_is_refused_by_every_service_and_kept_whole_at_it(
    client,
):
    """The services refuse a note longer than an ArchiveEvent holds (whoever calls them: a page,
    a command, the shell), before anything is put away, and never cut it; the pages refuse it
    first, as a 400 that names the field, and nothing is archived."""
    _, fake, _ = demo()
    admin, person, paper = AdminFactory(), make_expert("retired"), make_paper(title="Put away")
    long, at_limit = "n" * (archiving.MAX_NOTE + 1), "n" * archiving.MAX_NOTE
    said = "note: longer than 500 characters (it has 501); shorten it."
    for archive in (
        lambda note: archiving.archive_papers(papers=[paper], by=admin, note=note),
        lambda note: archiving.archive_account(user=person, by=admin, note=note),
        lambda note: archive_demo(by=admin, note=note),
    ):
        with pytest.raises(archiving.ArchiveError) as refused:
            archive(long)
        assert refused.value.message == f"Nothing was archived: {said}"
    client.force_login(admin)
    for url, data in (
        ("/manage/archive/", {"action": "archive_papers", "papers": [paper.pk]}),
        (f"/manage/people/{person.pk}/archive/", {"action": "archive"}),
    ):
        response = client.post(url, data | {"note": long})
        assert response.status_code == 400 and said in response.content.decode()
    assert not Paper.objects.filter(archived_at__isnull=False).exists()
    assert not ExpertProfile.objects.filter(archived_at__isnull=False).exists()
    assert not ArchiveEvent.objects.exists()

    assert archiving.archive_papers(papers=[paper], by=admin, note=at_limit) == 1
    archiving.archive_account(user=person, by=admin, note=at_limit)
    assert archive_demo(by=admin, note=at_limit).papers == len(fake)
    assert set(ArchiveEvent.objects.values_list("note", flat=True)) == {at_limit}
    archived = ArchiveEvent.objects.count()
    for unarchive in (
        lambda note: archiving.unarchive_papers(papers=[paper], by=admin, note=note),
        lambda note: archiving.unarchive_account(user=person, by=admin, note=note),
        lambda note: unarchive_demo(by=admin, note=note),
    ):
        with pytest.raises(archiving.ArchiveError) as refused:
            unarchive(long)
        assert refused.value.message == f"Nothing was un-archived: {said}"
    assert ArchiveEvent.objects.count() == archived
    assert not Paper.objects.filter(
        pk__in=[paper.pk, *(p.pk for p in fake)], archived_at__isnull=True
    ).exists()
    assert ExpertProfile.objects.get(user=person).archived_at is not None
    assert archiving.unarchive_papers(papers=[paper], by=admin, note=at_limit) == 1
    archiving.unarchive_account(user=person, by=admin, note=at_limit)
    assert unarchive_demo(by=admin, note=at_limit).papers == len(fake)
    back = ArchiveEvent.objects.filter(action="unarchived")
    assert back.count() == archived and set(back.values_list("note", flat=True)) == {at_limit}
