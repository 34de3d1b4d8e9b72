"""check_release reads more, without a database: the context SciVer's loop builds, character for
character; papers in both parts; claims repeated across parts (the near-duplicate finder of
`validation.release.duplicates`, on realistic claims and at SciVer's size); raw HTML in any text
of a release; LaTeX counted in what a model reads."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.duplicates import claims_for, planted, realistic_claims
from tests.validation.releases import _element, _pair, _release, _rewrite
from validation.release import PaperSection, write_release
from validation.release.duplicates import (
    THRESHOLD,
    Match,
    near_duplicates,
    normalise,
    similarity,
    tokens,
)
from validation.release.reading import model_input
from validation.release_check import check_release, html_in, inspect_release
from validation.stats import words

A, B = "2409.00001", "2410.00002"

# --- The context, as SciVer's own loop builds it ------------------------------------------------


def sciver_context(record: dict, paper: dict) -> str:
    """SciVer's context builder, transcribed literally (SCIVER.md, "How SciVer's own code reads
    a release", with the newline its loop appends after each section)."""
    wanted = [s.split(".")[0] for s in record["section"]]
    context = ""
    for sec in paper["sections"]:
        if sec["section_id"].split(".")[0] in wanted:
            context += sec["section_name"] + ":\n" + sec["text"] + "\n"
    return context


PAPERS = [
    {
        "sections": [
            {"section_id": "abstract", "section_name": "Abstract", "text": "We study tables."},
            {"section_id": "3", "section_name": "Method", "text": "We train a model."},
            # a text that already ends with a newline, and one of several paragraphs
            {"section_id": "3.1", "section_name": "Data", "text": "From arXiv.\n"},
            {"section_id": "3.2", "section_name": "Training", "text": "Three epochs.\nAdam."},
            {"section_id": "3.2.p1", "section_name": "Schedule.", "text": ""},  # empty text
            {"section_id": "4", "section_name": "Results", "text": "Table 2 shows accuracy"},
            {"section_id": "4.3.p2", "section_name": "Ablation.", "text": "Without it, 61."},
            {"section_id": "limitations", "section_name": "Limitations", "text": "English"},
        ],
        "image_paths": {},
        "tables": {},
    },
    {
        "sections": [
            {"section_id": "1", "section_name": "Introduction", "text": "Claims need proof"},
            {"section_id": "2", "section_name": "", "text": "An untitled section."},
            {"section_id": "10", "section_name": "Ten", "text": "Not section 1."},
        ],
        "image_paths": {},
        "tables": {},
    },
]
SECTION_LISTS = [["3.2"], ["3", "4"], ["4.3.p2", "limitations"], ["abstract"], ["1"], ["1", "2"]]


@pytest.mark.parametrize(
    ("paper", "section"),
    [(p, s) for p in PAPERS for s in SECTION_LISTS],
)
def test_the_context_is_sciver_loops_character_for_character(paper, section):
    record = {"claim_type": "direct", "section": section}
    assert model_input(record, paper).context == sciver_context(record, paper)


def test_the_written_releases_paper_files_give_sciver_loops_context(tmp_path):
    out = tmp_path / "SciVer"
    write_release(_release(), out)
    for name in ("valset.json", "testset.json"):
        for record in json.loads((out / name).read_text()):
            paper = json.loads((out / "papers" / f"{record['paperid']}.json").read_text())
            assert model_input(record, paper).context == sciver_context(record, paper)


def test_no_word_of_a_section_runs_into_the_next_sections_name():
    record = {"claim_type": "direct", "section": ["3"]}
    context = model_input(record, PAPERS[0]).context
    assert context == (
        "Method:\nWe train a model.\nData:\nFrom arXiv.\n\nTraining:\nThree epochs.\nAdam.\n"
        "Schedule.:\n\n"
    )
    assert words(context) == 13  # every heading and every word of every text
    # Without the newline after each section, "model.Data:" and "Adam.Schedule.:" were glued.
    glued = "".join(f"{s['section_name']}:\n{s['text']}" for s in PAPERS[0]["sections"][1:5])
    assert words(glued) == 11


# --- Papers in both parts --------------------------------------------------------------------


def shared_release(**overrides):
    """The test part holds a pair on paper A, whose other pairs are in validation."""
    release = _release(**overrides)
    table_a = _element(A, "table", "2")
    test = [*release.splits["test"], *_pair(11, "p6", A, "direct", (table_a,))]
    return dataclasses.replace(release, splits={**release.splits, "test": test})


def test_a_paper_with_records_in_both_parts_is_refused(tmp_path):
    out = tmp_path / "SciVer"
    write_release(shared_release(), out)
    assert check_release(out) == [
        "papers in both parts: 1 paper(s) have records in both valset.json and testset.json "
        "(2409.00001): a model tested on them has read their context and claims in validation, "
        "and SciVer's two parts share no paper; make a new split whose parts share no paper and "
        "export it (where no paper-disjoint draw exists, a split made with --allow-shared-papers "
        "makes this a warning)"
    ]


def test_shared_papers_the_split_allowed_are_a_warning(tmp_path):
    out = tmp_path / "SciVer"
    facts = {
        "seed": 13,
        "papers": {"test": 2, "validation": 1},
        "paper_disjoint": False,
        "shared_papers": 1,
        "shared_papers_allowed": True,
    }
    write_release(shared_release(split=facts), out)
    report = inspect_release(out)
    assert report.problems == []
    assert [w for w in report.warnings if w.startswith("papers in both parts")] == [
        "papers in both parts: 1 paper(s) have records in both valset.json and testset.json "
        "(2409.00001); the split allowed shared papers (manifest.json "
        "split.shared_papers_allowed), whereas SciVer's parts share none"
    ]


def test_split_facts_that_disagree_with_the_records_are_refused(tmp_path):
    out = tmp_path / "SciVer"
    facts = {
        "seed": 13,
        "papers": {"test": 1, "validation": 1},
        "paper_disjoint": True,
        "shared_papers": 0,
        "shared_papers_allowed": True,
    }
    write_release(shared_release(split=facts), out)
    assert check_release(out) == [
        "manifest.json: split.shared_papers is 0, the records share 1 paper(s) between the parts",
        "manifest.json: split.paper_disjoint is true, but the records share paper(s) between "
        "the parts",
        "manifest.json: split.papers says test 1, the records 2",
    ]


def test_a_disjoint_release_with_its_split_facts_passes(tmp_path):
    out = tmp_path / "SciVer"
    facts = {
        "seed": 13,
        "papers": {"test": 1, "validation": 1},
        "paper_disjoint": True,
        "shared_papers": 0,
        "shared_papers_allowed": False,
    }
    write_release(_release(split=facts), out)
    assert json.loads((out / "manifest.json").read_text())["split"] == facts
    assert inspect_release(out).problems == []


# --- Claims repeated across parts ----------------------------------------------------------

# Hand-written claims over one table of a corpus paper (tests/annotation/perturbation_set):
# different claims about the same table.
COVID = "On TREC-COVID, ListKD reaches 66.0 nDCG@10, higher than the 65.6 of BM25."
COVID_REFUTED = "On TREC-COVID, ListKD reaches 62.1 nDCG@10, higher than the 65.6 of BM25."
FIQA = "On FiQA, ListKD reaches 29.8 nDCG@10, ahead of both Margin-MSE (27.5) and BM25 (23.6)."
FIQA_REFUTED = (
    "On FiQA, ListKD reaches 21.4 nDCG@10, ahead of both Margin-MSE (27.5) and BM25 (23.6)."
)
TOUCHE = "On Touché-2020, BM25 reaches 36.7 nDCG@10, well above the 24.9 of ListKD."
TOUCHE_REFUTED = "On Touché-2020, BM25 reaches 20.3 nDCG@10, well above the 24.9 of ListKD."
SAME_TABLE = [
    (
        "In the North (residential) region, CacheCast raises the hit ratio to 54.0%, against "
        "46.6% for LRB.",
        "The gain of CacheCast over LRB is largest in the residential regions: 7.4 points in the "
        "North, against 3.9 in the Centre.",
    ),
    (
        "On low-friction objects, SlipReG succeeds 87.0% of the time, against 58.0% for vision "
        "only.",
        "On deformable objects, SlipReG succeeds 85.0% of the time, against 72.5% with the slip "
        "stop.",
    ),
    (
        "On KITTI, GateDepth lowers AbsRel from 0.106 for the baseline to 0.098.",
        "On Cityscapes, GateDepth lowers RMSE to 6.204, against 6.612 for the baseline.",
    ),
    (COVID, FIQA),
    (COVID, TOUCHE),
    (
        "The 350M model reaches an F1 of 0.89 on Java at 40 ms per failure.",
        "The rerun-history triager reaches an F1 of 0.76 on Java in 1 ms per failure.",
    ),
]


def with_statements(claims, origin: str, perturbed: str):
    return [
        dataclasses.replace(c, origin_statement=origin, perturbed_statement=perturbed)
        for c in claims
    ]


def repeated_release(test_origin: str, test_perturbed: str, *, synthetic=(False, False)):
    """Validation pair p1 (requests 1, 2, paper A) states COVID; test pair p3 (requests 5, 6,
    paper B) states `test_origin`."""
    release = _release()
    validation = release.splits["validation"]
    test = release.splits["test"]
    validation = with_statements(validation[:2], COVID, COVID_REFUTED) + list(validation[2:])
    test = with_statements(test[:2], test_origin, test_perturbed) + list(test[2:])
    papers = [
        dataclasses.replace(p, synthetic=s) for p, s in zip(release.papers, synthetic, strict=True)
    ]
    return dataclasses.replace(
        release, splits={"validation": validation, "test": test}, papers=papers
    )


def written(tmp_path, release):
    out = tmp_path / "SciVer"
    write_release(release, out)
    return out


def test_an_exact_duplicate_across_parts_is_refused_naming_both_records(tmp_path):
    # The same claim but for case, spacing and punctuation.
    copy = "on trec-covid ListKD reaches 66.0   nDCG@10 - higher than the 65.6 of BM25!"
    out = written(tmp_path, repeated_release(copy, TOUCHE_REFUTED))
    problems = check_release(out)
    assert problems[0] == (
        "claims repeated across parts: valset.json[0] (request 1, paper 2409.00001, "
        "claim/origin_statement “On TREC-COVID, ListKD reaches 66.0 nDCG@10, higher than "
        "the…”) and testset.json[0] (request 5, paper 2410.00002, claim/origin_statement “on "
        "trec-covid ListKD reaches 66.0 nDCG@10 - higher than the…”) are the same text but "
        "for case, spacing and punctuation: a model tested on the one has seen the other in "
        "validation; re-open one claim's validation (Validation, /manage/validation/) so that "
        "the validator rewrites it, or make a new split that puts both in one part, then "
        "export again"
    )
    # Both claims of each pair carry both statements: the four record pairs are named.
    named = {(p.split("(request ")[1][:1], p.split("(request ")[2][:1]) for p in problems}
    assert named == {("1", "5"), ("1", "6"), ("2", "5"), ("2", "6")}
    assert all(p.startswith("claims repeated across parts") for p in problems)


def test_a_near_duplicate_with_one_word_changed_is_refused(tmp_path):
    near = COVID.replace("higher", "better")
    assert THRESHOLD <= similarity(COVID, near) < 1
    out = written(tmp_path, repeated_release(near, TOUCHE_REFUTED))
    problems = check_release(out)
    assert len(problems) == 4
    assert "request 1, paper 2409.00001" in problems[0]
    assert "request 5, paper 2410.00002" in problems[0]
    assert "are near duplicates (similarity 0.87 ≥ 0.75)" in problems[0]


def test_different_claims_about_the_same_table_pass(tmp_path):
    out = written(tmp_path, repeated_release(FIQA, FIQA_REFUTED))
    assert check_release(out) == []
    for first, second in SAME_TABLE:
        assert similarity(first, second) < THRESHOLD - 0.2, (first, second)


def test_repeated_claims_between_synthetic_demo_papers_are_a_warning(tmp_path):
    out = written(tmp_path, repeated_release(COVID, COVID_REFUTED, synthetic=(True, True)))
    report = inspect_release(out)
    assert report.problems == []
    assert (
        "claims repeated across parts: 4 validation/test record pair(s) share a claim text "
        "exactly or nearly (similarity ≥ 0.75), all of them synthetic demo data: the demo's "
        "copied fixtures repeat texts; a release of real claims has none"
    ) in report.warnings


def test_a_real_claim_repeating_a_synthetic_one_is_still_refused(tmp_path):
    out = written(tmp_path, repeated_release(COVID, COVID_REFUTED, synthetic=(True, False)))
    problems = check_release(out)
    assert len(problems) == 4 and all("claims repeated across parts" in p for p in problems)


def test_a_hidden_test_claim_is_compared_by_its_claim(tmp_path):
    release = dataclasses.replace(
        repeated_release(COVID.upper(), TOUCHE_REFUTED), hide_test_labels=True
    )
    out = written(tmp_path, release)
    problems = check_release(out)
    # Test record 5 states the copy (entailed), record 6 another claim; no statements to compare.
    assert len(problems) == 2
    assert all("(request 5, paper 2410.00002, claim “ON TREC-COVID" in p for p in problems)
    assert {p.split("(request ")[1][:1] for p in problems} == {"1", "2"}


# --- The near-duplicate finder -----------------------------------------------------------------


def test_normalising_keeps_what_numbers_and_comparisons_say():
    assert normalise("Ours reaches 73.2 BLEU.") == normalise("  ours REACHES 73.2 bleu ")
    assert normalise("ＧＰＴ－４ reaches 45.2%, 1,000 steps; −3.2 (x < 5)") == (
        "gpt 4 reaches 45.2 % 1,000 steps -3.2 x < 5"
    )
    assert normalise("45.2") != normalise("452") and normalise("x < 5") != normalise("x > 5")
    assert normalise("It rose by -3 points") != normalise("It rose by 3 points")
    assert normalise("GPT-4") == "gpt 4"  # a hyphen between a word and a number joins, no sign
    assert tokens("the the the") == {"the"}
    assert normalise("!!! ...") == ""


def test_a_changed_word_or_number_is_near_a_different_claim_is_not():
    assert similarity(COVID, COVID_REFUTED) >= THRESHOLD  # one number changed
    assert similarity(COVID, COVID.replace("ListKD", "ListNet")) >= THRESHOLD
    assert similarity("A beats B.", "B beats A!") == 1.0  # order ignored: the same fact
    assert similarity("", "") == 0.0


def test_matches_within_one_list_and_across_two():
    texts = [COVID, FIQA, COVID.lower(), COVID_REFUTED, "", "!!!", TOUCHE]
    within = near_duplicates(texts)
    assert [(m.i, m.j, m.exact) for m in within] == [
        (0, 2, True),
        (0, 3, False),
        (2, 3, False),
    ]
    assert all(m.i < m.j for m in within)
    across = near_duplicates([FIQA, COVID], [TOUCHE, COVID.upper(), COVID_REFUTED, COVID])
    assert across == [
        Match(1, 1, 1.0, True),
        Match(1, 2, pytest.approx(similarity(COVID, COVID_REFUTED)), False),
        Match(1, 3, 1.0, True),
    ]
    assert near_duplicates([], [COVID]) == [] and near_duplicates([COVID]) == []
    with pytest.raises(ValueError, match="threshold"):
        near_duplicates([COVID], threshold=0)


@pytest.mark.parametrize("threshold", [0.5, 0.75, 0.8, 0.9, 1.0])
def test_the_index_finds_exactly_what_comparing_all_pairs_finds(threshold):
    left, right, _ = claims_for(150, 300, seed=int(threshold * 100))
    # More near pairs than chance gives: shortened copies, reordered words, one changed word.
    for k in range(0, 150, 5):
        words_ = left[k].split()
        right[k] = " ".join(words_[: max(3, len(words_) - k % 4)])
        right[k + 1] = " ".join(reversed(words_))
        right[k + 2] = left[k].replace(words_[k % len(words_)], "lately", 1)
    found = {(m.i, m.j): m.similarity for m in near_duplicates(left, right, threshold=threshold)}
    jaccard = {}
    sets_l, sets_r = [tokens(t) for t in left], [tokens(t) for t in right]
    for (i, a), (j, b) in itertools.product(enumerate(sets_l), enumerate(sets_r)):
        jaccard[(i, j)] = len(a & b) / len(a | b)
    brute = {k: v for k, v in jaccard.items() if v >= threshold - 1e-9}
    assert found.keys() == brute.keys() and len(brute) > 30
    assert all(found[k] == pytest.approx(v) for k, v in brute.items())
    everything = left + right
    found_within = {(m.i, m.j) for m in near_duplicates(everything, threshold=threshold)}
    sets = [tokens(t) for t in everything]
    brute_within = {
        (i, j)
        for i, j in itertools.combinations(range(len(everything)), 2)
        if len(sets[i] & sets[j]) / len(sets[i] | sets[j]) >= threshold - 1e-9
    }
    assert found_within == brute_within


def test_sciver_sized_parts_of_realistic_claims_find_every_planted_copy():
    # 1,000 validation and 2,000 test claims, as SciVer's; timed in bench/duplicates.py only.
    left, right, where = claims_for(1000, 2000)
    assert len(set(left + right)) > 2900 and 15 < sum(map(len, map(str.split, left))) / 1000
    found = {(m.i, m.j): m for m in near_duplicates(left, right)}
    for i, j, kind in where:
        assert (i, j) in found, (kind, left[i], right[j])
        assert found[(i, j)].exact == (kind != "word")
    # Chance matches of the varied claims are few: templates filled with different facts differ.
    assert len(found) < 3 * len(where)
    assert len(planted(realistic_claims(50), count=5)) == 5


# --- Raw HTML ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "x < 5 and y > 3",
        "a<b",
        "a<b and c>d",
        "p<0.05 on <0.5% of cases",
        "f: A -> B, x <= y, y >= z, a <-> b, x << y",
        "the <s> and </s> tokens, <unk> and <mask>",
        "AT&T; R&D; Q&A",
        "<tables are not tags>",
    ],
)
def test_comparisons_and_arrows_are_not_html(text):
    assert html_in(text) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('see <span class="ltx_text">this</span>', ['<span class="ltx_text">', "</span>"]),
        ("one</div>", ["</div>"]),
        ("a<br/>b<br>", ["<br/>", "<br>"]),
        ('<img src="x.png" alt=y>', ['<img src="x.png" alt=y>']),
        ("cut short: <img", ["<img"]),
        ("<table", ["<table"]),
        ("<math display", ["<math"]),
        ('<a href="https://arxiv.org">', ['<a href="https://arxiv.org">']),
        ("<a href", ["<a href"]),
        ("R&amp;D&nbsp;team &#123; &#x1F;", ["&amp;", "&nbsp;", "&#123;", "&#x1F;"]),
        ("<script>alert(1)</script>", ["<script>", "</script>"]),
    ],
)
def test_html_tags_and_entities_are_found(text, found):
    assert html_in(text) == found


def html_release():
    release = _release()
    paper = release.papers[0]
    sections = (
        PaperSection("3", "Method", 'We train on <span class="ltx_text">café</span> data.'),
        PaperSection("4.1", "Results", "Table 2 shows accuracy.\nHere x < 5 and y > 3, p<0.05."),
    )
    paper = dataclasses.replace(
        paper,
        sections=sections,
        table_captions={"2": "Table 2: accuracy&nbsp;per model."},
    )
    validation = release.splits["validation"]
    claimed = "Model A beats B<br/>on p1."
    validation = with_statements(validation[:2], claimed, "Model B beats A on p1.") + list(
        validation[2:]
    )
    return dataclasses.replace(
        release,
        papers=[paper, release.papers[1]],
        splits={**release.splits, "validation": validation},
    )


def test_raw_html_in_a_section_a_caption_and_a_claim_is_refused(tmp_path):
    out = written(tmp_path, html_release())
    problems = check_release(out)
    claim_fix = (
        "it is released as typed and never rendered, so a reader and a model see the markup; "
        "re-open the claim's validation (Validation, /manage/validation/) so that the validator "
        "writes it as plain text, then export again"
    )
    paper_fix = (
        "it is released as typed and never rendered, so a reader and a model see the markup; "
        "the paper's stored text kept markup of its arXiv HTML: correct the text (or the "
        "parser, papers/parsing) and export again"
    )
    assert (
        "valset.json[0] (request 1, paper 2409.00001): raw HTML in claim ('<br/>'): “Model A "
        f"beats B<br/>on p1.”; {claim_fix}"
    ) in problems
    assert (
        "data/validation.jsonl:1 (request 1, paper 2409.00001): raw HTML in origin_statement "
        f"('<br/>'): “Model A beats B<br/>on p1.”; {claim_fix}"
    ) in problems
    assert (
        "papers/2409.00001.json (paper 2409.00001): raw HTML in sections[0].text (section '3') "
        '(\'<span class="ltx_text">\' and 1 more): “We train on <span class="ltx_text">café'
        f"</span> data.”; {paper_fix}"
    ) in problems
    assert (
        "papers/2409.00001.json (paper 2409.00001): raw HTML in tables.2.capture ('&nbsp;'): "
        f"“Table 2: accuracy&nbsp;per model.”; {paper_fix}"
    ) in problems
    # The comparisons of section 4.1 are no HTML; nothing else is said.
    assert not any("sections[1]" in p for p in problems)
    assert all("raw HTML" in p for p in problems)


# --- LaTeX -------------------------------------------------------------------------------------


def test_latex_in_contexts_and_captions_is_counted_in_a_warning(tmp_path):
    release = _release()
    paper = dataclasses.replace(
        release.papers[1],
        sections=(
            PaperSection("3", "Method", r"We set $\alpha = 0.5$ and \textbf{freeze} the encoder."),
            PaperSection("4.1", "Results", "Table 2 shows accuracy."),
        ),
        chart_captions={"3": r"Figure 3: loss for $\lambda \in \{0, 1\}$."},
    )
    out = written(tmp_path, dataclasses.replace(release, papers=[release.papers[0], paper]))
    report = inspect_release(out)
    assert report.problems == []
    # Test records name section 4.1: SciVer's reading gives them all of 4, not 3's LaTeX.
    assert [w for w in report.warnings if w.startswith("LaTeX")] == [
        "LaTeX in 0 of 10 records' contexts (the sections SciVer's reading gives a model) and 1 "
        "of 4 captions (tables' capture, charts' caption): released as typed, as SciVer's own "
        "data keeps LaTeX too; a model reads `$\\alpha$` rather than α"
    ]
    test = json.loads((out / "testset.json").read_text())
    for record in test:
        record["section"] = ["3"]
    _rewrite(out, "testset.json", json.dumps(test).encode())
    warnings = inspect_release(out).warnings
    assert any(w.startswith("LaTeX in 6 of 10 records' contexts") for w in warnings)


def test_a_release_without_latex_says_nothing_of_it(tmp_path):
    out = written(tmp_path, _release())
    assert not any("LaTeX" in w for w in inspect_release(out).warnings)


# --- The command -------------------------------------------------------------------------------


def test_the_command_refuses_planted_problems_and_passes_latex_with_a_warning(tmp_path):
    out = written(tmp_path, html_release())
    with pytest.raises(CommandError, match="problem"):
        call_command("check_release", str(out), stdout=io.StringIO(), stderr=io.StringIO())
    release = _release()
    paper = dataclasses.replace(
        release.papers[0], table_captions={"2": r"Table 2: $F_1$ per model."}
    )
    clean = tmp_path / "clean" / "SciVer"
    write_release(dataclasses.replace(release, papers=[paper, release.papers[1]]), clean)
    printed = io.StringIO()
    call_command("check_release", str(clean), stdout=printed)
    assert "warning: LaTeX in 0 of 10 records' contexts" in printed.getvalue()
    assert "release OK (with warnings)" in printed.getvalue()
