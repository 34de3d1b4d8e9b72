"""Helpers of the browser tests of work pages: a person signed in by their session cookie, a
writing task held by its writer, and a valid pair typed into its page."""

from __future__ import annotations

from django.conf import settings
from django.test import Client

from annotation.assignment import services as assignment_services
from annotation.models import WorkItem
from annotation.queue import work
from annotation.writing import services as writing
from tests.annotation.claim_factories import curated_paper, pair_fields
from tests.annotation.review_factories import crew


def signed_in(page, live_server, user) -> None:
    """`user`'s session in the page's browser context (the sign-in page is tested elsewhere)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )


def writing_task(*names: str):
    c = crew(*(names or ("alice",)))
    writer = c[names[0] if names else "alice"]
    paper, _ = curated_paper(c["boss"])
    assignment_services.assign_papers(papers=[paper], experts=[writer], assigned_by=c["boss"])
    writing.create_claim_tasks(paper=paper, by=writer, count=1, seed=3)
    return c, work.next_item(user=writer, kind="write")


def write_pair(page, item: WorkItem, **overrides) -> dict:
    fields = pair_fields(item, **overrides)
    page.fill("#id_entailed", fields["entailed"])
    for pk in fields["evidence_ids"]:
        page.locator(f"input.ev[value='{pk}']").first.check()
    page.fill("#id_refuted", fields["refuted"])
    page.select_option("#id_perturbation_kind", fields["perturbation_kind"])
    page.fill("#id_explanation", fields["explanation"])
    return fields
