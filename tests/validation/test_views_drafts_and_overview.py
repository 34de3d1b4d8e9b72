"""The validation pages after QA: the validator's draft (autosaved, put back on reload), the
evidence boxes' accessible names, the workspace counting only the claims this expert may
validate, the overview's final labels and frozen-split warnings on re-open, and the baseline
study's page before anyone answers."""

from __future__ import annotations

import json
import re
import uuid
from html.parser import HTMLParser

import pytest

from annotation.models import Claim, WorkItem, WorkKind
from tests.annotation.factories import make_expert
from tests.validation.factories import Team, final_pair, pass_validation, validate_all
from validation import selectors, services
from validation.baseline import services as baseline_services
from validation.models import SplitMember, SplitVersion

pytestmark = pytest.mark.django_db

NEW_TEXT = "Ours gets a BLEU of 73.2 on the test set, which is above the Baseline model."


@pytest.fixture
def team() -> Team:
    return Team()


@pytest.fixture
def held(team) -> WorkItem:
    """A final pair's first claim, leased to validator0."""
    final_pair(team)
    return services.take_next(user=team.validators[0])


def autosave(client, item: WorkItem, draft: dict, version: int | None = None):
    return client.post(
        f"/validate/{item.key}/",
        json.dumps({"version": item.version if version is None else version, "draft": draft}),
        content_type="application/json",
    )


def draft_for(item: WorkItem, **changes) -> dict:
    claim = item.claim
    draft = {
        "text": claim.text,
        "subset": claim.pair.subset,
        "label": claim.review.final_label,
        "evidence": sorted(claim.review.final_evidence.values_list("pk", flat=True)),
        "explanation": claim.explanation,
        "criteria_failed": [],
    }
    return draft | changes


class Inputs(HTMLParser):
    """Every <input>, <textarea> and <option> of a page with its attributes (and its text)."""

    def __init__(self):
        super().__init__()
        self.inputs: list[dict] = []
        self.textareas: dict[str, str] = {}
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input":
            self.inputs.append(attrs)
        elif tag == "textarea":
            self._textarea = attrs.get("name")
            self.textareas[self._textarea] = ""

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.textareas[self._textarea] += data


def parse(html: str) -> Inputs:
    parser = Inputs()
    parser.feed(html)
    return parser


# --- 1. The validator's draft ------------------------------------------------------------


def test_the_validators_choices_autosave_and_come_back_on_reload(client, team, held):
    client.force_login(team.validators[0])
    claim = held.claim
    evidence = sorted(claim.review.final_evidence.values_list("pk", flat=True))
    draft = draft_for(held, text=NEW_TEXT, criteria_failed=["language"], evidence=evidence[:-1])
    response = autosave(client, held, draft)
    assert response.status_code == 200, response.content
    assert "saved_at" in response.json()
    held.refresh_from_db()
    assert held.draft["text"] == NEW_TEXT and held.draft["criteria_failed"] == ["language"]

    page = client.get(f"/validate/{held.key}/")
    assert page.status_code == 200
    form = parse(page.content.decode())
    assert form.textareas["text"] == NEW_TEXT
    ticked = {
        i["value"] for i in form.inputs if i.get("name") == "criteria_failed" and "checked" in i
    }
    assert ticked == {"language"}
    marked = {
        int(i["value"]) for i in form.inputs if i.get("name") == "evidence" and "checked" in i
    }
    assert marked == set(evidence[:-1])
    assert "Restored your draft" in page.content.decode()
    claim.refresh_from_db()
    assert claim.text != NEW_TEXT  # a draft changes nothing until it is submitted


def test_a_draft_is_refused_to_others_and_from_a_stale_page(client, team, held):
    client.force_login(team.writer)  # never held it: as for a key that names no item
    assert autosave(client, held, draft_for(held, text=NEW_TEXT)).status_code == 404
    client.force_login(team.admin)  # an admin may look at the page, not write the draft
    assert autosave(client, held, draft_for(held, text=NEW_TEXT)).status_code == 403
    client.force_login(team.validators[0])
    stale = autosave(client, held, draft_for(held, text=NEW_TEXT), version=held.version - 1)
    assert stale.status_code == 409 and "changed since you opened" in stale.json()["error"]
    unreadable = client.post(f"/validate/{held.key}/", "{not json", content_type="application/json")
    assert unreadable.status_code == 400
    held.refresh_from_db()
    assert held.draft == {}


def test_a_submitted_validation_shows_what_was_recorded_not_the_draft(client, team, held):
    client.force_login(team.validators[0])
    assert autosave(client, held, draft_for(held, text=NEW_TEXT)).status_code == 200
    claim = held.claim
    held.refresh_from_db()
    pass_validation(held, team.validators[0])
    form = parse(client.get(f"/validate/{held.key}/").content.decode())
    assert form.textareas["text"] == claim.text


def test_the_page_has_keys_and_its_script(client, team, held):
    client.force_login(team.validators[0])
    html = client.get(f"/validate/{held.key}/").content.decode()
    assert "js/validate.js" in html and 'id="draft-state"' in html
    assert 'class="keys"' in html and 'data-key="Ctrl+Enter"' in html  # listed by keys.js


# --- 3. Accessible names -----------------------------------------------------------------


def test_every_evidence_box_has_an_accessible_name(client, team, held):
    client.force_login(team.validators[0])
    form = parse(client.get(f"/validate/{held.key}/").content.decode())
    boxes = [i for i in form.inputs if i.get("name") == "evidence"]
    assert boxes
    names = [b.get("aria-label", "") for b in boxes]
    assert all(n.startswith("Evidence: ") and len(n) > len("Evidence: ") for n in names), names
    visual = held.claim.evidence.filter(kind__in=["table", "chart"]).first()
    assert f"Evidence: {visual.label}" in names


# --- 2. The workspace counts only what this expert may validate ---------------------------


def test_the_workspace_offers_validation_only_to_experts_who_may_take_a_claim(client, team):
    final_pair(team)  # its claims are final: their validation items are open
    assert WorkItem.objects.filter(kind=WorkKind.VALIDATE, status="open").count() == 2
    outsider = make_expert("outsider", codes=("cs.CV",))
    for user in (team.writer, outsider):
        queue = selectors.validation_queue(user)
        assert queue["available"] == 0, user.username
        client.force_login(user)
        html = client.get("/").content.decode()
        assert 'id="next-validation"' not in html, user.username
    for user in (team.second, team.third):  # each may validate the claim they did not annotate
        assert selectors.validation_queue(user)["available"] == 1, user.username
    queue = selectors.validation_queue(team.validators[0])
    assert queue["available"] == 2
    client.force_login(team.validators[0])
    html = client.get("/").content.decode()
    assert 'id="next-validation"' in html
    # With nothing else to do, `n` (the workspace's "next" form) validates the next claim.
    form = re.search(r'<form[^>]*id="next-form"[^>]*>.*?</form>', html, re.S)
    assert form and 'action="/validate/next/"' in form.group(0) and "<kbd>n</kbd>" in form.group(0)
    # The count is the rule take-next follows: the validator takes one, and the other is named
    # for them; nobody else is offered it.
    services.take_next(user=team.validators[0])
    assert selectors.validation_queue(team.validators[1])["available"] == 0
    assert selectors.validation_queue(team.validators[0])["available"] == 1


# --- 4. The overview shows the final label -----------------------------------------------


def revise_label(team: Team, claim: Claim, label: str) -> None:
    validator = team.validators[0]
    item = WorkItem.objects.get(kind=WorkKind.VALIDATE, claim=claim)
    if item.status != "leased":
        item = services.take_next(user=validator)
        while item.claim_id != claim.pk:  # the pair's other claim first
            pass_validation(item, validator)
            item = services.take_next(user=validator)
    claim = item.claim
    services.submit_validation(
        item=item,
        user=validator,
        version=item.version,
        token=uuid.uuid4(),
        criteria_failed=["label"],
        text=claim.text,
        subset=claim.pair.subset,
        label=label,
        evidence_ids=list(claim.review.final_evidence.values_list("pk", flat=True)),
        explanation=claim.explanation,
    )


def overview_row(html: str, claim: Claim) -> str:
    key = claim.validation.item.key
    row = re.search(rf'<tr[^>]*><td><a href="/validate/{key}/">.*?</tr>', html, re.S)
    assert row, "no row for the claim"
    return row.group(0)


def test_the_overview_shows_the_final_label_and_the_written_one_when_revised(client, team):
    _, claims = final_pair(team)
    revise_label(team, claims["refuted"], "entailed")
    client.force_login(team.admin)
    html = client.get("/manage/validation/").content.decode()
    cells = re.findall(r"<td[^>]*>(.*?)</td>", overview_row(html, claims["refuted"]), re.S)
    label = re.sub(r"<[^>]+>", "", cells[1])
    assert label.startswith("entailed") and "written as refuted" in label


# --- 5. Re-opening a claim of a frozen split warns -----------------------------------------


def test_reopening_a_claim_in_a_frozen_split_says_export_is_refused(client, team):
    pair, claims = final_pair(team)
    other, other_claims = final_pair(team, seed=2)
    validate_all(team)
    for name in ("v1", "v2"):
        split = SplitVersion.objects.create(name=name, seed=1, validation_size=0, test_size=2)
        SplitMember.objects.create(split=split, pair=pair, part="test", subset=pair.subset)
    client.force_login(team.admin)
    html = client.get("/manage/validation/").content.decode()
    warning = overview_row(html, claims["entailed"])
    assert (
        "frozen splits v1, v2" in warning
        and "refused until the claim is validated again" in warning
    )
    assert "frozen split" not in overview_row(html, other_claims["entailed"])

    response = client.post(
        f"/manage/validation/reopen/{claims['entailed'].key}/", {"reason": "typo"}, follow=True
    )
    said = [str(m) for m in response.context["messages"]]
    assert any("back in validation" in m for m in said)
    assert any("v1, v2" in m and "exporting them is refused" in m for m in said), said
    response = client.post(
        f"/manage/validation/reopen/{other_claims['entailed'].key}/",
        {"reason": "typo"},
        follow=True,
    )
    said = [str(m) for m in response.context["messages"]]
    assert not any("frozen" in m for m in said), said


# --- 7. The study's page -------------------------------------------------------------------

LONG = (
    "Ours reaches a BLEU of 73.2, which is higher than the Baseline model at 68.9, and the gap "
    "holds on every one of the evaluation settings that the paper reports in its main table."
)


def test_the_study_page_shows_whole_claims_and_says_when_nobody_answered(client, team):
    pair, _ = final_pair(team)
    validate_all(team)
    Claim.objects.filter(pair=pair).update(text=LONG)
    a, b = make_expert("a1"), make_expert("b1")
    study = baseline_services.start_baseline(by=team.admin, expert_ids=[a.pk, b.pk], per_subset=2)
    client.force_login(team.admin)
    html = client.get(f"/manage/baseline/{study.pk}/").content.decode()
    assert "No answers yet." in html and '<table class="grid compact" id="per-subset">' not in html
    assert re.search(r"<details><summary>[^<]*…</summary><p>" + re.escape(LONG) + "</p>", html)
