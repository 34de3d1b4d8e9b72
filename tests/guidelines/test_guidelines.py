"""Versioned guidelines: the seeded first version, who may publish, old versions kept and
readable, the version each submitted item was done under, and that version in the release."""

from __future__ import annotations

import json
import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation import lifecycle
from annotation.models import WorkAction, WorkItem, WorkKind, WorkStatus
from annotation.review import services as review
from guidelines import services
from guidelines.models import GuidelineVersion
from guidelines.seed import CRITERIA_EXAMPLES, first_sections
from tests.annotation.review_factories import annotate, crew, written_pair
from tests.factories import AdminFactory, UserFactory
from validation.models import CRITERIA

pytestmark = pytest.mark.django_db


def _edited(version: GuidelineVersion, body: str) -> list[dict]:
    sections = [dict(s) for s in version.sections]
    sections[0]["body"] = body
    return sections


def test_the_migration_seeds_version_one_from_the_apps_texts() -> None:
    v1 = GuidelineVersion.objects.get()
    assert v1.number == 1 and v1.sections == first_sections()
    keys = [s["key"] for s in v1.sections]
    assert keys[:5] == [
        *(f"subset-{s}" for s in ("direct", "parallel", "sequential", "analytical")),
        "evidence",
    ]
    assert len([k for k in keys if k.startswith("criterion-")]) == 5
    # The checklist's criteria, word for word, in the validation app's order.
    assert [(k, t) for k, t, _ in CRITERIA_EXAMPLES] == list(CRITERIA.items())
    assert "exactly one table or chart" in v1.sections[4]["body"]


def test_an_admin_publishes_a_new_version_and_the_old_one_stays() -> None:
    admin = AdminFactory()
    v1 = services.current_version()
    v2 = services.publish_guidelines(
        by=admin, sections=_edited(v1, "Sharper."), note="direct", based_on=1
    )
    assert (v2.number, services.current_version()) == (2, v2)
    v1.refresh_from_db()
    assert v1.sections == first_sections()  # unchanged, still there
    with pytest.raises(ValueError):
        v1.save()  # append-only
    with pytest.raises(services.GuidelineError, match="was published while you edited"):
        services.publish_guidelines(by=admin, sections=_edited(v1, "x"), note="n", based_on=1)
    with pytest.raises(services.GuidelineError, match="Nothing changed"):
        services.publish_guidelines(by=admin, sections=v2.sections, note="n", based_on=2)
    with pytest.raises(services.GuidelineError, match="Only admins"):
        services.publish_guidelines(
            by=UserFactory(), sections=_edited(v2, "y"), note="n", based_on=2
        )
    assert GuidelineVersion.objects.count() == 2


def test_pages_everyone_reads_and_only_admins_edit(client) -> None:
    expert, admin = UserFactory(), AdminFactory()
    current, edit = reverse("guidelines:current"), reverse("guidelines:edit")
    assert client.get(current).status_code == 302  # sign in first
    client.force_login(expert)
    page = client.get(current).content.decode()
    assert "version 1" in page and "Subset: sequential" in page and "Edit" not in page
    assert client.get(edit).status_code == 403
    sections = GuidelineVersion.objects.get().sections
    form = {"based_on": "1", "count": str(len(sections)), "note": "by an expert"}
    for i, s in enumerate(sections):
        form |= {f"key-{i}": s["key"], f"title-{i}": s["title"], f"body-{i}": s["body"] + "!"}
    assert client.post(edit, form).status_code == 403
    assert GuidelineVersion.objects.count() == 1
    client.force_login(admin)
    form |= {f"title-{len(sections)}": "Units", f"body-{len(sections)}": "Say the unit."}
    assert client.post(edit, form).status_code == 302
    v2 = GuidelineVersion.objects.get(number=2)
    assert v2.sections[-1] == {
        "key": f"section-{len(sections) + 1}",
        "title": "Units",
        "body": "Say the unit.",
    }
    client.force_login(expert)
    old = client.get(reverse("guidelines:version", args=[1])).content.decode()
    assert "This is an old version" in old and "Units" not in old
    assert "Units" in client.get(current).content.decode()
    assert "version 2" in client.get(reverse("guidelines:versions")).content.decode()


def test_each_submission_records_the_version_in_force() -> None:
    people = crew("writer", "second", "third")
    pair = written_pair(people["writer"], people["boss"])
    write = pair.work_items.get(kind=WorkKind.WRITE)
    assert WorkItem.objects.get(pk=write.pk).guideline.number == 1
    v1 = services.current_version()
    services.publish_guidelines(
        by=people["boss"], sections=_edited(v1, "New."), note="n", based_on=1
    )
    item = annotate(people["second"])
    assert WorkItem.objects.get(pk=item.pk).guideline.number == 2


def test_the_version_is_set_by_the_update_that_marks_the_item_done() -> None:
    people = crew("writer", "second")
    written_pair(people["writer"], people["boss"])
    v1 = services.current_version()
    v2 = services.publish_guidelines(
        by=people["boss"], sections=_edited(v1, "New."), note="n", based_on=1
    )
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    evidence = list(item.claim.evidence.values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as queries:
        review.submit_second_annotation(
            item=item,
            user=people["second"],
            version=item.version,
            token=uuid.uuid4(),
            label=item.claim.label,
            evidence_ids=evidence,
        )
    about_guidelines = [q["sql"] for q in queries if "guidelines_" in q["sql"]]
    assert len(about_guidelines) == 1  # no INSERT of a use, no read of the version
    update = about_guidelines[0]
    assert update.startswith('UPDATE "annotation_workitem" SET')
    assert '"status" = ' in update and '"guidelines_guidelineversion"' in update
    assert WorkItem.objects.get(pk=item.pk).guideline == v2


def test_the_item_moved_reads_its_version_from_the_row_not_the_subquery() -> None:
    people = crew("writer", "second")
    written_pair(people["writer"], people["boss"])
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    done = {
        "done_by": people["second"],
        "done_at": timezone.now(),
        "submit_token": uuid.uuid4(),
        "lease_expires_at": None,
    }
    lifecycle.move(
        item, WorkStatus.DONE, actor=people["second"], action=WorkAction.SUBMITTED, changes=done
    )
    assert "guideline_id" not in item.__dict__  # deferred: loaded when read
    assert item.guideline_id == services.current_version().pk
    assert item.guideline.number == 1
    # A later save of the whole row writes the version back unchanged.
    item.draft = {"kept": True}
    item.save()
    assert WorkItem.objects.get(pk=item.pk).guideline.number == 1


@pytest.mark.django_db(transaction=True)
def test_the_migrations_carry_each_items_version_to_the_item_and_back() -> None:
    people = crew("writer", "second")
    # A transactional test may start from an emptied table: then version 1 as the migration.
    if not GuidelineVersion.objects.exists():
        services.publish_guidelines(
            by=people["boss"], sections=first_sections(), note="v1", based_on=0
        )
    pair = written_pair(people["writer"], people["boss"])
    v1 = services.current_version()
    services.publish_guidelines(
        by=people["boss"], sections=_edited(v1, "New."), note="n", based_on=1
    )
    item = annotate(people["second"])
    write = pair.work_items.get(kind=WorkKind.WRITE)
    versions = dict(
        WorkItem.objects.filter(guideline__isnull=False).values_list("pk", "guideline__number")
    )
    assert versions == {write.pk: 1, item.pk: 2}
    done_at = dict(WorkItem.objects.filter(pk__in=versions).values_list("pk", "done_at"))
    before = [("annotation", "0010_archiving"), ("guidelines", "0002_first_version")]
    executor = MigrationExecutor(connection)
    try:
        executor.migrate(before)
        old = executor.loader.project_state(before).apps.get_model("guidelines", "GuidelineUse")
        uses = old.objects.values_list("item_id", "version__number", "at")
        assert {i: n for i, n, _ in uses} == versions  # backwards: a use per item again
        assert {i: at for i, _, at in uses} == done_at  # dated when the item was done
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    items = WorkItem.objects.filter(guideline__isnull=False)
    assert dict(items.values_list("pk", "guideline__number")) == versions  # and forwards


def test_the_release_gives_each_stages_version_beside_sciver_s_own_fields(tmp_path) -> None:
    from tests.validation.factories import Team, validated_pairs
    from tests.validation.releases import load_sciver, run

    team = Team()
    validated_pairs(team, 2)
    run("make_split", "--validation", "2", "--test", "2", "--seed", "3", "--name", "g1")
    out = tmp_path / "SciVer"
    run("export_release", "--split", "g1", "--out", str(out))
    records = load_sciver(tmp_path, "valset.json") + load_sciver(tmp_path, "testset.json")
    assert records and all("guideline_versions" not in r for r in records)  # SciVer's format
    rows = [
        json.loads(line)
        for name in ("validation", "test")
        for line in (out / f"data/{name}.jsonl").read_text().splitlines()
    ]
    assert len(rows) == 4
    for row in rows:
        assert row["guideline_versions"] == {"second_annotation": 1, "validation": 1, "writing": 1}
    assert "Versions used: 1." in (out / "README.md").read_text()


def _links(client, user, url: str, flag: str) -> None:
    client.force_login(user)
    page = client.get(url)
    assert page.status_code == 200, url
    aids = page.content.decode().split('id="task-aids"', 1)[1].split("</p>", 1)[0]
    assert 'href="/guidelines/"' in aids and f'href="{flag}"' in aids, url
    assert client.get(flag).status_code == 200, url


def test_every_task_page_links_the_guidelines_and_its_flag_form(client) -> None:
    import uuid

    from annotation.queue import work
    from annotation.review import services as review
    from annotation.writing import services as writing
    from tests.annotation.factories import make_expert
    from tests.validation.factories import Team, final_pair, second_annotate, validate_all
    from validation import services as validation
    from validation.baseline import services as baseline_services

    team = Team()
    pair, _ = final_pair(team)
    paper = pair.paper
    _links(
        client,
        team.writer,
        f"/curate/{paper.arxiv_id}v{paper.version}/",
        f"/flags/paper/{paper.pk}/",
    )
    writing.create_claim_tasks(paper=paper, by=team.writer, count=1, seed=9)
    write = work.next_item(user=team.writer, kind="write")
    _links(client, team.writer, f"/claims/write/{write.key}/", f"/flags/item/{write.key}/")
    done = WorkItem.objects.filter(kind="evidence", done_by=team.second).first()
    _links(client, team.second, f"/review/annotate/{done.key}/", f"/flags/item/{done.key}/")
    check = validation.take_next(user=team.validators[0])
    _links(client, team.validators[0], f"/validate/{check.key}/", f"/flags/item/{check.key}/")
    # Both annotators call the pair entailed: its refuted claim is adjudicated, entailed, and
    # goes back to its writer for a new perturbation.
    written_pair(team.writer, team.admin, seed=4)
    for annotator in (team.second, team.third):
        taken = review.take_next(user=annotator, kind="evidence")
        second_annotate(
            taken,
            annotator,
            label="entailed",
            evidence=list(taken.claim.evidence.values_list("pk", flat=True)),
        )
    judge = make_expert("judge")
    held = review.take_next(user=judge, kind="adjudicate")
    _links(client, judge, f"/review/adjudicate/{held.key}/", f"/flags/item/{held.key}/")
    review.submit_adjudication(
        item=held,
        user=judge,
        version=held.version,
        token=uuid.uuid4(),
        decision="decided",
        label="entailed",
        evidence_ids=list(held.claim.evidence.values_list("pk", flat=True)),
        confidence="high",
        reason="writer_error",
        notes="the table says so",
    )
    again = WorkItem.objects.get(kind="reperturb", status="open")
    held = work.next_item(user=team.writer, kind="reperturb")
    assert held.pk == again.pk
    _links(client, team.writer, f"/claims/reperturb/{held.key}/", f"/flags/item/{held.key}/")
    validate_all(team)
    a, b = make_expert("base1"), make_expert("base2")
    baseline_services.start_baseline(by=team.admin, expert_ids=[a.pk, b.pk], per_subset=1, seed=1)
    base = baseline_services.take_next_baseline(user=a)
    _links(client, a, f"/baseline/answer/{base.key}/", f"/flags/item/{base.key}/")
