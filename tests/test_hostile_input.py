"""Hostile values on every route: no answer is a 5xx and no exception leaves a view (issue 18).

Every route of the URL resolver has a row in ROUTES (a new route fails the coverage test until
it has one). Signed in as the expert who holds the route's item and as an admin, each route gets
hostile values in its query parameters, its form fields (form-encoded, as a browser sends them)
and, for the autosave endpoints, its JSON body: unicode digits, huge and negative numbers, NUL
bytes, a 1 MB string, lists where one value is expected, missing fields, wrong JSON types and
unreadable JSON. The data is real (built by the services the pages call), so the values reach the
parsing code rather than stop at a permission check: every row with fields must answer at least
one hostile request with 400. Each request runs in a savepoint rolled back after it, so a value
that happens to be accepted changes nothing for the next one. The Django admin's routes are
covered too, with fewer values each; so are the HTTP API's (/api/), each route read from the
resolver and its fields from the API's OpenAPI schema (no table to keep), with an admin's token,
every refusal in the API's JSON shape."""

from __future__ import annotations

import datetime as dt
import json
import re
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import cycle, islice
from urllib.parse import quote, urlencode

import pytest
from django.contrib import admin
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from annotation.assignment import services as assignment_services
from annotation.experts import services as expert_services
from annotation.models import Publication, Subfield, WorkItem
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import reperturbation
from annotation.writing import services as writing
from api.tokens import issue_token
from evaluation.models import EvaluationRun
from papers.models import CrawlRun, Element
from tests.annotation.claim_factories import curated_paper, submit
from tests.annotation.factories import make_expert
from tests.validation.factories import (
    Team,
    add_images,
    final_pair,
    png,
    second_annotate,
    validate_all,
)
from validation import services as validation
from validation.baseline import services as baseline_services
from validation.export import services as export_services
from validation.split import services as split_services

pytestmark = pytest.mark.django_db

MB = "x" * 1_000_000

# Form values (strings, as a browser sends them; a list is the field sent several times).
CORE = ["²", "9" * 5000, "-1", "\x00", ["1", "١٢"]]  # every field gets these
EXTRA = ["١٢", "9" * 25, "0", "1.5", " 7", "a\x00b", "", "null", b"\xff\xfe", MB]
# JSON values: wrong types, numbers JSON can spell but no field takes, text PostgreSQL refuses.
JSON_CORE = ["²", "9" * 5000, 10**30, -1, None, [], {}, "\x00", "\ud800", [["1"]], ["²"], 5]
JSON_EXTRA = ["١٢", 1.5, True, "x" * 300_000, [None], [-1], [10**30], ["9" * 5000], "12", 0]
JSON_BODIES = [
    b"",
    b"{",
    b"\xff\xfe",
    b"null",
    b"[]",
    b"5",
    b'"x"',
    b"[" * 50_000,
    b'{"draft": 5}',
    b'{"draft": "x"}',
    b'{"draft": [1]}',
    b'{"version": "\xc2\xb2"}',
    b'{"version": ' + b"9" * 5000 + b"}",
    b'{"draft": {"evidence": 5}}',
    MB.encode(),
    json.dumps({"draft": {"x": MB}}).encode(),
]
# URL parts: `<int:…>` and `<str:…>` kwargs of a route.
URL_INTS = ["9" * 5000, "9" * 25, "0"]
URL_STRS = ["²", "\x00", "x" * 2000, "..", "-1"]


@dataclass
class World:
    users: dict[str, object]
    kw: dict[str, object]  # url kwargs and form values by name


def _world() -> World:
    """Every stage with an item held: a curated paper with a pair written and a task held, a
    new perturbation taken, an evidence item held, an adjudication held, a validation held, a
    baseline item held, a study, a split with an export, a crawl run and a password link."""
    team = Team()
    admin, writer = team.admin, team.writer
    pair0, claims0 = final_pair(team, seed=1)
    validate_all(team)
    frank, gina = make_expert("frank"), make_expert("gina")
    study = baseline_services.start_baseline(by=admin, expert_ids=[frank.pk, gina.pk], per_subset=1)
    baseline_item = baseline_services.take_next_baseline(user=frank)
    # A second final pair whose validation the first validator holds.
    final_pair(team, seed=2)
    validation_item = validation.take_next(user=team.validators[0])
    # A disputed pair: the third annotator flips the label, dave holds its adjudication.
    paper2, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper2], experts=[writer], assigned_by=admin)
    add_images(paper2)
    writing.create_claim_tasks(paper=paper2, by=writer, count=1, seed=3)
    submit(work.next_item(user=writer, kind="write"), writer)
    for annotator, flip in ((team.second, False), (team.third, True)):
        taken = review.take_next(user=annotator, kind="evidence")
        label = {"entailed": "refuted", "refuted": "entailed"}[taken.claim.label] if flip else None
        evidence = list(taken.claim.evidence.values_list("pk", flat=True))
        second_annotate(taken, annotator, label=label or taken.claim.label, evidence=evidence)
    dave = make_expert("dave")
    adjudication = review.take_next(user=dave, kind="adjudicate")
    # The writer's own paper: a pair written, a task held, a new perturbation taken.
    paper, context = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[writer], assigned_by=admin)
    add_images(paper)
    writing.create_claim_tasks(paper=paper, by=writer, count=2, seed=5)
    pair = submit(work.next_item(user=writer, kind="write"), writer)
    write_item = work.next_item(user=writer, kind="write")
    reperturbation.open_reperturbation(
        claim=pair.claims.get(label="refuted"), actor=admin, why="hostile input test"
    )
    reperturb_item = work.next_item(user=writer, kind="reperturb")
    erin = make_expert("erin")
    evidence_item = review.take_next(user=erin, kind="evidence")
    split = split_services.freeze_split(validation=2, test=0, seed=1, by=admin)
    export = export_services.start_export(split=split, by=admin)
    crawl = CrawlRun.objects.create(
        date_from=dt.date(2024, 9, 1),
        date_to=dt.date(2024, 9, 2),
        categories=["cs.CL"],
        status=CrawlRun.Status.FINISHED,
        phase=CrawlRun.Phase.DONE,
    )
    reset = expert_services.reset_password(user=gina, by=admin).strip("/").split("/")
    evaluation_run = EvaluationRun.objects.create(
        release_dir="/nowhere/SciVer", part="validation", source="responses", model="m"
    )
    # An error analysis of that run: one wrong answer, its case tagged by the validator.
    from evaluation.errors.models import ErrorAnalysis, ErrorCase, ErrorTag
    from evaluation.models import RecordOutcome

    wrong = RecordOutcome.objects.create(
        run=evaluation_run,
        request_id=1,
        response="Answer: refuted",
        parsed="refuted",
        correct=False,
        official_correct=False,
        claim_type="direct",
        subfield="cs.CL",
        gold="entailed",
    )
    analysis = ErrorAnalysis.objects.create(run=evaluation_run, sample_size=1, seed=1)
    case = ErrorCase.objects.create(
        analysis=analysis,
        outcome=wrong,
        claim=claims0["entailed"],
        subset="direct",
        subfield_code="cs.CL",
    )
    ErrorTag.objects.create(case=case, tagger=team.validators[0])
    table = Element.objects.filter(paper=paper, kind="table").order_by("order").first()
    chart = Element.objects.filter(paper=paper, kind="chart").order_by("order").first()
    chart.image.name = default_storage.save(  # where imported images go: the writer may see it
        f"papers/{paper.versioned_id}/20241101T000000000000/x1.png", ContentFile(png())
    )
    chart.save(update_fields=["image"])
    visuals = list(write_item.task.sampled_ids)
    sections = list(paper.sections.values_list("pk", flat=True))
    users = {
        "admin": admin,
        "writer": writer,
        "annotator": erin,
        "adjudicator": dave,
        "validator": team.validators[0],
        "baseline": frank,
        "anonymous": None,
    }
    kw = {
        "arxiv_id": paper.arxiv_id,
        "version": paper.version,
        "table": table.pk,
        "chart": chart.pk,
        "media": chart.image.name,
        "sections": sections,
        "visuals": visuals,
        "context": context.number,
        "write": write_item,
        "pair": pair,
        "reperturb": reperturb_item,
        "evidence": evidence_item,
        "adjudication": adjudication,
        "disputed": adjudication.claim,
        "validation": validation_item,
        "validated": claims0["entailed"],
        "baseline": baseline_item,
        "study": study.pk,
        "split": split.pk,
        "export": export.pk,
        "crawl": crawl.pk,
        "uidb64": reset[-2],
        "token": reset[-1],
        "erin": erin.pk,
        "frank": frank.pk,
        "gina": gina.pk,
        "publication": Publication.objects.filter(expert__user=erin).first().pk,
        "subfield": Subfield.objects.get(code="cs.CL").pk,
        "pair0": pair0,
        "evaluation_run": evaluation_run.pk,
        "error_analysis": analysis.pk,
        "error_case": case.pk,
        "error_case_visual": case.claim.evidence.filter(kind__in=["table", "chart"])[0].pk,
        "api_token": issue_token(user=erin, name="hostile input")[0].pk,
    }
    for name in ("write", "reperturb", "evidence", "adjudication", "validation", "baseline"):
        kw[name].refresh_from_db()
    # Guidelines, flags and "edit my last answer" (issue 20): a flag, a submitted blind
    # annotation and validation with their authors.
    from guidelines.services import raise_flag

    answered = WorkItem.objects.filter(kind="evidence", status="done").first()
    users["answerer"] = answered.done_by
    kw["answered"] = answered
    kw["checked"] = WorkItem.objects.filter(
        kind="validate", status="done", done_by=team.validators[0]
    ).first()
    kw["flag"] = raise_flag(user=erin, kind="unsure", note="hostile", item=evidence_item).pk
    return World(users, kw)


# --- The routes ------------------------------------------------------------------------------

TOKEN = "6f1c4c53-3c5e-4d0e-9d5c-8f0d7f3a2b1e"
GET, POST, BOTH = ("get",), ("post",), ("get", "post")


@dataclass
class Route:
    """One row of the table: how to reach a route with a real item, who holds it, and what a
    browser sends it. `form` is a valid-looking POST whose fields are attacked one at a time."""

    name: str
    kwargs: Callable[[World], dict] = lambda w: {}
    users: tuple[str, ...] = ("admin",)  # the first one holds the item
    methods: tuple[str, ...] = GET
    form: Callable[[World], dict] = lambda w: {}
    query: tuple[str, ...] = ()  # GET parameters the view reads
    draft: tuple[str, ...] = ()  # the JSON autosave's draft fields
    says_400: bool = True  # a bad value answers 400 (else a page with the error, or a redirect)
    relogin: bool = False  # the route signs out: sign in again before each request
    url: Callable[[World], str] | None = None  # for a route reverse() cannot name


def _paper(w: World) -> dict:
    return {"arxiv_id": w.kw["arxiv_id"], "version": w.kw["version"]}


def _item(name: str) -> Callable[[World], dict]:
    return lambda w: {"item_key": w.kw[name].key}


def _held(name: str, **fields) -> Callable[[World], dict]:
    """A submission of the held item: its version, a token, and `fields`."""
    return lambda w: {"version": w.kw[name].version, "token": TOKEN, **fields}


def _pair_form(w: World) -> dict:
    return {
        "version": w.kw["write"].version,
        "token": TOKEN,
        **_refuted_form(w),
        "entailed": "Ours reaches a BLEU of 73.2, which is higher than the Baseline model.",
        "evidence": [str(v) for v in w.kw["visuals"][:1]],
    }


def _refuted_form(w: World) -> dict:
    return {
        "refuted": "Ours reaches a BLEU of 68.9, which is higher than the Baseline model.",
        "explanation": "Table 1 says 73.2.",
        "perturbation_kind": "number",
        "suggestion": "x",
        "split_evidence": "on",
        "refuted_evidence": [str(v) for v in w.kw["visuals"][:1]],
    }


PAIR_DRAFT = (
    "entailed",
    "evidence",
    "refuted",
    "explanation",
    "perturbation_kind",
    "suggestion",
    "split_evidence",
    "refuted_evidence",
)
REFUTED_DRAFT = PAIR_DRAFT[2:]
REVIEW_DRAFT = ("label", "evidence", "decision", "confidence", "reason", "notes")
VALIDATION_DRAFT = ("text", "subset", "label", "evidence", "explanation", "criteria_failed")
WRITER, ANNOTATOR = ("writer", "admin"), ("annotator", "admin")

ROUTES = [
    Route("healthz", users=("writer",)),
    Route("favicon", users=("writer",)),
    Route(
        "login",
        users=("anonymous",),
        methods=BOTH,
        says_400=False,
        form=lambda w: {"username": "writer", "password": "wrong"},
    ),
    Route("logout", users=("writer",), methods=POST, relogin=True),
    Route(
        "password_change",
        users=("writer",),
        methods=BOTH,
        says_400=False,
        form=lambda w: {
            "old_password": "x",
            "new_password1": "a-Long-pass-42",
            "new_password2": "a-Long-pass-42",
        },
    ),
    Route("password_change_done", users=("writer",)),
    Route(
        "password_reset_confirm",
        users=("anonymous",),
        methods=BOTH,
        says_400=False,
        kwargs=lambda w: {"uidb64": w.kw["uidb64"], "token": w.kw["token"]},
        form=lambda w: {"new_password1": "a-Long-pass-42", "new_password2": "a-Long-pass-42"},
    ),
    Route("password_reset_complete", users=("anonymous",)),
    Route(
        "crawl:list",
        methods=BOTH,
        form=lambda w: {
            "date_from": "2024-09-01",
            "date_to": "2024-09-02",
            "categories": ["cs.CL"],
            "other_categories": "cs.HC",
            "max_papers": "5",
            "accepted_only": "on",
            "min_tables": "2",
            "min_charts": "2",
        },
    ),
    Route(
        "crawl:list",  # the box of arXiv ids
        methods=POST,
        form=lambda w: {
            "kind": "ids",
            "ids": "2410.00260\n2409.13817v2\ncs/0112017",
            "keep_all": "on",
            "min_tables": "2",
            "min_charts": "2",
        },
    ),
    Route("crawl:detail", kwargs=lambda w: {"run_id": w.kw["crawl"]}),
    Route("crawl:progress", kwargs=lambda w: {"run_id": w.kw["crawl"]}),
    Route("crawl:runs"),
    Route(
        "crawl:stop",
        kwargs=lambda w: {"run_id": w.kw["crawl"]},
        methods=POST,
        form=lambda w: {"action": "pause"},
        says_400=False,
    ),
    Route("crawl:resume", kwargs=lambda w: {"run_id": w.kw["crawl"]}, methods=POST),
    Route("annotation:home", users=WRITER),
    Route("papers:list", users=WRITER, query=("q", "status", "show", "page")),
    Route("papers:detail", kwargs=_paper, users=WRITER),
    Route(
        "annotation:curate",
        kwargs=_paper,
        users=WRITER,
        methods=BOTH,
        query=("version",),
        form=lambda w: {
            "keep_section": [str(v) for v in w.kw["sections"]],
            "keep": [str(w.kw["table"]), str(w.kw["chart"])],
            "not_chart": [],
            "latest_seen": str(w.kw["context"]),
            "based_on": str(w.kw["context"]),
            "note": "x",
        },
    ),
    Route(
        "annotation:table_html",
        users=WRITER,
        kwargs=lambda w: _paper(w) | {"element_id": w.kw["table"]},
    ),
    Route("annotation:next_task", users=WRITER, methods=POST),
    Route(
        "annotation:create_tasks",
        kwargs=_paper,
        users=WRITER,
        methods=POST,
        form=lambda w: {"count": "1"},
    ),
    Route("annotation:write", _item("write"), WRITER, BOTH, _pair_form),
    Route("annotation:save_draft", _item("write"), WRITER, POST, draft=PAIR_DRAFT),
    Route("annotation:release_task", _item("write"), WRITER, POST, _held("write")),
    Route("annotation:suggest", _item("write"), WRITER, POST, _pair_form),
    Route("annotation:write_context", _item("write"), WRITER),
    Route("annotation:write_warnings", _item("write"), WRITER, POST, _pair_form),
    Route("annotation:pair", lambda w: {"pair_key": w.kw["pair"].key}, WRITER),
    Route("annotation:next_reperturbation", users=WRITER, methods=POST),
    Route(
        "annotation:reperturb",
        _item("reperturb"),
        WRITER,
        BOTH,
        lambda w: _held("reperturb")(w) | _refuted_form(w),
    ),
    Route("annotation:reperturb_draft", _item("reperturb"), WRITER, POST, draft=REFUTED_DRAFT),
    Route("annotation:reperturb_context", _item("reperturb"), WRITER),
    Route("annotation:reperturb_suggest", _item("reperturb"), WRITER, POST),
    Route("annotation:reperturb_warnings", _item("reperturb"), WRITER, POST, _refuted_form),
    Route(
        "annotation:reperturb_image",
        lambda w: _item("reperturb")(w) | {"element_id": w.kw["visuals"][0]},
        WRITER,
    ),
    Route(
        "annotation:reassign_reperturbation",
        _item("reperturb"),
        methods=POST,
        form=lambda w: {"expert": str(w.kw["erin"]), "note": "x"},
    ),
    Route("annotation:claims_overview", query=("q", "subset", "show", "page")),
    Route("annotation:next_review", lambda w: {"page": "annotate"}, ANNOTATOR, POST),
    Route(
        "annotation:annotate",
        _item("evidence"),
        ANNOTATOR,
        BOTH,
        lambda w: (
            _held("evidence")(w)
            | {"label": "entailed", "evidence": [str(v) for v in w.kw["visuals"][:1]]}
        ),
    ),
    Route(
        "annotation:adjudicate",
        _item("adjudication"),
        ("adjudicator", "admin"),
        BOTH,
        lambda w: (
            _held("adjudication")(w)
            | {
                "label": "entailed",
                "evidence": [str(v) for v in w.kw["visuals"][:1]],
                "decision": "decided",
                "confidence": "high",
                "reason": "ambiguous_claim",
                "notes": "x",
            }
        ),
    ),
    Route("annotation:review_draft", _item("evidence"), ANNOTATOR, POST, draft=REVIEW_DRAFT),
    Route(
        "annotation:review_draft", _item("adjudication"), ("adjudicator",), POST, draft=REVIEW_DRAFT
    ),
    Route("annotation:review_context", _item("evidence"), ANNOTATOR),
    Route(
        "annotation:review_image",
        lambda w: _item("evidence")(w) | {"element_id": w.kw["visuals"][0]},
        ANNOTATOR,
    ),
    Route("annotation:review_overview"),
    Route(
        "annotation:allow_expert",
        _item("evidence"),
        methods=POST,
        form=lambda w: {"expert": str(w.kw["gina"]), "note": "x"},
    ),
    Route(
        "annotation:reopen_claim",
        lambda w: {"claim_key": w.kw["disputed"].key},
        methods=POST,
        form=lambda w: {"note": "x"},
    ),
    Route(
        "annotation:drop_pair",
        lambda w: {"pair_key": w.kw["pair"].key},
        methods=POST,
        form=lambda w: {"reason": "x"},
    ),
    Route("annotation:agreement"),
    Route("annotation:agreement_csv"),
    Route(
        "annotation:assignments",
        methods=BOTH,
        query=(
            "subfield",
            "status",
            "acceptance",
            "state",
            "min_tables",
            "min_charts",
            "q",
            "page",
        ),
        form=lambda w: {
            "action": "spread",
            "papers": [str(w.kw["write"].paper_id)],
            "expert": str(w.kw["erin"]),
            "experts": [str(w.kw["erin"])],
            "per_expert": "1",
            "reassign": "on",
            "subfield": str(w.kw["subfield"]),
            "note": "x",
            "next": "/manage/assignments/",
        },
    ),
    Route(
        "annotation:people",
        methods=BOTH,
        query=("q", "show", "page"),
        form=lambda w: {
            "username": "newcomer",
            "first_name": "N",
            "last_name": "C",
            "email": "n@example.org",
            "is_staff": "",
        },
    ),
    Route("annotation:expert", lambda w: {"user_id": w.kw["erin"]}),
    Route("annotation:people_time_csv"),
    Route(
        "sign_ins",
        methods=BOTH,
        form=lambda w: {"username": "writer", "address": "192.0.2.1"},
    ),
    Route("account_sessions", users=("writer",), methods=BOTH, says_400=False),
    Route("api_tokens", users=("writer", "admin"), methods=BOTH, form=lambda w: {"name": "a"}),
    Route("manage_api_tokens", methods=BOTH, form=lambda w: {"revoke": str(w.kw["api_token"])}),
    Route(
        "annotation:archive",
        methods=POST,
        form=lambda w: {
            "action": "unarchive_papers",
            "papers": [str(w.kw["write"].paper_id)],
            "note": "x",
        },
    ),
    Route(
        "annotation:archive_account",
        lambda w: {"user_id": w.kw["erin"]},
        methods=POST,
        form=lambda w: {"action": "unarchive", "note": "x"},
    ),
    Route(
        "annotation:expert_profile",
        lambda w: {"user_id": w.kw["erin"]},
        methods=POST,
        form=lambda w: {"subfields": [str(w.kw["subfield"])], "active": "on", "notes": "x"},
    ),
    Route(
        "annotation:add_publication",
        lambda w: {"user_id": w.kw["erin"]},
        methods=POST,
        form=lambda w: {
            "title": "T",
            "venue": "V",
            "year": "2024",
            "subfield": str(w.kw["subfield"]),
        },
    ),
    Route(
        "annotation:remove_publication",
        methods=POST,
        kwargs=lambda w: {"user_id": w.kw["erin"], "publication_id": w.kw["publication"]},
    ),
    Route(
        "annotation:record_training",
        lambda w: {"user_id": w.kw["erin"]},
        methods=POST,
        form=lambda w: {"completed_on": "2024-11-01", "trainer": "t", "notes": "x"},
    ),
    Route("annotation:reset_password", lambda w: {"user_id": w.kw["erin"]}, methods=POST),
    Route("validation:next", users=("validator",), methods=POST),
    Route(
        "validation:validate",
        _item("validation"),
        ("validator", "admin"),
        BOTH,
        lambda w: (
            _held("validation")(w)
            | {
                "criteria_failed": ["language"],
                "text": "A claim that reads better than before.",
                "subset": w.kw["validation"].pair.subset,
                "label": "entailed",
                "evidence": [
                    str(v) for v in w.kw["validation"].claim.evidence.values_list("pk", flat=True)
                ],
                "explanation": "",
            }
        ),
        draft=VALIDATION_DRAFT,
    ),
    Route(
        "validation:element_image",
        lambda w: (
            _item("validation")(w)
            | {
                "element_id": w.kw["validation"]
                .claim.evidence.filter(kind__in=["table", "chart"])
                .first()
                .pk
            }
        ),
        ("validator", "admin"),
    ),
    Route("validation:baseline_next", users=("baseline",), methods=POST),
    Route(
        "validation:baseline_answer",
        _item("baseline"),
        ("baseline",),
        BOTH,
        lambda w: _held("baseline")(w) | {"label": "entailed", "explanation": "because"},
    ),
    Route("validation:overview", query=("q", "page")),
    Route(
        "validation:reopen",
        lambda w: {"claim_key": w.kw["validated"].key},
        methods=POST,
        form=lambda w: {"reason": "x"},
    ),
    Route("validation:statistics", query=("split",)),
    Route(
        "validation:baseline",
        methods=BOTH,
        form=lambda w: {
            "experts": [str(w.kw["frank"]), str(w.kw["gina"])],
            "per_subset": "1",
            "seed": "3",
        },
    ),
    Route("validation:baseline_study", lambda w: {"study_id": w.kw["study"]}),
    Route(
        "validation:releases",
        methods=BOTH,
        form=lambda w: {
            "validation": "2",
            "test": "0",
            "seed": "1",
            "licenses": "cc-by-4.0",
            "name": "v9",
        },
    ),
    Route(
        "validation:export",
        lambda w: {"split_id": w.kw["split"]},
        methods=POST,
        form=lambda w: {"hide_test_labels": "on"},
        says_400=False,
    ),
    Route("validation:export_status", lambda w: {"export_id": w.kw["export"]}),
    Route("validation:download", lambda w: {"export_id": w.kw["export"]}),
    Route(
        "evaluation:runs",
        methods=BOTH,
        form=lambda w: {
            "export": str(w.kw["export"]),
            "part": "validation",
            "endpoint": "x",
            "model": "m",
            "confirm_remote": "",
        },
    ),
    Route("evaluation:run", lambda w: {"run_id": w.kw["evaluation_run"]}),
    Route("evaluation:cancel", lambda w: {"run_id": w.kw["evaluation_run"]}, methods=POST),
    Route("evaluation:outcomes_csv", lambda w: {"run_id": w.kw["evaluation_run"]}),
    Route("evaluation:outcomes_json", lambda w: {"run_id": w.kw["evaluation_run"]}),
    Route("evaluation:compare", query=("run",)),
    Route("evaluation:compare_csv", query=("run",)),
    Route("evaluation:compare_json", query=("run",)),
    Route(
        "evaluation:start_error_analysis",
        lambda w: {"run_id": w.kw["evaluation_run"]},
        methods=POST,
        form=lambda w: {"sample_size": "3"},
        says_400=False,
    ),
    Route("evaluation:error_analyses"),
    Route("evaluation:error_analysis", lambda w: {"analysis_id": w.kw["error_analysis"]}),
    Route("evaluation:error_tags_csv", lambda w: {"analysis_id": w.kw["error_analysis"]}),
    Route("evaluation:error_cases_csv", lambda w: {"analysis_id": w.kw["error_analysis"]}),
    Route("evaluation:error_analysis_json", lambda w: {"analysis_id": w.kw["error_analysis"]}),
    Route("evaluation:my_error_cases", users=("validator",)),
    Route(
        "evaluation:error_case",
        lambda w: {"case_id": w.kw["error_case"]},
        users=("validator", "admin"),
        methods=BOTH,
        form=lambda w: {"categories": ["retrieval"], "note": "x"},
        says_400=False,
    ),
    Route(
        "evaluation:error_case_image",
        lambda w: {"case_id": w.kw["error_case"], "element_id": w.kw["error_case_visual"]},
        users=("validator", "admin"),
    ),
    Route(
        "evaluation:assistant",
        methods=BOTH,
        form=lambda w: {"endpoint": "x", "model": "m", "confirm_remote": ""},
        says_400=False,
    ),
    Route("evaluation:text_share"),
    Route(
        "evaluation:text_check",
        _item("validation"),
        users=("validator", "admin"),
        methods=BOTH,
        form=lambda w: {"entailed": "a", "refuted": "b"},
        says_400=False,
    ),
    Route(
        "evaluation:ideas",
        _item("write"),
        WRITER,
        methods=POST,
        form=lambda w: {"entailed": "a claim", "evidence": [str(v) for v in w.kw["visuals"][:1]]},
        says_400=False,
    ),
    Route("media", users=WRITER, url=lambda w: "/media/" + w.kw["media"]),
    Route("guidelines:current", users=("annotator", "admin")),
    Route("guidelines:versions", users=("annotator",)),
    Route("guidelines:version", lambda w: {"number": 1}, ("annotator",)),
    Route(
        "guidelines:edit",
        methods=BOTH,
        says_400=False,
        form=lambda w: {
            "based_on": "1",
            "count": "1",
            "key-0": "k",
            "title-0": "T",
            "body-0": "B",
            "note": "n",
        },
    ),
    Route("guidelines:queue", query=("status",)),
    Route(
        "guidelines:flag",
        lambda w: {"pk": w.kw["flag"]},
        methods=BOTH,
        says_400=False,
        form=lambda w: {"action": "fixed", "note": "n", "caption": "c"},
    ),
    Route(
        "guidelines:flag_item",
        _item("evidence"),
        ANNOTATOR,
        BOTH,
        says_400=False,
        form=lambda w: {"kind": "unsure", "note": "n", "element": ""},
    ),
    Route(
        "guidelines:flag_paper",
        lambda w: {"paper_id": w.kw["pair"].paper_id},
        WRITER,
        BOTH,
        says_400=False,
        form=lambda w: {"kind": "unsure", "note": "n", "element": str(w.kw["table"])},
    ),
    Route(
        "answers:edit",
        _item("answered"),
        ("answerer",),
        BOTH,
        says_400=False,
        form=lambda w: {"label": "refuted", "evidence": ""},
    ),
    Route(
        "validation_answers:edit",
        _item("checked"),
        ("validator",),
        BOTH,
        says_400=False,
        form=lambda w: {"text": "t", "criteria": "language", "evidence": "", "explanation": ""},
    ),
]


# --- Sending -------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What the hostile requests got: failures (a 5xx or an exception, each named), and per
    route and user the status codes seen."""

    failures: list[str] = field(default_factory=list)
    statuses: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    requests: int = 0


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}…({len(text)} chars)"


def _send(
    outcome: Outcome,
    label: str,
    user: str,
    client: Client,
    method: str,
    url: str,
    what: str,
    body: bytes | str | None = None,
    content_type: str = "",
) -> None:
    """One request in a savepoint rolled back after it; a 5xx or an exception is a failure."""
    outcome.requests += 1
    try:
        with transaction.atomic():
            try:
                if method == "get":
                    response = client.get(url)
                else:
                    response = client.post(url, body or b"", content_type=content_type)
            finally:
                transaction.set_rollback(True)
    except Exception as exc:  # noqa: BLE001 - any exception out of a view is the failure
        where = "".join(traceback.format_exception(exc)[-3:]).strip().splitlines()[-1]
        outcome.failures.append(f"{label} as {user}: {method.upper()} {what}: raised {where}")
        return
    outcome.statuses.setdefault((label, user), []).append(response.status_code)
    if response.status_code >= 500:
        outcome.failures.append(
            f"{label} as {user}: {method.upper()} {what}: {response.status_code}"
        )


def _form(data: dict) -> str:
    return urlencode(data, doseq=True)


def _rotating(values: list, start: int, n: int) -> list:
    return list(islice(cycle(values), start, start + n))


def _client(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _converters(patterns=None, namespace: str = "") -> dict[str, dict[str, object]]:
    """Route name -> {kwarg: converter} for every route of the resolver (admin and
    django-rq's pages left to the admin test), and "media"."""
    found: dict[str, dict[str, object]] = {}
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            if p.app_name in ("admin", "api") or str(p.pattern).startswith("django-rq"):
                continue  # the admin's and the API's routes: tests of their own below
            found |= _converters(p.url_patterns, p.namespace or namespace)
        elif isinstance(p, URLPattern):
            if str(p.pattern).startswith("^media/"):
                found["media"] = {}
            elif not str(p.pattern).startswith("^static/"):
                name = f"{namespace}:{p.name}" if namespace else str(p.name)
                found[name] = dict(getattr(p.pattern, "converters", {}))
    return found


def _url(route: Route, w: World, **override) -> str:
    if route.url is not None:
        return route.url(w)
    return reverse(route.name, kwargs=route.kwargs(w) | override)


def _hostile_urls(route: Route, w: World, converters: dict[str, object]) -> list[tuple[str, str]]:
    """The route's URL with each int or str part replaced by hostile text (a placeholder that
    the converter takes, replaced after reversing)."""
    if route.name == "media":  # in the folder of the writer's paper, and anywhere
        folder = "/media/" + w.kw["media"].rsplit("/", 1)[0] + "/"
        return [
            (start + quote(v), f"path {_shown(v)}")
            for start in (folder, "/media/")
            for v in URL_STRS
        ]
    urls = []
    for name, converter in converters.items():
        kind = type(converter).__name__
        number = kind in ("IntConverter", "IdConverter")
        if not (number or kind == "StringConverter"):
            continue  # keys: 22 URL-safe characters, nothing else reaches the view
        placeholder = "987654321987" if number else "zqzqzqzq"
        url = _url(route, w, **{name: placeholder})
        for value in URL_INTS if number else URL_STRS:
            urls.append(
                (url.replace(placeholder, quote(value, safe="")), f"{name}={_shown(value)}")
            )
    return urls


def _label(route: Route) -> str:
    """The route's name, and the item's when a route has several rows."""
    if route.name == "annotation:review_draft":
        return f"{route.name} ({route.users[0]})"
    return route.name


def _attack(route: Route, index: int, w: World, converters: dict, outcome: Outcome) -> None:
    for role in route.users:
        _attack_as(route, index, role, w, converters, outcome)


def _attack_as(
    route: Route, index: int, role: str, w: World, converters: dict, outcome: Outcome
) -> None:
    """Every hostile request of the route as one of its users: its holder gets every value
    (the rotating extras differ from route to route); the others (admins looking at an item)
    the first few, each field on its own."""
    user, holder, label = w.users[role], role == route.users[0], _label(route)
    client = _client(user)
    urlencoded, as_json = "application/x-www-form-urlencoded", "application/json"

    def send(method: str, url: str, what: str, body=None, content_type="") -> None:
        if route.relogin and user is not None:
            client.force_login(user)
        _send(outcome, label, role, client, method, url, what, body, content_type)

    def values(core: list, extra: list, n: int) -> list:
        return core + _rotating(extra, index + n, 2) if holder else core[:3]

    url = _url(route, w)
    if route.name == "password_reset_confirm":  # the link puts its token in the session
        url = client.get(url).url
    if "get" in route.methods:
        for n, name in enumerate(route.query):
            for value in values(CORE, EXTRA, n):
                send("get", f"{url}?{_form({name: value})}", f"?{name}={_shown(value)}")
        # Parameters a page may not read (every page gets them: a link can carry them).
        for value in EXTRA[:-1] if route.query and holder else CORE[:3]:
            params = _form(dict.fromkeys((*route.query, "page", "q"), value))
            send("get", f"{url}?{params}", f"every parameter {_shown(value)}")
    if "post" in route.methods:
        base = route.form(w)
        send("post", url, "no fields", b"", urlencoded)
        for n, name in enumerate(base):
            if holder:
                rest = {k: v for k, v in base.items() if k != name}
                send("post", url, f"{name} missing", _form(rest), urlencoded)
            for value in values(CORE, EXTRA, n):
                send(
                    "post", url, f"{name}={_shown(value)}", _form(base | {name: value}), urlencoded
                )
        for value in EXTRA[:-1] if base and holder else []:
            every = _form(dict.fromkeys(base, value))
            send("post", url, f"every field {_shown(value)}", every, urlencoded)
        for body in (b"{", b"[]", json.dumps({k: ["\x00", 10**30] for k in base}).encode()):
            send("post", url, f"JSON {_shown(body)}", body, as_json)
    if route.draft:
        version = WorkItem.objects.get(key=route.kwargs(w)["item_key"]).version
        for body in JSON_BODIES if holder else JSON_BODIES[:4]:
            send("post", url, f"JSON {_shown(body)}", body, as_json)
        for value in JSON_CORE + JSON_EXTRA if holder else JSON_CORE[:3]:
            body = json.dumps({"version": value, "draft": {}})
            send("post", url, f"JSON version={_shown(value)}", body, as_json)
        for n, name in enumerate(route.draft):
            for value in values(JSON_CORE, JSON_EXTRA, n):
                body = json.dumps({"version": version, "draft": {name: value}})
                send("post", url, f"JSON draft.{name}={_shown(value)}", body, as_json)
    for hostile, what in _hostile_urls(route, w, converters.get(route.name, {})):
        for method in route.methods:
            send(method, hostile, what, b"", urlencoded)


# --- The tests -----------------------------------------------------------------------------


# The table in route groups, one test each (the whole table in one test took 45–100 s): a
# group is a URL namespace, and a namespace of more than GROUP_SIZE routes is cut in order
# into parts of at most that many. Each route keeps its index in ROUTES, which picks its
# rotating extra values, so every group sends what the one test sent.
GROUP_SIZE = 16


def _route_groups() -> dict[str, list[tuple[int, Route]]]:
    by_namespace: dict[str, list[tuple[int, Route]]] = {}
    for index, route in enumerate(ROUTES):
        namespace = route.name.split(":", 1)[0] if ":" in route.name else "site"
        by_namespace.setdefault(namespace, []).append((index, route))
    groups: dict[str, list[tuple[int, Route]]] = {}
    for namespace, rows in by_namespace.items():
        parts = [rows[i : i + GROUP_SIZE] for i in range(0, len(rows), GROUP_SIZE)]
        for n, part in enumerate(parts, start=1):
            groups[namespace if len(parts) == 1 else f"{namespace}-{n}"] = part
    return groups


ROUTE_GROUPS = _route_groups()


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    """The data every hostile request needs, built once for the module's tests (each of them
    only reads it: every request runs in a savepoint rolled back after it, and what a test
    writes besides, such as sessions, goes with the test's own transaction). It is rolled back
    at the end of the module; its images are in a folder of its own, which the tests serve."""
    from tests.worlds import build_once

    media = tmp_path_factory.mktemp("hostile-media")

    def build() -> World:
        w = _world()
        w.kw["media_root"] = media
        return w

    yield from build_once(
        "hostile input", build, django_db_blocker=django_db_blocker, media_root=media
    )


@pytest.fixture
def world_media(world, settings):
    """The module's world for one test: its images served, its held items as stored (a test
    that wrote to one has had its writes rolled back)."""
    settings.MEDIA_ROOT = world.kw["media_root"]
    for name in ("write", "reperturb", "evidence", "adjudication", "validation", "baseline"):
        world.kw[name].refresh_from_db()
    return world


def test_the_table_covers_every_route():
    assert set(_converters()) == {r.name for r in ROUTES}
    # Each route in exactly one group, in the table's order.
    grouped = [index for rows in ROUTE_GROUPS.values() for index, _ in rows]
    assert sorted(grouped) == list(range(len(ROUTES)))
    assert all(len(rows) <= GROUP_SIZE for rows in ROUTE_GROUPS.values())


@pytest.mark.parametrize("group", list(ROUTE_GROUPS))
def test_no_route_answers_hostile_values_with_a_server_error(group, world_media):
    """The application's routes of one group, as the holders of their items and as an admin."""
    w, rows = world_media, ROUTE_GROUPS[group]
    started = time.perf_counter()
    converters = _converters()
    outcome = Outcome()
    for index, route in rows:
        _attack(route, index, w, converters, outcome)
    elapsed = time.perf_counter() - started
    print(f"{outcome.requests} hostile requests over {len(rows)} routes in {elapsed:.1f} s")
    assert not outcome.failures, f"{len(outcome.failures)} failures:\n" + "\n".join(
        outcome.failures[:200]
    )
    # The values reached the parsing code: the holder got a 400 on every route that reads
    # fields, not only permission answers.
    routes = [route for _, route in rows]
    seen = {_label(r): outcome.statuses.get((_label(r), r.users[0]), []) for r in routes}
    silent = [
        f"{_label(r)} as {r.users[0]}: {sorted(set(seen[_label(r)]))}"
        for r in routes
        if r.says_400 and (r.form(w) or r.draft or r.query) and 400 not in seen[_label(r)]
    ]
    assert not silent, "never refused a bad value:\n" + "\n".join(silent)


# --- The Django admin ------------------------------------------------------------------------

ADMIN_VALUES = ["²", "9" * 25, "\x00", "9" * 5000]
ADMIN_URL_VALUES = ["²", "9" * 25, "\x00"]
MODEL_VIEWS = ("changelist", "add", "change", "history", "delete")


def _admin_resolver() -> URLResolver:
    return next(
        p
        for p in get_resolver().url_patterns
        if isinstance(p, URLResolver) and p.app_name == "admin"
    )


def _admin_patterns(patterns) -> list[URLPattern]:
    found: list[URLPattern] = []
    for p in patterns:
        found += _admin_patterns(p.url_patterns) if isinstance(p, URLResolver) else [p]
    return found


def _admin_names(patterns) -> set[str]:
    return {p.name for p in _admin_patterns(patterns) if p.name}


def _admin_model_pass(model, model_admin, user, client: Client, send) -> set[str]:
    """A registered model's pages: its list with hostile parameters (paging, search, order and
    each of its filters) and actions, its add and change forms with hostile fields, and its
    object pages under hostile ids. Returns the route names it covered."""
    from django.test import RequestFactory

    prefix = f"{model._meta.app_label}_{model._meta.model_name}"
    changelist = reverse(f"admin:{prefix}_changelist")
    request = RequestFactory().get(changelist)
    request.user = user
    params = ["p", "q", "o", "_to_field", "e"]
    try:
        specs = model_admin.get_changelist_instance(request).filter_specs
        params += [p for spec in specs for p in spec.expected_parameters()]
    except Exception:  # noqa: BLE001 - a list that cannot be built is sent bare
        pass
    for name in params:
        for value in ADMIN_VALUES[:3]:
            send(
                "get",
                f"{changelist}?{_form({name: value})}",
                f"{prefix} list ?{name}={_shown(value)}",
            )
    actions = [a for a in model_admin.get_actions(request) if a]
    for value in ADMIN_VALUES[:2]:
        body = {"action": actions[0] if actions else "x", "_selected_action": value, "index": "0"}
        send(
            "post",
            changelist,
            f"{prefix} action on {_shown(value)}",
            _form(body),
            "application/x-www-form-urlencoded",
        )
    obj = model._default_manager.order_by("pk").first()
    fields = list(model_admin.get_form(request, obj).base_fields)
    add = reverse(f"admin:{prefix}_add")
    targets = [add] + ([reverse(f"admin:{prefix}_change", args=[obj.pk])] if obj else [])
    for url in targets:
        send("get", url, f"{prefix} form")
        for value in ADMIN_VALUES[:3]:
            send(
                "post",
                url,
                f"{prefix} form, every field {_shown(value)}",
                _form(dict.fromkeys(fields, value) | {"_save": "Save"}),
                "application/x-www-form-urlencoded",
            )
    for view in ("change", "history", "delete"):
        if obj is not None:
            send("get", reverse(f"admin:{prefix}_{view}", args=[obj.pk]), f"{prefix} {view}")
        placeholder = "987654321987"
        url = reverse(f"admin:{prefix}_{view}", args=[placeholder])
        for value in ADMIN_URL_VALUES:
            send(
                "get",
                url.replace(placeholder, quote(value, safe="")),
                f"{prefix} {view} of {_shown(value)}",
            )
    return {f"{prefix}_{view}" for view in MODEL_VIEWS}


def test_the_admin_answers_hostile_values_without_a_server_error(world_media):
    """Every route of the admin (its model pages for every registered model, and the site's
    own), signed in as an admin, with fewer values than the application's routes."""
    w = world_media
    user = w.users["admin"]
    client = _client(user)
    outcome = Outcome()

    def send(method: str, url: str, what: str, body=None, content_type="") -> None:
        _send(outcome, "admin", "admin", client, method, url, what, body, content_type)

    covered: set[str] = set()
    for model, model_admin in admin.site._registry.items():
        if not model._meta.managed:
            continue  # no table (django-rq's dashboard): its pages are the named routes below
        covered |= _admin_model_pass(model, model_admin, user, client, send)
    for value in ADMIN_VALUES:
        q = _form({"term": value, "app_label": value, "model_name": value, "field_name": value})
        send("get", f"{reverse('admin:autocomplete')}?{q}", f"autocomplete {_shown(value)}")
        send("get", f"{reverse('admin:index')}?{_form({'q': value})}", f"index {_shown(value)}")
    for label in {m._meta.app_label for m in admin.site._registry}:
        send("get", reverse("admin:app_list", args=[label]), f"app {label}")
    for value in ADMIN_URL_VALUES:
        send("get", "/admin/" + quote(value, safe=""), f"no such page {_shown(value)}")
        send(
            "get",
            f"/admin/r/{quote(value, safe='')}/{quote(value, safe='')}/",
            f"view on site {_shown(value)}",
        )
    covered |= {"index", "autocomplete", "app_list", "view_on_site"}
    # The others (the admin's sign-in, password and catalog pages, django-rq's dashboard with
    # Redis): GET with each part of the URL hostile.
    for pattern in _admin_patterns(_admin_resolver().url_patterns):
        if pattern.name and pattern.name not in covered:
            converters = dict(getattr(pattern.pattern, "converters", {}))
            kwargs = {k: 1 for k in converters}
            try:
                url = reverse(f"admin:{pattern.name}", kwargs=kwargs)
            except Exception:  # noqa: BLE001 - e.g. a regex route: its bare URL
                url = reverse(f"admin:{pattern.name}") if not converters else None
            if url is None:
                outcome.failures.append(f"admin:{pattern.name}: no URL to send hostile values")
                continue
            send("get", url, pattern.name)
            send("get", f"{url}?{_form({'next': '²', 'q': chr(0)})}", f"{pattern.name} ?query")
            covered.add(pattern.name)
    missing = _admin_names(_admin_resolver().url_patterns) - covered
    print(f"{outcome.requests} hostile admin requests over {len(covered)} routes")
    assert not missing, f"admin routes without hostile values: {sorted(missing)}"
    assert not outcome.failures, f"{len(outcome.failures)} failures:\n" + "\n".join(
        outcome.failures[:200]
    )


# --- The HTTP API (/api/): its routes, its fields, in its JSON shape ---------------------------

# Every route of the `api` namespace is read from the resolver (a route added later is covered
# with no row to write), and the fields of each operation from the OpenAPI schema the API
# serves: its query parameters and its request body's properties. An admin's token sends them
# hostile values; no answer may be a 5xx, and every refusal is `{status, code, message, field}`.

API_SHAPE = {"status", "code", "message", "field"}
API_QUERY = ["²", "9" * 5000, "-1", "\x00", ["1", "١٢"], str(2**70), "", "null"]
API_JSON = [
    10**30,
    2**70,
    -1,
    None,
    [],
    {},
    "\x00",
    "\ud800",  # sent as the JSON escape "\ud800": a lone surrogate
    [["1"]],
    ["²"],
    "9" * 5000,
    True,
    1.5,
    {"a": 1},
    ["\ud800"],
    "",
]
API_BODIES = [
    b"",
    b"{",
    b"\xff\xfe",
    b"null",
    b"[]",
    b"5",
    b'"x"',
    b"NaN",
    b'{"a": NaN}',
    b"1e999999",
    b'"\\ud800"',
    b"[" * 50_000,
    MB.encode(),
    json.dumps({"x": MB}).encode(),
]
API_PATH_VALUES = {  # per converter: values its pattern takes that no object has, and others
    "IdConverter": ["0", "9" * 18, str(2**70), "-1", "987654321987"],
    "IntConverter": ["0", "9" * 18, str(2**70), "9" * 5000, "-1"],
    "ArxivIdConverter": ["9999.99999", "x" * 2000, "..", "-1", "²"],
}
API_PATH_OTHER = ["A" * 22, "..", "²", "\x00", "x" * 2000]
API_METHODS = ("get", "post", "put", "patch", "delete")
SPECTACULAR = ("api:schema", "api:docs")  # the schema is built per request: fewer values


@dataclass
class ApiRoute:
    name: str
    pattern: str  # e.g. "api/people/<id:user_id>/"
    methods: tuple[str, ...]
    converters: dict[str, object]

    @property
    def openapi_path(self) -> str:
        return "/" + re.sub(r"<(?:[^>:]+:)?([^>]+)>", r"{\1}", self.pattern)

    def url(self, values: dict[str, str]) -> str:
        def part(match: re.Match) -> str:
            return quote(str(values[match.group(1)]), safe="")

        return "/" + re.sub(r"<(?:[^>:]+:)?([^>]+)>", part, self.pattern)


def _api_routes(patterns=None, namespace: str = "", prefix: str = "") -> list[ApiRoute]:
    found: list[ApiRoute] = []
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            found += _api_routes(p.url_patterns, p.namespace or namespace, prefix + str(p.pattern))
        elif isinstance(p, URLPattern) and namespace == "api" and p.name != "unknown":
            view = getattr(p.callback, "cls", None)
            allowed = getattr(view, "http_method_names", API_METHODS)
            methods = tuple(m for m in API_METHODS if m in allowed and hasattr(view, m))
            converters = dict(getattr(p.pattern, "converters", {}))
            found.append(ApiRoute(f"api:{p.name}", prefix + str(p.pattern), methods, converters))
    return found


def _real_values(route: ApiRoute, w: World) -> dict[str, str]:
    """The route's URL parts with objects of the world where it has them (any value else: the
    route then answers 404, after reading its query and body)."""
    by_name = {
        "arxiv_id": w.kw["arxiv_id"],
        "version": w.kw["version"],
        "user_id": w.kw["erin"],
        "split_id": w.kw["split"],
        "export_id": w.kw["export"],
        "run_id": w.kw["evaluation_run"] if "evaluation" in route.pattern else w.kw["crawl"],
    }
    return {name: str(by_name.get(name, 1)) for name in route.converters}


def _schema_fields(schema: dict, route: ApiRoute, method: str) -> tuple[list[str], list[str]]:
    """(query parameters, body fields) the schema gives the operation."""
    operation = schema["paths"].get(route.openapi_path, {}).get(method, {})
    query = [p["name"] for p in operation.get("parameters", []) if p.get("in") == "query"]
    body: list[str] = []
    for media in operation.get("requestBody", {}).get("content", {}).values():
        described = media.get("schema", {})
        if "$ref" in described:
            described = schema["components"]["schemas"][described["$ref"].rsplit("/", 1)[-1]]
        body += [name for name in described.get("properties", {}) if name not in body]
    return query, body


def _api_send(
    outcome: Outcome,
    client: Client,
    method: str,
    url: str,
    what: str,
    label: str,
    body: bytes | str | None = None,
    content_type: str = "application/json",
) -> None:
    """One API request in a savepoint rolled back after it: a 5xx, an exception or a refusal
    out of the JSON shape is a failure."""
    outcome.requests += 1
    try:
        with transaction.atomic():
            try:
                if method == "get":
                    response = client.get(url)
                else:
                    response = getattr(client, method)(url, body or b"", content_type=content_type)
            finally:
                transaction.set_rollback(True)
    except Exception as exc:  # noqa: BLE001 - any exception out of a view is the failure
        where = "".join(traceback.format_exception(exc)[-3:]).strip().splitlines()[-1]
        outcome.failures.append(f"{label}: {method.upper()} {what}: raised {where}")
        return
    status = response.status_code
    outcome.statuses.setdefault((label, "admin"), []).append(status)
    if status >= 500:
        outcome.failures.append(f"{label}: {method.upper()} {what}: {status}")
    elif status >= 400 and label not in SPECTACULAR:
        try:
            refusal = json.loads(response.content)
        except ValueError:
            refusal = None
        if not (
            isinstance(refusal, dict) and API_SHAPE <= set(refusal) and refusal["status"] == status
        ):
            outcome.failures.append(
                f"{label}: {method.upper()} {what}: {status} not in the JSON shape: "
                f"{response.content[:120]!r}"
            )


def _attack_api(route: ApiRoute, schema: dict, w: World, client: Client, outcome: Outcome) -> None:
    light = route.name in SPECTACULAR
    real = _real_values(route, w)
    url = route.url(real)
    label = route.name

    def send(method: str, target: str, what: str, body=None, kind="application/json") -> None:
        _api_send(outcome, client, method, target, what, label, body, kind)

    for method in route.methods:
        query, fields = _schema_fields(schema, route, method)
        if method == "get":
            names = query + ["cursor", "page_size", "q", "format"]
            for name in ["format", "lang"] if light else names:
                for value in API_QUERY[:3] if light else API_QUERY:
                    send("get", f"{url}?{_form({name: value})}", f"?{name}={_shown(value)}")
            if not light:  # every parameter at once, a 1 MB one too
                for value in ("\x00", MB):
                    params = _form(dict.fromkeys(names, value))
                    send("get", f"{url}?{params}", f"every parameter {_shown(value)}")
            continue
        for body in API_BODIES:
            send(method, url, f"JSON body {_shown(body)}", body)
        send(method, url, "form body", _form({"x": "\x00"}), "application/x-www-form-urlencoded")
        for name in fields or ["x"]:
            for value in API_JSON:
                send(method, url, f"{name}={_shown(value)}", json.dumps({name: value}))
        for value in (MB, 10**30, [], "\ud800"):
            every = json.dumps(dict.fromkeys(fields or ["x"], value))
            send(method, url, f"every field {_shown(value)}", every)
            if fields:
                send(
                    method,
                    url,
                    f"every field {_shown(value)}, form",
                    _form(dict.fromkeys(fields, value if value == MB else "²")),
                    "application/x-www-form-urlencoded",
                )
    # The methods it does not take, the JSON shape too (405).
    for method in (m for m in API_METHODS if m not in route.methods):
        send(method, url, f"{method.upper()} (not taken)", b"{}")
    # Its URL parts: values of their form that no object has, and others.
    for name, converter in route.converters.items():
        kind = type(converter).__name__
        for value in API_PATH_VALUES.get(kind, API_PATH_OTHER):
            hostile = route.url(real | {name: value})
            for method in route.methods:
                send(method, hostile, f"{name}={_shown(value)}", b"{}")


API_ROUTES = _api_routes()  # read when the module is collected: each route is a test
API_SPOTS = {r.name: r for r in API_ROUTES}


@pytest.fixture
def api_admin(world_media, settings) -> Client:
    """An admin's token client, with no request budget (these tests send many requests)."""
    from django.core.cache import cache

    settings.API_RATE = ""
    cache.clear()
    _, raw = issue_token(user=world_media.users["admin"], name="hostile")
    return Client(headers={"Authorization": f"Bearer {raw}"})


@pytest.fixture(scope="module")
def api_schema(django_db_setup, django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        return Client().get("/api/schema/?format=json").json()


def test_the_api_routes_are_enumerated():
    names = set(API_SPOTS)
    assert {"api:schema", "api:docs"} <= names and "api:unknown" not in names
    assert len(names) > 2, "no API route besides the schema and its docs"


@pytest.mark.parametrize("name", list(API_SPOTS))
def test_the_api_answers_hostile_values_in_its_json_shape(name, world_media, api_admin, api_schema):
    """One /api/ route with an admin's token: hostile query parameters, JSON bodies (wrong
    types, huge numbers, NUL, lone surrogates, 1 MB strings, unreadable JSON), form bodies,
    methods it does not take and hostile URL parts. The schema and its docs are drf-spectacular's
    (YAML and HTML): no 5xx, their refusals need not be the API's JSON."""
    route = API_SPOTS[name]
    started = time.perf_counter()
    outcome = Outcome()
    _attack_api(route, api_schema, world_media, api_admin, outcome)
    elapsed = time.perf_counter() - started
    print(f"{outcome.requests} hostile requests to {name} in {elapsed:.1f} s")
    assert not outcome.failures, f"{len(outcome.failures)} failures:\n" + "\n".join(
        outcome.failures[:200]
    )
    # The values reached the parsing code: a route that reads a body refused one with 400.
    if any(m != "get" for m in route.methods):
        assert 400 in outcome.statuses.get((name, "admin"), []), "never refused a bad body"


def test_an_address_no_api_route_takes_answers_the_json_404(api_admin):
    outcome = Outcome()
    for value in ("x", "\x00", "²" * 50, "../" * 20, "x" * 5000, "people/" + str(2**70) + "/"):
        for method in API_METHODS:
            url = "/api/" + quote(value, safe="/")
            _api_send(outcome, api_admin, method, url, f"/api/{_shown(value)}", "unknown", b"{}")
    assert not outcome.failures, "\n".join(outcome.failures)
    assert set(outcome.statuses[("unknown", "admin")]) == {404}


# --- What the issue found, one by one: a readable 400, and nothing lost ------------------------


def test_the_parsers_take_ascii_digits_only():
    from annotation import inputs as parse

    assert parse.parse_int("12", field="n") == 12 and parse.parse_int(12, field="n") == 12
    assert parse.parse_int("", field="n") is None and parse.parse_int(None, field="n") is None
    for bad in ("²", "١٢", "9" * 5000, "9" * 25, "-1", " 7", "1.5", "0x1", True, 1.0, [1], {}):
        with pytest.raises(parse.BadInput, match="^n: "):
            parse.parse_int(bad, field="n")
    assert parse.parse_id_list(["3", "1", "3", ""], field="ids") == [3, 1]
    with pytest.raises(parse.BadInput, match="invalid item id '²'"):
        parse.parse_id_list(["1", "²"], field="ids")
    with pytest.raises(parse.BadInput, match="expected a list of ids"):
        parse.parse_id_list(5, field="ids")
    for bad in ("a\x00b", "\ud800", 5, ["x"]):
        with pytest.raises(parse.BadInput):
            parse.parse_text(bad, field="t", max_length=10)
    with pytest.raises(parse.BadInput, match="longer than 10 characters") as cut:
        parse.parse_text("x" * 20, field="t", max_length=10)  # refused whole, never cut
    assert cut.value.kept == "x" * 20
    errors: dict[str, str] = {}

    class Sample(parse.Form):
        a = parse.WholeNumberField()
        b = parse.TextField(10)
        c = parse.IdsField()

    assert Sample.read({"a": "²", "b": "kept", "c": [1]}, errors=errors) == {
        "a": None,
        "b": "kept",
        "c": [1],
    }
    assert list(errors) == ["a"]


def test_the_findings_answer_400_with_what_was_wrong_and_keep_everything(world_media):
    w = world_media
    writer, erin = w.users["writer"], w.users["annotator"]
    write, evidence = w.kw["write"], w.kw["evidence"]
    client = _client(writer)
    draft_url = reverse("annotation:save_draft", args=[write.key])
    saved = client.post(
        draft_url,
        {"version": write.version, "draft": {"entailed": "kept"}},
        content_type="application/json",
    )
    assert saved.status_code == 200
    for version in ("²", "9" * 5000):
        response = client.post(
            draft_url,
            {"version": version, "draft": {"entailed": "lost"}},
            content_type="application/json",
        )
        assert response.status_code == 400 and "version" in response.json()["error"]
    write.refresh_from_db()
    assert write.draft["entailed"] == "kept"

    client = _client(erin)
    review_draft = reverse("annotation:review_draft", args=[evidence.key])
    response = client.post(
        review_draft, {"draft": {"evidence": 5}}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"] == (
        "The draft could not be read: evidence: expected a list of ids, got 5."
    )
    annotate = reverse("annotation:annotate", args=[evidence.key])
    for bad in ("²", "9" * 5000):
        response = client.post(
            annotate,
            {"version": evidence.version, "token": TOKEN, "label": "refuted", "evidence": bad},
        )
        page = response.content.decode()
        assert response.status_code == 400 and "evidence: invalid item id" in page
        assert 'value="refuted" checked' in page  # what was chosen stays on the page
    evidence.refresh_from_db()
    assert evidence.status == "leased" and not hasattr(evidence, "evidence_annotation")

    # A parameter or a small form with nothing to show again: the 400 page says what.
    client = _client(w.users["admin"])
    response = client.get(reverse("annotation:claims_overview") + "?page=%C2%B2")
    assert response.status_code == 400 and "page: &#x27;²&#x27; is not a whole number" in (
        response.content.decode()
    )
    client = _client(writer)
    response = client.post(reverse("annotation:release_task", args=[write.key]), {"version": "²"})
    assert response.status_code == 400 and "version:" in response.content.decode()
    write.refresh_from_db()
    assert write.status == "leased" and write.holder_id == writer.pk
