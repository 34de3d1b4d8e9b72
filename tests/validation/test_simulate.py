"""simulate_annotation: synthetic papers through the real workflow, idempotent, with work left
for people; and the release manager's walkthrough on its data (split, export, check, load)."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db.models import Q
from django.utils import timezone

from annotation.experts.selectors import eligible_experts
from annotation.models import (
    Assignment,
    Claim,
    ClaimPair,
    ClaimReview,
    CuratedContext,
    PairRole,
    Role,
    WorkEvent,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work
from papers.licences import allows_redistribution, paper_licence
from papers.models import Element, Paper
from papers.synthetic import FIXTURES, ensure_copies, fixture_of, make_copy, synthetic_id
from tests.demo import people, simulate
from tests.validation.releases import load_sciver
from tests.worlds import build_once
from validation.models import ValidationRevision, ValidationStatus
from workspace.demo.simulate import Fact, table_facts, write_claim

pytestmark = pytest.mark.django_db(transaction=False)


run = simulate


def _context(paper: Paper) -> list[tuple]:
    """A paper's stored context, without ids and file names."""
    sections = [
        (s.anchor, s.kind, s.title, s.order) for s in paper.sections.order_by("order", "anchor")
    ]
    elements = []
    for e in Element.objects.filter(paper=paper).order_by("order", "anchor"):
        image = (Path(e.image.path).read_bytes() if e.image else b"") if e.kind == "chart" else b""
        elements.append((e.anchor, e.kind, e.label, e.caption, e.text, e.cells, e.order, image))
    return [sections, elements, paper.parse_warnings, paper.degraded_count]


def test_copies_are_synthetic_imports_of_the_fixtures_with_shared_screenshots(settings):
    out = run("--papers", "7", "--seed", "3", "--no-leftovers")
    assert "7 simulated (7 copies imported)" in out
    papers = list(Paper.objects.order_by("arxiv_id"))
    assert [p.arxiv_id for p in papers] == [synthetic_id(n) for n in range(1, 8)]
    assert all(p.synthetic and p.status == Paper.Status.PARSED for p in papers)
    # Copy 7 is fixture 1 again: same structure, same pictures (linked, not rendered again).
    assert fixture_of(7) == fixture_of(1) == FIXTURES[0]
    first, seventh = papers[0], papers[6]
    # Its title with its own names (`workspace.demo.variation`), word for word.
    assert len(first.title.split()) == len(seventh.title.split())
    assert first.media_dir != seventh.media_dir
    a = {e.anchor: e for e in Element.objects.filter(paper=first, kind="table")}
    b = {e.anchor: e for e in Element.objects.filter(paper=seventh, kind="table")}
    assert a.keys() == b.keys() and a
    for anchor, element in b.items():
        assert element.image.name.startswith(seventh.media_dir)
        mine = Path(settings.MEDIA_ROOT) / element.image.name
        theirs = Path(settings.MEDIA_ROOT) / a[anchor].image.name
        assert mine.read_bytes() == theirs.read_bytes()

    # ensure_copies parses each fixture once (papers.importing.prepare_page): copy 8 made that
    # way holds exactly what copy 14 of the same fixture holds, imported on its own (neither
    # simulated: the simulation gives a copy its own values and names, `workspace.demo.variation`).
    ensure_copies(8)
    eighth = Paper.objects.get(arxiv_id=synthetic_id(8))
    plain = make_copy(14)
    assert fixture_of(14) == fixture_of(8)
    assert _context(plain) == _context(eighth)
    assert any(e[1] == "chart" and e[-1] for e in _context(plain)[1])
    # Simulated, copy 7 is copy 1's structure and pictures with its own values and names.
    same = [sections for sections, *_ in (_context(first), _context(seventh))]
    assert same[0] == same[1]
    shape = [
        [(e[0], e[1], e[2], e[6], e[7]) for e in _context(paper)[1]] for paper in (first, seventh)
    ]
    assert shape[0] == shape[1]
    assert [e[5] for e in _context(first)[1]] != [e[5] for e in _context(seventh)[1]]

    # Licences: the demo's copies (up to 24) keep their fixture's, so its licence filter has
    # papers to drop (4, 6, 22, 24); later copies of the same fixtures are CC BY 4.0, so a
    # default split of SciVer's size can be made; a redistributable fixture keeps its own.
    numbers = (3, 4, 6, 22, 24, 28, 30, 33)
    for number in numbers:
        make_copy(number)
    code = {n: paper_licence(Paper.objects.get(arxiv_id=synthetic_id(n))) for n in numbers}
    assert code[4] == code[22] == "cc-by-nc-sa" and code[6] == code[24] == "arxiv"
    assert not any(allows_redistribution(code[n]) for n in (4, 6, 22, 24))
    assert code[28] == code[30] == "cc-by"
    assert code[3] == code[33] == "cc-by-sa"  # occlusion-depth's own licence


@pytest.fixture(scope="class")
def demo(django_db_setup, django_db_blocker, tmp_path_factory):
    """The demo's people and fourteen simulated papers, built once for the tests that read them
    (the release manager's split and export, and the second run, are rolled back after each)."""

    def build() -> str:
        people()
        return run("--papers", "14", "--seed", "13")

    media = tmp_path_factory.mktemp("demo-media")
    for printed in build_once(
        "demo: people, 14 papers, seed 13",
        build,
        django_db_blocker=django_db_blocker,
        media_root=media,
    ):
        yield media, printed


@pytest.fixture
def demo_data(demo, settings) -> str:
    """What simulate_annotation printed; its images served from the world's folder."""
    settings.MEDIA_ROOT = demo[0]
    return demo[1]


def test_revisions_happen_at_about_sciver_rate():
    run("--papers", "30", "--seed", "2", "--no-leftovers")
    validated = Claim.objects.filter(validation__status=ValidationStatus.VALIDATED).count()
    revised = ValidationRevision.objects.values("validation_id").distinct().count()
    assert validated > 60
    assert 0 < revised < validated * 0.25
    assert_the_evidence_rule_holds()


def test_claims_built_from_cells_meet_the_writing_rules():
    rng = random.Random(0)
    table = Element(
        pk=1,
        kind="table",
        label="Table 2",
        caption="Table 2: Results on the test set.",
        cells=[
            [
                [{"text": "Model"}, {"text": "BLEU"}, {"text": "chrF"}],
                [{"text": "Ours"}, {"text": "31.5"}, {"text": "55.0"}],
                [{"text": "Baseline"}, {"text": "29.0"}, {"text": "53.1"}],
            ]
        ],
    )
    chart = Element(pk=2, kind="chart", label="Figure 3", caption="Figure 3: Accuracy per epoch.")
    bare = Element(pk=3, kind="table", label="Table 4", caption="Table 4: Costs.", cells=[])
    assert Fact(1, "Table 2", "Ours", "BLEU", "31.5") in table_facts(table)
    # The claim names exactly the tables/charts it cites (the evidence rule: one, or two).
    for subset, cited in [
        ("direct", [table]),
        ("direct", [chart]),
        ("analytical", [table]),
        ("analytical", [chart]),
        ("parallel", [table, chart]),
        ("sequential", [chart, table]),
        ("parallel", [bare, chart]),
        ("sequential", [chart, bare]),
    ]:
        claim = write_claim(subset, cited, rng)
        assert 6 <= len(claim.split()) <= 120, claim
        for element in (table, chart, bare):
            assert (element.label in claim) == (element in cited), (subset, claim)
    # An analytical claim compares two rows (in one of a few wordings).
    for seed in range(8):
        analytical = write_claim("analytical", [table], random.Random(seed))
        assert any(w in analytical for w in ("higher", "ahead", "better")), analytical
        assert "Ours" in analytical and "Baseline" in analytical


def assert_the_evidence_rule_holds() -> None:
    """Every simulated claim cites exactly its subset's tables/charts, one of them sampled, as
    written and as final; an entailed claim names the tables/charts it cites."""
    from annotation.evidence import evidence_rule_problem, visual_ids

    claims = Claim.objects.current().select_related("pair__task", "review")
    kinds = dict(Element.objects.values_list("pk", "kind"))
    labels = dict(Element.objects.values_list("pk", "label"))
    checked = 0
    for claim in claims.prefetch_related("evidence", "review__final_evidence"):
        sampled = claim.pair.task.sampled_ids
        written = {e.pk for e in claim.evidence.all()}
        assert evidence_rule_problem(claim.pair.subset, written, kinds, sampled) == "", claim
        final = {e.pk for e in claim.review.final_evidence.all()}
        if final:
            assert evidence_rule_problem(claim.pair.subset, final, kinds, sampled) == "", claim
        if claim.label == "entailed":
            for pk in visual_ids(written, kinds):
                assert labels[pk] in claim.text, (claim.text, labels[pk])
        checked += 1
    assert checked


def test_an_archived_demo_is_not_simulated_into():
    """After archive_demo the synthetic experts take no work: simulating would be refused at
    every assignment, so the command refuses at once, adds nothing and says how to undo."""
    from tests.annotation.factories import make_expert
    from workspace.demo.archive import archive_demo

    user = make_expert("sim-cl-1")
    user.set_unusable_password()
    user.save()
    assert archive_demo(by=None).accounts == ["sim-cl-1"]
    with pytest.raises(CommandError, match=r"demo data is archived .*archive_demo --undo"):
        run("--papers", "2")
    assert not Paper.objects.exists()


@pytest.mark.usefixtures("demo_data")
class TestOnTheDemo:
    """Tests that read the demo world (built once for the class, rolled back after it)."""

    def test_the_workflow_is_real_and_a_second_run_adds_nothing(self, demo_data):
        out = demo_data
        assert "left waiting for curation" in out and "left waiting for claims" in out

        pairs = list(ClaimPair.objects.select_related("task").prefetch_related("claims"))
        assert pairs
        for pair in pairs:
            roles = dict(PairRole.objects.filter(pair=pair).values_list("role", "expert__username"))
            assert roles[Role.WRITER].startswith("sim-")  # people are never written for
            claims = {c.label: c for c in pair.claims.all()}
            assert set(claims) == {"entailed", "refuted"}
            assert claims["entailed"].text != claims["refuted"].text
            assert claims["refuted"].explanation
        # Every stage left its records through the services: items, history, reviews, validations.
        assert WorkItem.objects.filter(kind=WorkKind.WRITE, status=WorkStatus.DONE).count() == len(
            pairs
        )
        validated = Claim.objects.filter(validation__status=ValidationStatus.VALIDATED)
        assert validated.count() >= 2
        assert ClaimReview.objects.filter(state="adjudication").exists()  # the tail's disagreements
        for claim in validated.select_related("pair"):
            # The blindness rule: never the pair's writer, nor this claim's second annotator or
            # adjudicator (the other claim's second annotator may validate it).
            validator = claim.validation.validator.get_username()
            on_claim = set(
                PairRole.objects.filter(pair=claim.pair)
                .filter(Q(role=Role.WRITER) | Q(claim=claim))
                .exclude(role=Role.VALIDATOR)
                .values_list("expert__username", flat=True)
            )
            assert validator not in on_claim

        # The tail waits for people (alice, bob, carol), at every stage.
        curation = Assignment.objects.filter(
            paper__synthetic=True, role=Role.WRITER, status="assigned"
        ).select_related("expert")
        assert curation and all(a.expert.username in {"alice", "bob", "carol"} for a in curation)
        waiting_claims = CuratedContext.objects.filter(
            created_by__username__in=["alice", "bob", "carol"], paper__claim_tasks__isnull=True
        )
        assert waiting_claims.exists()
        # Synthetic experts retire when the run ends: people's new work never goes to them, and
        # what was left waits for people who can take it.
        assert sorted(u.username for u in eligible_experts("cs.CL")) == ["alice", "bob", "carol"]
        humans = get_user_model().objects.filter(username__in=["alice", "bob", "carol"])
        now = timezone.now()
        for kind in (WorkKind.BLIND, WorkKind.ADJUDICATE, WorkKind.VALIDATE):
            assert WorkItem.objects.filter(kind=kind, status=WorkStatus.OPEN).exists(), kind
            assert any(work.available_to(u, kind, now).exists() for u in humans), kind
        # A validator found a perturbation true: the pair waits for its writer's new perturbation.
        assert "left waiting for a new perturbation" in out
        back = list(WorkItem.objects.filter(kind=WorkKind.REPERTURB, status=WorkStatus.OPEN))
        assert back
        for item in back:
            assert item.assignee_id == item.pair.writer_id
            refuted = item.pair.claims.get(label="refuted", superseded_at__isnull=True)
            assert refuted.review.final_label == "entailed"
            assert refuted.validation.changes.filter(field="label").exists()

        assert_the_evidence_rule_holds()

        counts = (ClaimPair.objects.count(), WorkEvent.objects.count(), Paper.objects.count())
        again = run("--papers", "14", "--seed", "13")
        assert "Nothing to add" in again
        assert (
            ClaimPair.objects.count(),
            WorkEvent.objects.count(),
            Paper.objects.count(),
        ) == counts

    def test_a_release_manager_follows_the_readme_on_demo_data(self, tmp_path, demo_data):
        """make_split, export_release, check_release, then load valset.json as SciVer's code does."""
        stats = io.StringIO()
        call_command("dataset_stats", stdout=stats)
        assert "validated pool" in stats.getvalue()
        pairs = ClaimPair.objects.filter(claims__validation__status="validated").distinct().count()
        assert pairs >= 8
        with pytest.raises(CommandError, match="validated"):
            call_command(
                "make_split", "--validation", "1000", "--test", "2000", stdout=io.StringIO()
            )
        call_command(
            "make_split",
            "--validation",
            "4",
            "--test",
            "8",
            "--seed",
            "13",
            "--name",
            "v1",
            stdout=io.StringIO(),
        )
        out = tmp_path / "SciVer"
        call_command("export_release", "--split", "v1", "--out", str(out), stdout=io.StringIO())
        call_command("check_release", str(out), stdout=io.StringIO())  # raises on any problem
        val, test = load_sciver(tmp_path, "valset.json"), load_sciver(tmp_path, "testset.json")
        assert len(val) == 4 and len(test) == 8
        assert {r["paperid"] for r in val + test} <= set(
            Paper.objects.filter(synthetic=True).values_list("arxiv_id", flat=True)
        )
        assert {"claim", "label", "claim_type", "paper_path"} <= set(val[0])
