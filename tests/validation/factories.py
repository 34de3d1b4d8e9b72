"""Builders for validation tests: final claims made through the real writing and review
services (issue 6), with table/chart images on disk."""

from __future__ import annotations

import io
import uuid

from django.core.files.base import ContentFile
from PIL import Image

from annotation.assignment import services as assignment_services
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import services as writing
from papers.models import Element
from tests.annotation.claim_factories import curated_paper, submit
from tests.annotation.factories import make_expert
from tests.factories import AdminFactory


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(buffer, "PNG")
    return buffer.getvalue()


def add_images(paper) -> None:
    elements = Element.objects.filter(paper=paper, kind__in=["table", "chart"]).order_by("order")
    for number, element in enumerate(elements, 1):
        element.number = element.label.split()[-1] if element.label else str(number)
        element.image.save(f"{paper.arxiv_id}_{element.anchor}.png", ContentFile(png()), save=False)
        element.save(update_fields=["image", "number"])


class Team:
    """A writer, two second annotators and validators, all eligible for cs.CL."""

    def __init__(self, validators: int = 2):
        self.admin = AdminFactory(username="boss")
        self.writer = make_expert("writer")
        self.second = make_expert("second")
        self.third = make_expert("third")
        self.validators = [make_expert(f"validator{i}") for i in range(validators)]


def second_annotate(item, user, *, label: str, evidence) -> None:
    item.refresh_from_db()
    review.submit_second_annotation(
        item=item,
        user=user,
        version=item.version,
        token=uuid.uuid4(),
        label=label,
        evidence_ids=evidence,
    )


def final_pair(team: Team, *, seed: int = 1, **overrides):
    """A written pair whose two claims are final (unanimous): the second annotators agree."""
    paper, _ = curated_paper(team.admin)
    assignment_services.assign_papers(papers=[paper], experts=[team.writer], assigned_by=team.admin)
    add_images(paper)
    writing.create_claim_tasks(paper=paper, by=team.writer, count=1, seed=seed)
    item = work.next_item(user=team.writer, kind="write")
    pair = submit(item, team.writer, **overrides)
    for annotator in (team.second, team.third):
        try:
            taken = review.take_next(user=annotator, kind="evidence")
        except work.NothingToDo:  # under three eligible: both claims went to one of them
            annotator = team.second
            taken = review.take_next(user=annotator, kind="evidence")
        claim = taken.claim
        evidence = list(claim.evidence.values_list("pk", flat=True))
        second_annotate(taken, annotator, label=claim.label, evidence=evidence)
    return pair, {c.label: c for c in pair.claims.select_related("review")}


def pass_validation(item, user):
    """`user` passes the validation item they hold: nothing ticked, nothing changed; returns
    the validation recorded."""
    from validation import services as validation

    claim = item.claim
    return validation.submit_validation(
        item=item,
        user=user,
        version=item.version,
        token=uuid.uuid4(),
        criteria_failed=[],
        text=claim.text,
        subset=claim.pair.subset,
        label=claim.review.final_label,
        evidence_ids=list(claim.review.final_evidence.values_list("pk", flat=True)),
        explanation=claim.explanation,
    )


def validate_all(team: Team, user=None) -> int:
    """Pass every validation the validator can take; returns how many."""
    from validation import services as validation

    user = user or team.validators[0]
    done = 0
    while True:
        try:
            item = validation.take_next(user=user)
        except work.NothingToDo:
            return done
        pass_validation(item, user)
        done += 1


# Each pair states a claim of its own (the first keeps the factory's ENTAILED and REFUTED):
# check_release refuses claims repeated across a release's parts, exactly or nearly, and a pool
# whose pairs all said one thing would be one claim many times over. The lists' lengths are
# coprime, so two of the first 56 pairs share at most one of the four names.
_SYSTEMS = ("RouteAdapt", "GateDepth", "ListKD", "SlipReG", "CacheCast", "SeedSmith", "TriageLM")
_METRICS = ("chrF++", "AbsRel", "nDCG@10", "success rate", "hit ratio", "coverage", "F1", "MRR")
_DATASETS = ("FLORES", "KITTI", "TREC-COVID", "YCB", "CDN", "ProFTPD", "Defects4J", "AOL", "Shop")
_BASELINES = (
    "LoRA",
    "Monodepth2",
    "BM25",
    "IQL",
    "LRB",
    "AFLNet",
    "reruns",
    "T5",
    "DT",
    "ViT",
    "CLIP",
)


def distinct_claims(i: int) -> dict:
    """Submission fields with an entailed claim and its refuted rewrite of their own for pair
    `i` (none for pair 0: the factory's own claims)."""
    if i == 0:
        return {}
    system, metric = _SYSTEMS[i % len(_SYSTEMS)], _METRICS[i % len(_METRICS)]
    dataset, baseline = _DATASETS[i % len(_DATASETS)], _BASELINES[i % len(_BASELINES)]
    value, wrong = f"{40 + i * 1.7:.1f}", f"{30 + i * 1.3:.1f}"
    entailed = f"{system} scores {value} {metric} on {dataset}, which is higher than {baseline}."
    refuted = entailed.replace(value, wrong)
    return {
        "entailed": entailed,
        "refuted": refuted,
        "suggestion": refuted,
        "explanation": f"Table 1 gives {system} a {metric} of {value}, not {wrong}.",
    }


def validated_pairs(team: Team, n: int) -> list:
    pairs = [final_pair(team, seed=i, **distinct_claims(i))[0] for i in range(n)]
    validate_all(team)
    return pairs
