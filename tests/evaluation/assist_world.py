"""The model in the loop's world for its HTTP and browser tests: a stand-in model that verifies
a claim only when the paragraphs it is sent state it, and a pair whose entailed claim one of
its paper's paragraphs states word for word."""

from __future__ import annotations

from annotation.models import WorkItem
from papers.models import Element
from tests.annotation.claim_factories import ENTAILED, REFUTED

__all__ = ["ENTAILED", "REFUTED"]
from tests.validation.factories import Team, final_pair, pass_validation
from validation import services as validation

IN_TEXT = ENTAILED  # copied into a paragraph below: the text alone verifies it
NOT_IN_TEXT = REFUTED
CHANGED = "Ours reaches a BLEU of 75.0, which is higher than the Baseline model."
NEGATED = "Ours does not reach a BLEU of 73.2, which is higher than the Baseline model."


def prompt_of(body: dict) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else content[0]["text"]


def answer(body: dict) -> str:
    prompt = prompt_of(body)
    if "Give up to five false claims" in prompt:
        return "\n".join(
            [f"- {ENTAILED}", f"- {NEGATED}", f"- {CHANGED}", "- <b>Ours</b> is worse."]
        )
    paragraphs = prompt.split("Paragraphs:", 1)[1].split("\nClaim: ", 1)[0]
    claim = prompt.split("\nClaim: ", 1)[1].split("\n", 1)[0]
    if claim in paragraphs:
        return "The paragraphs state exactly this.\nAnswer: entailed"
    return "The paragraphs do not give these numbers.\nAnswer: cannot tell"


def assist_team() -> Team:
    """A validated-to-be pair whose entailed claim a paragraph states word for word."""
    team = Team()
    pair, claims = final_pair(team)
    paragraph = Element.objects.filter(paper=pair.paper, kind="paragraph").order_by("order").first()
    paragraph.text = f"We compare both systems. {IN_TEXT} The rest is in Table 1."
    paragraph.save(update_fields=["text"])
    team.pair, team.claims = pair, claims
    return team


def validation_items(team: Team) -> dict[str, WorkItem]:
    """The validator's items of both claims, by label: the first taken is passed, so that
    the second can be taken (the one held comes back until it is submitted)."""
    user = team.validators[0]
    first = validation.take_next(user=user)
    pass_validation(first, user)
    second = validation.take_next(user=user)
    first.refresh_from_db()
    return {first.claim.label: first, second.claim.label: second}
