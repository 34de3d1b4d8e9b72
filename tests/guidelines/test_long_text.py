"""No silent truncation on the guideline pages: the editor (a section's key, title and text, the
note), a flag's note and an admin's fixes (caption, text, notes) refuse text longer than they
hold with the limit and its length, the page comes back with the text as typed and nothing is
recorded or cut; text exactly at the limit is taken whole. The services refuse it too, for
whoever calls them without a page (a command, a script, the shell)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import CuratedElement, WorkKind
from annotation.review import services as review
from guidelines import services
from guidelines.models import Flag, FlagFix, FlagStatus, GuidelineVersion
from papers.models import Element
from tests.annotation.review_factories import crew, written_pair
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


def text_of(length: int) -> str:
    """Plain words (nothing HTML escapes), `length` characters, ending in a full stop."""
    text = "Say which table holds the number and what it measures " * (length // 50 + 1)
    return text[: length - 1] + "."


def too_long(field: str, length: int, limit: int) -> str:
    return f"{field}: longer than {limit:,} characters (it has {length:,}); shorten it."


def _editor_form(sections: list[dict], **extra: str) -> dict[str, str]:
    form = {"based_on": "1", "count": str(len(sections)), "note": "sharper"}
    for i, s in enumerate(sections):
        form |= {f"key-{i}": s["key"], f"title-{i}": s["title"], f"body-{i}": s["body"]}
    return form | extra


def test_the_guideline_editor_refuses_long_text_keeps_it_and_takes_it_at_the_limit(client):
    client.force_login(AdminFactory())
    url = reverse("guidelines:edit")
    sections = GuidelineVersion.objects.get().sections
    new = len(sections)  # the form's empty "new section"
    body, title, note = (
        text_of(services.MAX_BODY + 1),
        text_of(201),
        text_of(services.MAX_NOTE + 1),
    )
    form = _editor_form(sections, note=note) | {
        "body-0": body,
        f"title-{new}": title,
        f"body-{new}": "Say the unit.",
        "key-1": "k" * 65,
    }
    refused = client.post(url, form)
    page = refused.content.decode()
    assert refused.status_code == 400 and "Nothing was published" in page
    for message in (
        too_long("Section 1&#x27;s text", services.MAX_BODY + 1, services.MAX_BODY),
        too_long("Section 2&#x27;s key", 65, 64),
        too_long(f"Section {new + 1}&#x27;s title", 201, 200),
        too_long("What changed", services.MAX_NOTE + 1, services.MAX_NOTE),
    ):
        assert message in page
    # Every text as typed, in its box: nothing cut, nothing lost.
    assert f">{body}</textarea>" in page and f'value="{title}"' in page
    assert f'value="{note}"' in page and 'value="' + "k" * 65 + '"' in page
    assert GuidelineVersion.objects.count() == 1
    # Exactly at each limit: published whole.
    body, title, note = text_of(services.MAX_BODY), text_of(200), text_of(services.MAX_NOTE)
    form |= {"body-0": body, f"title-{new}": title, "note": note, "key-1": "k" * 64}
    assert client.post(url, form).status_code == 302
    v2 = GuidelineVersion.objects.get(number=2)
    assert v2.sections[0]["body"] == body and v2.sections[-1]["title"] == title
    assert v2.sections[1]["key"] == "k" * 64 and v2.note == note


@pytest.fixture
def setup():
    people = crew("writer", "second")
    pair = written_pair(people["writer"], people["boss"])
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    ids = CuratedElement.objects.filter(context=item.pair.context, in_context=True)
    shown = Element.objects.filter(pk__in=ids.values("element_id")).order_by("order")
    return people, pair, item, shown


def test_a_flags_note_too_long_is_refused_and_kept_and_one_at_the_limit_is_flagged(setup, client):
    people, _, item, shown = setup
    table = next(e for e in shown if e.kind == "table")
    url = reverse("guidelines:flag_item", args=[item.key])
    client.force_login(people["second"])
    long = text_of(services.MAX_NOTE + 1)
    refused = client.post(url, {"kind": "extraction", "note": long, "element": str(table.pk)})
    page = refused.content.decode()
    assert refused.status_code == 400 and "Nothing was flagged" in page
    assert too_long("note", services.MAX_NOTE + 1, services.MAX_NOTE) in page
    assert f">{long}</textarea>" in page and 'id="err-note"' in page
    assert 'value="extraction" checked' in page and f'value="{table.pk}" selected' in page
    assert not Flag.objects.exists()
    at_limit = text_of(services.MAX_NOTE)
    client.post(url, {"kind": "extraction", "note": at_limit, "element": str(table.pk)})
    assert Flag.objects.get().note == at_limit


def test_an_admins_fixes_refuse_long_text_keep_it_and_take_it_at_the_limit(setup, client):
    people, _, item, shown = setup
    table = next(e for e in shown if e.kind == "table")
    flag = services.raise_flag(
        user=people["second"], kind="extraction", note="caption cut", item=item, element_id=table.pk
    )
    url = reverse("guidelines:flag", args=[flag.pk])
    client.force_login(people["boss"])
    caption, old_caption = text_of(services.MAX_BODY + 1), table.caption
    refused = client.post(url, {"action": "edit", "caption": caption, "note": "restored"})
    page = refused.content.decode()
    assert refused.status_code == 400 and "Nothing was recorded" in page
    assert too_long("caption", services.MAX_BODY + 1, services.MAX_BODY) in page
    assert f'id="caption">{caption}</textarea>' in page and 'value="restored"' in page
    table.refresh_from_db()
    assert table.caption == old_caption and not FlagFix.objects.exists()
    note = text_of(services.MAX_NOTE + 1)
    for action in ("mark", "dismissed"):
        refused = client.post(url, {"action": action, "note": note})
        page = refused.content.decode()
        assert refused.status_code == 400, action
        assert too_long("note", services.MAX_NOTE + 1, services.MAX_NOTE) in page
        assert f'value="{note}"' in page and page.count(f'value="{note}"') == 1
    table.refresh_from_db()
    flag.refresh_from_db()
    assert not table.degraded and flag.status == FlagStatus.OPEN and not FlagFix.objects.exists()
    # Exactly at the limits: recorded whole.
    caption, note = text_of(services.MAX_BODY), text_of(services.MAX_NOTE)
    assert client.post(url, {"action": "edit", "caption": caption, "note": note}).status_code == 302
    assert client.post(url, {"action": "dismissed", "note": note}).status_code == 302
    table.refresh_from_db()
    flag.refresh_from_db()
    assert table.caption == caption and flag.status == FlagStatus.DISMISSED
    assert [x.note for x in FlagFix.objects.order_by("id")] == [note, note]


# --- The services themselves (a command, a script, the shell): refused, never cut ------------


def _sections_at(key: int, title: int, body: int) -> list[dict[str, str]]:
    return [{"key": "k" * key, "title": text_of(title), "body": text_of(body)}]


@pytest.mark.parametrize(
    "sections, note, message",
    [
        (_sections_at(65, 200, 100), "sharper", too_long("Section 1's key", 65, services.MAX_KEY)),
        (
            _sections_at(64, 201, 100),
            "sharper",
            too_long("Section 1's title", 201, services.MAX_TITLE),
        ),
        (
            _sections_at(64, 200, services.MAX_BODY + 1),
            "sharper",
            too_long("Section 1's text", services.MAX_BODY + 1, services.MAX_BODY),
        ),
        (
            _sections_at(64, 200, 100),
            text_of(services.MAX_NOTE + 1),
            too_long("note", services.MAX_NOTE + 1, services.MAX_NOTE),
        ),
    ],
)
def test_publishing_refuses_text_over_its_limit_and_publishes_it_whole_at_the_limit(
    sections, note, message
):
    admin = AdminFactory()
    with pytest.raises(services.GuidelineError) as refused:
        services.publish_guidelines(by=admin, sections=sections, note=note, based_on=1)
    assert refused.value.message == f"Nothing was published: {message}"
    assert GuidelineVersion.objects.count() == 1
    whole = _sections_at(64, 200, services.MAX_BODY)
    at_limit = text_of(services.MAX_NOTE)
    published = services.publish_guidelines(by=admin, sections=whole, note=at_limit, based_on=1)
    published.refresh_from_db()
    assert published.sections == whole and published.note == at_limit


def test_a_flag_refuses_a_note_over_the_limit_and_keeps_one_at_it_whole(setup):
    people, _, item, shown = setup
    table = next(e for e in shown if e.kind == "table")
    flag = {"user": people["second"], "kind": "extraction", "item": item, "element_id": table.pk}
    with pytest.raises(services.GuidelineError) as refused:
        services.raise_flag(note=text_of(services.MAX_NOTE + 1), **flag)
    assert refused.value.message == "Nothing was flagged: " + too_long(
        "note", services.MAX_NOTE + 1, services.MAX_NOTE
    )
    assert not Flag.objects.exists()
    at_limit = text_of(services.MAX_NOTE)
    assert services.raise_flag(note=at_limit, **flag).note == at_limit
    assert Flag.objects.get().note == at_limit


def test_a_fix_refuses_a_note_or_reason_over_the_limit_and_records_one_at_it_whole(setup):
    people, _, item, shown = setup
    table = next(e for e in shown if e.kind == "table")
    flag = services.raise_flag(
        user=people["second"], kind="extraction", note="caption cut", item=item, element_id=table.pk
    )
    admin, long = people["boss"], text_of(services.MAX_NOTE + 1)
    old_caption, new_caption = table.caption, "Table 1: BLEU on the test set."
    for fix, field in (
        (
            lambda note: services.edit_flagged_element(
                flag=flag, by=admin, caption=new_caption, note=note
            ),
            "note",
        ),
        (lambda note: services.mark_flagged_element(flag=flag, by=admin, reason=note), "reason"),
        (
            lambda note: services.close_flag(
                flag=flag, by=admin, status=FlagStatus.FIXED, note=note
            ),
            "note",
        ),
    ):
        with pytest.raises(services.GuidelineError) as refused:
            fix(long)
        said = too_long(field, services.MAX_NOTE + 1, services.MAX_NOTE)
        assert refused.value.message == f"Nothing was recorded: {said}"
    table.refresh_from_db()
    flag.refresh_from_db()
    assert table.caption == old_caption and not table.degraded
    assert flag.status == FlagStatus.OPEN and not FlagFix.objects.exists()
    at_limit = text_of(services.MAX_NOTE)
    services.edit_flagged_element(flag=flag, by=admin, caption=new_caption, note=at_limit)
    services.mark_flagged_element(flag=flag, by=admin, reason=at_limit)
    services.close_flag(flag=flag, by=admin, status=FlagStatus.FIXED, note=at_limit)
    table.refresh_from_db()
    flag.refresh_from_db()
    assert table.caption == new_caption and table.degraded_reasons[-1] == f"flagged: {at_limit}"
    assert flag.status == FlagStatus.FIXED
    assert [x.note for x in FlagFix.objects.order_by("id")] == [at_limit] * 3


def test_a_fixed_caption_or_text_over_the_limit_is_refused_whole_by_the_service(setup):
    """The flag page refuses a caption or text longer than MAX_BODY; a script calling the
    service directly is refused the same way, and nothing is changed."""
    people, _, item, shown = setup
    table = next(e for e in shown if e.kind == "table")
    flag = services.raise_flag(
        user=people["second"], kind="extraction", note="caption cut", item=item, element_id=table.pk
    )
    admin, long = people["boss"], text_of(services.MAX_BODY + 1)
    old_caption = table.caption
    for field in ("caption", "text"):
        with pytest.raises(services.GuidelineError) as refused:
            services.edit_flagged_element(flag=flag, by=admin, **{field: long})
        said = too_long(field, services.MAX_BODY + 1, services.MAX_BODY)
        assert refused.value.message == f"Nothing was recorded: {said}"
    table.refresh_from_db()
    assert table.caption == old_caption and not FlagFix.objects.exists()
    at_limit = text_of(services.MAX_BODY)
    services.edit_flagged_element(flag=flag, by=admin, caption=at_limit)
    table.refresh_from_db()
    assert table.caption == at_limit
