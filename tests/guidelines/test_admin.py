"""The Django admin lists the guideline versions, the submitted items with the version each was
done under, the flags with their fixes and the archiving history; an admin opens each list and
each record, and none of them can be added, changed or deleted there (they are history: the
pages that make them are their only writers)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation import archiving
from annotation.models import ArchiveEvent, WorkItem, WorkKind, WorkStatus
from annotation.review import services as review
from guidelines import services
from guidelines.models import Flag, FlagFix, FlagStatus, GuidelineVersion, SubmittedItem
from tests.annotation.review_factories import annotate, crew, written_pair
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

MODELS = (GuidelineVersion, SubmittedItem, Flag, FlagFix, ArchiveEvent)


@pytest.fixture
def records():
    people = crew("writer", "second", "third")
    written_pair(people["writer"], people["boss"])
    annotate(people["second"])  # an item done under guidelines v1
    item = review.take_next(user=people["third"], kind=WorkKind.BLIND)
    flag = services.raise_flag(user=people["third"], kind="unclear", note="which model?", item=item)
    services.close_flag(flag=flag, by=people["boss"], status="dismissed", note="it says")
    other = written_pair(people["writer"], people["boss"], seed=2)
    archiving.archive_papers(papers=[other.context.paper], by=people["boss"], note="duplicate")
    assert all(model.objects.exists() for model in MODELS)
    return people


def _url(model, view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def test_an_admin_opens_every_list_and_record(records, client) -> None:
    client.force_login(records["boss"])
    for model in MODELS:
        listed = client.get(_url(model, "changelist"))
        assert listed.status_code == 200, model
        obj = model.objects.order_by("pk").first()
        page = client.get(_url(model, "change", obj.pk))
        assert page.status_code == 200, model
        assert 'name="_save"' not in page.content.decode(), model  # viewed, not a form
    listed = client.get(_url(Flag, "changelist"), {"status": "dismissed"}).content.decode()
    assert reverse("guidelines:flag", args=[Flag.objects.get().pk]) in listed  # where it changes
    found = client.get(_url(ArchiveEvent, "changelist"), {"q": "duplicate"}).content.decode()
    assert "duplicate" in found
    flag_page = client.get(_url(Flag, "change", Flag.objects.get().pk)).content.decode()
    assert "it says" in flag_page  # its fixes, inline
    items = client.get(_url(SubmittedItem, "changelist")).content.decode()
    done = WorkItem.objects.filter(status=WorkStatus.DONE)
    assert done.count() == 3 and all(item.key in items for item in done)
    assert items.count('class="field-guideline nowrap">guidelines v1<') == 3  # each one's
    leased = WorkItem.objects.get(status=WorkStatus.LEASED)
    assert leased.key not in items  # not submitted: no version yet
    assert client.get(_url(SubmittedItem, "change", leased.pk)).status_code == 302


def test_no_record_is_added_changed_or_deleted_in_the_admin(records, client) -> None:
    client.force_login(records["boss"])
    before = {model: list(model.objects.order_by("pk").values()) for model in MODELS}
    for model in MODELS:
        obj = model.objects.order_by("pk").first()
        assert client.get(_url(model, "add")).status_code == 403, model
        assert client.get(_url(model, "delete", obj.pk)).status_code == 403, model
        assert client.post(_url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403
        changed = client.post(_url(model, "change", obj.pk), {"note": "rewritten", "_save": "1"})
        assert changed.status_code == 403, model
        bulk = client.post(
            _url(model, "changelist"),
            {"action": "delete_selected", "_selected_action": [obj.pk], "post": "yes"},
        )
        assert bulk.status_code in (200, 302), model  # no such action: nothing happens
    assert {model: list(model.objects.order_by("pk").values()) for model in MODELS} == before
    assert Flag.objects.get().status == FlagStatus.DISMISSED


def test_only_staff_see_these_lists(records, client) -> None:
    client.force_login(UserFactory())
    for model in MODELS:
        response = client.get(_url(model, "changelist"))
        assert response.status_code == 302 and "/login/" in response.url, model
