"""The load benchmark's world, built and checked inside the checkout being measured.

bench/load.py runs this file as a subprocess with the measured checkout as the working
directory and first on sys.path, so the same script builds data through that checkout's own
services (the ones 659311a has too) and reads the outcome through that checkout's models:

    python bench/loadworld.py build --checkout DIR --stage blind --claims 3000 --accounts 64 \\
        --manifest world.json
    python bench/loadworld.py check --checkout DIR --stage blind --since ISO --out check.json

The database is whatever DATABASE_URL names (load.py sets it, with the shape's settings).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

# Test builders and the accounts they make (every name starts with PREFIX).
PREFIX = "load-"
PASSWORD = "load-bench-password-7"  # signs in the benchmark's own annotators, on loopback only
CLIENT_CODES = ("cs.CL", "cs.IR")  # the annotators' subfields; every paper is cs.CL
WRITERS = 4  # who wrote the pairs waiting for blind annotation or validation
CHECKERS = 2  # who annotated blind the claims waiting for validation (one claim of a pair each)
PAIRS_PER_PAPER = 2  # SciVer: about 1.4 pairs per paper
# Blind stage: at most this many claims are written through the services; past it the written
# pairs are copied in bulk (a world of 30,000 waiting claims in minutes, not an hour).
WRITTEN_CLAIMS = 1000
KIND_OF_STAGE = {"blind": "evidence", "writing": "write", "validation": "validate"}


def client_names(accounts: int) -> list[str]:
    return [f"{PREFIX}{n:02d}" for n in range(1, accounts + 1)]


def claim_texts(n: int) -> tuple[str, str]:
    """A pair's entailed and refuted claim, unique to the pair (the answer key finds a claim by
    its text), shaped like the test builders' so that every rule of both versions holds."""
    return (
        f"Ours reaches a BLEU of 73.2 on test set {n}, which is higher than the Baseline model.",
        f"Ours reaches a BLEU of 68.9 on test set {n}, which is higher than the Baseline model.",
    )


def _own(*names: str):
    """The first of `names` that the measured checkout has (the module's name where it moved;
    an older checkout has the older one). Only the checkout's own files count: this
    repository's editable install would otherwise lend an older checkout a module it lacks."""
    import importlib

    for name in names:
        path = Path.cwd().joinpath(*name.split("."))
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return importlib.import_module(name)
    raise ImportError(f"the checkout has none of {', '.join(names)}")


def _setup(checkout: Path) -> None:
    sys.path[0] = str(checkout)  # the checkout's packages, not this repository's
    os.chdir(checkout)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


# --- Build -----------------------------------------------------------------------------------


def _people(stage: str, accounts: int) -> dict[str, list]:
    """Experts made by the test builders with a cheap hasher, then all given one real hash of
    PASSWORD (hashing 70 passwords with PBKDF2 would take longer than the rest)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.test.utils import override_settings

    from annotation.models import Subfield
    from tests.annotation.factories import make_expert
    from tests.factories import AdminFactory

    Subfield.ensure_sciver_subfields()
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        admin = AdminFactory(username=f"{PREFIX}admin")
        # The annotators first: a pair written while fewer than three experts were eligible
        # besides its writer would have gone, at 659311a, to one of them for both claims.
        clients = [make_expert(name, CLIENT_CODES) for name in client_names(accounts)]
        writers = [make_expert(f"{PREFIX}writer-{n}", ("cs.CL",)) for n in range(1, WRITERS + 1)]
        checkers = (
            [make_expert(f"{PREFIX}checker-{n}", ("cs.CL",)) for n in range(1, CHECKERS + 1)]
            if stage == "validation"
            else []
        )
    get_user_model().objects.filter(username__in=client_names(accounts)).update(
        password=make_password(PASSWORD)
    )
    get_user_model().objects.filter(pk=admin.pk).update(password=make_password(uuid.uuid4().hex))
    return {"admin": [admin], "clients": clients, "writers": writers, "checkers": checkers}


def _papers(count: int, admin) -> list:
    from tests.annotation.claim_factories import curated_paper

    return [curated_paper(admin)[0] for _ in range(count)]


def _write_pairs(writers: list, papers: list, admin, pairs: int) -> int:
    """Each writer is assigned a share of the papers, creates PAIRS_PER_PAPER tasks on each and
    writes pairs through the writing service until `pairs` are written."""
    from annotation.writing import services as writing
    from tests.annotation.claim_factories import submit

    assignment_services = _own("annotation.assignment.services", "annotation.services")
    work = _own("annotation.queue.work", "annotation.work")

    shares: dict[int, list] = defaultdict(list)
    for n, paper in enumerate(papers):
        shares[n % len(writers)].append(paper)
    for n, writer in enumerate(writers):
        if shares[n]:
            assignment_services.assign_papers(papers=shares[n], experts=[writer], assigned_by=admin)
    for n, paper in enumerate(papers):
        writing.create_claim_tasks(
            paper=paper, by=writers[n % len(writers)], count=PAIRS_PER_PAPER, seed=n
        )
    written = 0
    while written < pairs:
        progressed = False
        for writer in writers:
            if written >= pairs:
                break
            try:
                item = work.next_item(user=writer, kind="write")
            except work.NothingToDo:
                continue
            entailed, refuted = claim_texts(written + 1)
            submit(item, writer, entailed=entailed, refuted=refuted, suggestion=refuted)
            written += 1
            progressed = True
        if not progressed:
            raise SystemExit(f"only {written} of {pairs} pairs could be written")
    return written


def _copy(obj, **changes):
    """An unsaved copy of a row: every column but the id, and but those drawn afresh for each
    row (a default that is a function: the opaque key, the place in the shuffle)."""
    model = type(obj)
    values = {
        f.attname: getattr(obj, f.attname)
        for f in model._meta.concrete_fields
        if not f.primary_key and not (f.has_default() and callable(f.default))
    }
    return model(**(values | changes))


def _copy_pairs(claims: int) -> int:
    """Copies of the written pairs, in bulk, until `claims` blind claims wait: each copy a task,
    a pair, its two claims (texts of its own, the writer's evidence), the writer's role, the
    pair's and the claims' reviews and the two blind items, as writing them would have made
    them (each item's place in the shuffle drawn afresh). The copies share their originals'
    papers and curated contexts. Returns the pairs copied."""
    from django.db import transaction

    from annotation.models import (
        Claim,
        ClaimPair,
        ClaimReview,
        ClaimTask,
        PairReview,
        PairRole,
        WorkItem,
    )

    base = list(
        ClaimPair.objects.select_related("task", "review").prefetch_related("roles").order_by("id")
    )
    claims_of = defaultdict(list)
    for claim in Claim.objects.filter(pair__in=base).select_related("review").order_by("id"):
        claims_of[claim.pair_id].append(claim)
    evidence_of = defaultdict(list)
    for claim_id, element_id in Claim.evidence.through.objects.filter(
        claim__pair__in=base
    ).values_list("claim_id", "element_id"):
        evidence_of[claim_id].append(element_id)
    items_of = {
        item.claim_id: item
        for item in WorkItem.objects.filter(kind="evidence", pair__in=base, status="open")
    }
    waiting = WorkItem.objects.filter(kind="evidence", status="open").count()
    wanted = math.ceil(max(0, claims - waiting) / 2)
    number = len(base)
    copied = 0
    while copied < wanted:
        chunk = [base[(copied + n) % len(base)] for n in range(min(1000, wanted - copied))]
        with transaction.atomic():
            tasks = [_copy(pair.task) for pair in chunk]
            ClaimTask.objects.bulk_create(tasks)
            pairs = [_copy(pair, task_id=task.pk) for pair, task in zip(chunk, tasks, strict=True)]
            ClaimPair.objects.bulk_create(pairs)
            PairReview.objects.bulk_create(
                [_copy(old.review, pair_id=new.pk) for old, new in zip(chunk, pairs, strict=True)]
            )
            PairRole.objects.bulk_create(
                [
                    _copy(role, pair_id=new.pk)
                    for old, new in zip(chunk, pairs, strict=True)
                    for role in old.roles.all()
                    if role.claim_id is None  # the writer's: claims' roles come with work
                ]
            )
            olds, news = [], []
            for old, new in zip(chunk, pairs, strict=True):
                number += 1
                texts = dict(zip(("entailed", "refuted"), claim_texts(number), strict=True))
                for claim in claims_of[old.pk]:
                    olds.append(claim)
                    news.append(_copy(claim, pair_id=new.pk, text=texts[claim.label]))
            Claim.objects.bulk_create(news)
            Claim.evidence.through.objects.bulk_create(
                [
                    Claim.evidence.through(claim_id=new.pk, element_id=element)
                    for old, new in zip(olds, news, strict=True)
                    for element in evidence_of[old.pk]
                ]
            )
            ClaimReview.objects.bulk_create(
                [_copy(old.review, claim_id=new.pk) for old, new in zip(olds, news, strict=True)]
            )
            WorkItem.objects.bulk_create(
                [
                    _copy(items_of[old.pk], pair_id=new.pair_id, claim_id=new.pk)
                    for old, new in zip(olds, news, strict=True)
                ]
            )
        copied += len(chunk)
    return copied


def _annotate_all(checkers: list) -> int:
    """Every blind item annotated by the checkers as the writer labelled it, with the writer's
    evidence: every claim becomes final and waits for validation."""
    from annotation.review import services as review

    work = _own("annotation.queue.work", "annotation.work")

    annotated = 0
    for checker in checkers:
        while True:
            try:
                item = review.take_next(user=checker, kind="evidence")
            except work.NothingToDo:
                break
            claim = item.claim
            review.submit_second_annotation(
                item=item,
                user=checker,
                version=item.version,
                token=uuid.uuid4(),
                label=claim.label,
                evidence_ids=list(claim.evidence.values_list("pk", flat=True)),
            )
            annotated += 1
    return annotated


def _answers() -> dict[str, dict]:
    """The expert's knowledge the clients play: per waiting claim's text, its writer's label and
    evidence (the blind page shows neither)."""
    from annotation.models import Claim

    answers = {}
    for claim in Claim.objects.filter(second_annotation__isnull=True).prefetch_related("evidence"):
        answers[" ".join(claim.text.split())] = {
            "label": claim.label,
            "evidence": sorted(e.pk for e in claim.evidence.all()),
        }
    return answers


def _without_fsync(sender, connection, **kwargs) -> None:
    """The build's commits need not reach the disk one by one: a world is kept only once it is
    complete (the services' transactions stay exactly as they are)."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA synchronous = OFF")
        elif connection.vendor == "postgresql":
            cursor.execute("SET synchronous_commit TO OFF")


def build(stage: str, claims: int, accounts: int) -> dict:
    from django.core.management import call_command
    from django.db import connection
    from django.db.backends.signals import connection_created

    from annotation.models import WorkItem

    started = time.perf_counter()
    connection_created.connect(_without_fsync)
    connection.close()  # the next query opens a connection with the setting
    call_command("migrate", verbosity=0)
    people = _people(stage, accounts)
    admin = people["admin"][0]
    pairs = math.ceil(claims / 2)
    if stage == "blind":
        pairs = min(pairs, math.ceil(WRITTEN_CLAIMS / 2))  # the rest are copies
    papers = _papers(math.ceil(pairs / PAIRS_PER_PAPER), admin)
    counts: dict[str, int] = {"papers": len(papers)}
    answers: dict[str, dict] = {}
    if stage == "writing":
        from annotation.writing import services as writing

        # Curated by an admin and assigned to nobody: every task is free for any eligible
        # expert, so the clients compete for them as they do for blind items.
        for n, paper in enumerate(papers):
            writing.create_claim_tasks(paper=paper, by=admin, count=PAIRS_PER_PAPER, seed=n)
        counts["tasks"] = WorkItem.objects.filter(kind="write", status="open").count()
    else:
        counts["pairs"] = _write_pairs(people["writers"], papers, admin, pairs)
        if stage == "validation":
            counts["annotated"] = _annotate_all(people["checkers"])
            try:  # 659311a opens validations when someone asks for one; later code at once
                from validation.services import open_validations
            except ImportError:
                pass
            else:
                open_validations(actor=None)
        else:
            counts["copied_pairs"] = _copy_pairs(claims)
            answers = _answers()
    kind = KIND_OF_STAGE[stage]
    counts["waiting"] = WorkItem.objects.filter(kind=kind, status="open").count()
    if connection.vendor == "postgresql":
        # A live server's autovacuum would have analysed tables this size long ago; a copy made
        # seconds after the build would otherwise start without statistics (and bad plans).
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return {
        "stage": stage,
        "claims": claims,
        "accounts": client_names(accounts),
        "password": PASSWORD,
        "answers": answers,
        "counts": counts,
        "build_seconds": round(time.perf_counter() - started, 1),
    }


# --- Check -----------------------------------------------------------------------------------


def _when(value: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value) if value else None


def double_holders(kind: str) -> dict:
    """Items of `kind` handed to two people at once, from the history: a 'claimed' by one
    expert while another's lease on the item is still running (not ended by 'submitted',
    'released', 'lease expired' or 'cancelled', and not past its expiry)."""
    from annotation.models import WorkEvent

    holds: dict[int, dict[int, dt.datetime | None]] = defaultdict(dict)
    submitted: dict[int, int] = defaultdict(int)
    doubles: set[int] = set()
    strays = 0  # submissions by someone who did not hold the item
    rows = (
        WorkEvent.objects.filter(item__kind=kind)
        .order_by("item_id", "at", "id")
        .values_list("item_id", "action", "actor_id", "at", "old", "new")
    )
    for item_id, action, actor, at, old, new in rows.iterator(chunk_size=5000):
        held = holds[item_id]
        if action == "claimed":
            for other, expires in held.items():
                if other != actor and (expires is None or expires > at):
                    doubles.add(item_id)
            held[actor] = _when((new or {}).get("lease_expires_at"))
        elif action == "lease renewed":
            held[actor] = _when((new or {}).get("lease_expires_at"))
        elif action == "submitted":
            submitted[item_id] += 1
            if actor not in held:
                strays += 1
            held.pop(actor, None)
        elif action == "released":
            held.pop(actor, None)
        elif action == "lease expired":
            held.pop((old or {}).get("holder"), None)
        elif action == "cancelled":
            held.clear()
    return {
        "items_held_by_two": len(doubles),
        "items_submitted_twice": sum(1 for n in submitted.values() if n > 1),
        "submitted_without_holding": strays,
    }


def recorded_by(stage: str, since: dt.datetime) -> dict[str, int]:
    """What the database holds per person since the run began: blind annotations, claim pairs
    written, validations."""
    from django.db.models import Count

    if stage == "blind":
        from annotation.models import EvidenceAnnotation

        rows, who = EvidenceAnnotation.objects.filter(created_at__gte=since), "annotator__username"
    elif stage == "writing":
        from annotation.models import ClaimPair

        rows, who = ClaimPair.objects.filter(created_at__gte=since), "writer__username"
    else:
        from validation.models import Validation

        rows, who = Validation.objects.filter(validated_at__gte=since), "validator__username"
    return dict(rows.order_by().values(who).annotate(n=Count("id")).values_list(who, "n"))


def consistency(stage: str, since: dt.datetime) -> dict[str, int]:
    """Every count here must be zero."""
    from django.db.models import Count, Exists, F, OuterRef

    from annotation.models import ClaimPair, EvidenceAnnotation, WorkItem

    done = WorkItem.objects.filter(status="done")
    found: dict[str, int] = {
        "done_items_without_person": done.filter(done_by__isnull=True).count(),
        "leased_items_without_holder": WorkItem.objects.filter(
            status="leased", holder__isnull=True
        ).count(),
    }
    annotations = EvidenceAnnotation.objects.order_by()
    if stage == "blind":
        found |= {
            "done_blind_items_without_annotation": done.filter(
                kind="evidence", evidence_annotation__isnull=True
            ).count(),
            "annotations_on_items_not_done": annotations.exclude(item__status="done").count(),
            "annotations_not_by_the_items_finisher": annotations.exclude(
                annotator_id=F("item__done_by_id")
            ).count(),
            "claims_with_two_blind_annotations": annotations.values("claim_id")
            .annotate(n=Count("id"))
            .filter(n__gt=1)
            .count(),
            "pairs_with_both_claims_by_one_annotator": annotations.values(
                "claim__pair_id", "annotator_id"
            )
            .annotate(n=Count("id"))
            .filter(n__gt=1)
            .count(),
            "annotations_by_the_pairs_writer": annotations.filter(
                annotator_id=F("claim__pair__writer_id")
            ).count(),
        }
    elif stage == "writing":
        pairs = ClaimPair.objects.filter(created_at__gte=since).order_by()
        found |= {
            "done_writing_items_without_pair": done.filter(kind="write", pair__isnull=True).count(),
            "pairs_not_by_the_items_finisher": done.filter(kind="write", pair__isnull=False)
            .exclude(pair__writer_id=F("done_by_id"))
            .count(),
            "pairs_without_two_claims": pairs.annotate(n=Count("claims")).exclude(n=2).count(),
            "pairs_without_two_blind_items": pairs.count()
            - WorkItem.objects.filter(kind="evidence", pair__in=pairs)
            .order_by()
            .values("pair_id")
            .annotate(n=Count("id"))
            .filter(n=2)
            .count(),
        }
    else:
        from validation.models import Validation

        validations = Validation.objects.filter(validated_at__isnull=False).order_by()
        found |= {
            "done_validation_items_not_recorded": done.filter(kind="validate")
            .exclude(claim__validation__validator_id=F("done_by_id"))
            .count(),
            "claims_validated_twice": done.filter(kind="validate")
            .values("claim_id")
            .annotate(n=Count("id"))
            .filter(n__gt=1)
            .count(),
            "validated_by_the_pairs_writer": validations.filter(
                validator_id=F("claim__pair__writer_id")
            ).count(),
            "validated_by_the_claims_annotator": validations.filter(
                Exists(
                    annotations.filter(
                        claim_id=OuterRef("claim_id"), annotator_id=OuterRef("validator_id")
                    )
                )
            ).count(),
        }
    return found


def check(stage: str, since: dt.datetime) -> dict:
    from django.db.models import Count

    from annotation.models import WorkItem

    kind = KIND_OF_STAGE[stage]
    return {
        "recorded": recorded_by(stage, since),
        "done_by": dict(
            WorkItem.objects.filter(kind=kind, status="done", done_at__gte=since)
            .order_by()
            .values("done_by__username")
            .annotate(n=Count("id"))
            .values_list("done_by__username", "n")
        ),
        "still_leased": WorkItem.objects.filter(kind=kind, status="leased").count(),
        "still_open": WorkItem.objects.filter(kind=kind, status="open").count(),
        **double_holders(kind),
        "consistency": consistency(stage, since),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("build", "check"))
    parser.add_argument("--checkout", type=Path, required=True)
    parser.add_argument("--stage", choices=sorted(KIND_OF_STAGE), required=True)
    parser.add_argument("--claims", type=int, default=3000)
    parser.add_argument("--accounts", type=int, default=64)
    parser.add_argument("--manifest", type=Path, help="build: where the world's manifest goes")
    parser.add_argument("--since", help="check: when the run began (ISO 8601, with zone)")
    parser.add_argument("--out", type=Path, help="check: where the figures go")
    args = parser.parse_args()
    _setup(args.checkout.resolve())
    if args.command == "build":
        manifest = build(args.stage, args.claims, args.accounts)
        args.manifest.write_text(json.dumps(manifest))
        print(f"world: {manifest['counts']} ({manifest['build_seconds']} s)")
    else:
        args.out.write_text(json.dumps(check(args.stage, dt.datetime.fromisoformat(args.since))))


if __name__ == "__main__":
    main()
