"""The release's README, its dataset card: licence, each paper's licence, how it was built,
its parts beside SciVer's, hidden test labels and how they are scored, statistics, which papers
are synthetic, how paperids are made. The writer puts the Hub's YAML front matter before it and
a section on loading the release after it (`validation.release.hub`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from papers.licences import allows_redistribution, licence_code, licence_name
from validation import stats
from validation.audit import audit, card_lines
from validation.models import SplitVersion
from validation.release.formats import HIDDEN_FIELDS, PAIRING_FIELDS, synthetic
from validation.release.hub import LICENCE_HEADING
from validation.release.records import ReleaseClaim, ReleasePaper
from validation.split.rules import PARTS, SCIVER_PAPERS, SCIVER_SIZES


def dataset_card(
    split: SplitVersion,
    parts: dict[str, list[ReleaseClaim]],
    papers: list[ReleasePaper],
    hide_test_labels: bool,
    *,
    files: Mapping[str, Mapping] | None = None,
    context_words: Mapping[int, int] | None = None,
) -> str:
    """The release's README: licence, each paper's licence, how it was built, statistics,
    which papers are synthetic demo data (warned about first), and how paperids are made.
    `files` (the paper files) and `context_words` (request_id → words a model is given) spare
    reading each record again when the caller has done so."""
    by_id = {p.paperid: p for p in papers}
    fake_papers = [p for p in papers if p.synthetic]
    fake_claims = {
        name: sum(synthetic(c, by_id[c.paperid]) for c in claims) for name, claims in parts.items()
    }
    total_claims = sum(len(claims) for claims in parts.values())
    lines = [f"# SciVer-style dataset, split {split.name}", ""]
    if fake_papers or any(fake_claims.values()):
        lines += [
            f"> **Warning: synthetic data.** {len(fake_papers)} of {len(papers)} papers and "
            f"{sum(fake_claims.values())} of {total_claims} claims are synthetic: copies of "
            "fixture papers with simulated annotations, made by SciVer Studio's "
            "`simulate_annotation` for demos and benchmarks. They are not real arXiv papers "
            "nor expert annotations; do not publish or evaluate on them. Our records mark them "
            "with `synthetic: true` (data/*.jsonl, data/*.csv).",
            "",
        ]
    lines += [
        "Expert-annotated multimodal scientific claim verification, built with SciVer Studio "
        "following the SciVer protocol (ACL 2025): papers from arXiv, curated contexts, claims "
        "written on three sampled tables/charts, blind second annotation, adjudication of "
        "disagreements, validation by a third expert, then a random split stratified by subset "
        "with both claims of a pair in the same split.",
        "",
        "## Licence",
        "",
        "The annotations are released under CC-BY-4.0. The papers' text and images keep their "
        "own licences, listed below.",
        "",
        f"Split seed {split.seed}; licence filter: {_licence_filter(split)}; "
        f"test labels {'hidden' if hide_test_labels else 'included'}.",
        "",
    ]
    lines += _parts_lines(split, parts)
    if hide_test_labels:
        lines += _hidden_lines()
    lines += [
        "## Synthetic content",
        "",
    ]
    if fake_papers or any(fake_claims.values()):
        lines.append(
            f"{len(fake_papers)} synthetic paper(s); synthetic claims: "
            + ", ".join(f"{name} {n} of {len(parts[name])}" for name, n in fake_claims.items())
            + "."
        )
    else:
        lines.append("None: every paper is a real arXiv paper, every claim an expert's.")
    versioned = [p for p in papers if p.arxiv_id and p.paperid != p.arxiv_id]
    lines += [
        "",
        "## Paper ids",
        "",
        "`paperid` is the arXiv id without version, as in SciVer's release. Where this release "
        "holds two or more versions of one arXiv id, each of those papers keeps its version "
        "(`<id>v<version>`), so that no two papers share a paper file or an image name; our "
        "records give `arxiv_id` and `arxiv_version` for every claim.",
        "",
    ]
    if versioned:
        lines += [
            "Versioned here: " + ", ".join(f"`{p.paperid}`" for p in versioned) + ".",
            "",
        ]
    used = sorted(
        {
            n
            for claims in parts.values()
            for c in claims
            for n in c.guideline_versions.values()
            if n is not None
        }
    )
    lines += [
        "## Guidelines",
        "",
        "Each claim's record in data/*.jsonl gives `guideline_versions`: the version of the "
        "annotation guidelines each stage (writing, second annotation, adjudication, "
        "validation) was done under. Versions used: "
        + (", ".join(str(n) for n in used) if used else "none recorded")
        + ".",
        "",
    ]
    lines += [
        "## Statistics",
        "",
        stats.MODEL_WORDS_NOTE[:1].upper() + stats.MODEL_WORDS_NOTE[1:] + ".",
        "",
    ]
    curated = {p.paperid: sum(stats.words(s.text) for s in p.sections) for p in papers}
    for name, claims in parts.items():
        table = stats.release_table(
            claims, by_id, files=files, context_words=context_words, curated_words=curated
        )
        lines.append(f"### {name} ({len(claims)} claims)")
        lines.append("")
        lines.append("| figure | value |")
        lines.append("|---|---:|")
        for key, value in table.items():
            lines.append(f"| {key} | {value} |")
        lines.append("")
    lines += _artifact_lines(parts)
    lines += _licence_lines(split, papers)
    lines.append("")
    return "\n".join(lines)


def _artifact_lines(parts: Mapping[str, list[ReleaseClaim]]) -> list[str]:
    """The "Annotation artifacts" section: the claim-only baseline (trained on validation,
    scored on test), its top cue words and the negation/antonym-only pairs (`validation.audit`)."""
    records = [
        {
            "id": c.request_id,
            "claim": c.origin_statement if c.label else c.perturbed_statement,
            "label": c.label,
            "claim_type": c.claim_type,
            "subfield": c.subfield,
            "origin_statement": c.origin_statement,
            "perturbed_statement": c.perturbed_statement,
            "part": name,
            "pair": c.pair_id,
        }
        for name, claims in parts.items()
        for c in claims
    ]
    return card_lines(audit(records))


def _parts_lines(split: SplitVersion, parts: Mapping[str, list[ReleaseClaim]]) -> list[str]:
    """Claims and papers per part, beside SciVer's; whether the parts share papers, and why."""
    sciver = dict(zip(PARTS, zip(SCIVER_SIZES, SCIVER_PAPERS, strict=True), strict=True))
    papers = {name: {c.paperid for c in claims} for name, claims in parts.items()}
    lines = [
        "## Parts",
        "",
        "| part | claims | papers | SciVer's release |",
        "|---|---:|---:|---|",
    ]
    for name, claims in parts.items():
        claims_there, papers_there = sciver.get(name, (0, 0))
        lines.append(
            f"| {name} | {len(claims):,} | {len(papers[name]):,} | "
            f"{claims_there:,} claims, {papers_there:,} papers |"
        )
    shared = set.intersection(*papers.values()) if len(papers) > 1 else set()
    lines.append("")
    if not shared:
        return lines + ["The parts share no paper, as in SciVer's release.", ""]
    why = (
        f"split {split.name} was made with `--allow-shared-papers` because the pool held no "
        "paper-disjoint draw of these sizes with this seed"
        if split.shared_papers_allowed
        else f"split {split.name} was made before splits kept the parts paper-disjoint"
    )
    lines += [
        f"**The parts share {len(shared)} paper(s)** (each part holds claims written on them): "
        f"{why}. SciVer's parts share no paper (327 + 786 = 1,113); a model tuned on the "
        "validation part has seen these papers' contexts.",
        "",
    ]
    return lines


def _hidden_lines() -> list[str]:
    """What a release with hidden test labels leaves out, what it cannot hide, and how a
    submission is scored."""
    hidden = ", ".join(f"`{name}`" for name in HIDDEN_FIELDS)
    pairing = ", ".join(f"`{name}`" for name in PAIRING_FIELDS)
    return [
        "## Hidden test labels",
        "",
        f"The test records carry no answer: testset.json leaves out {hidden}; data/test.jsonl "
        "and data/test.csv also leave out the evidence, the provenance, who annotated, and "
        f"what ties a claim to the other claim of its pair ({pairing}; a claim's subfield "
        "where its paper's pairs were written in different subfields). The records are "
        "shuffled so that no two claims of a pair are neighbours, and `request_id`s do not "
        "reveal pairs.",
        "",
        "As in SciVer's format, **both claims of every test pair are present**: the entailed "
        "claim and its refuted rewrite, which differ in a few words, so the pairs can be "
        "recovered from the claims' text, and one claim of each pair is entailed. Verify each "
        "claim on its own, as the benchmark intends.",
        "",
        "**Scoring a submission.** The organisers keep the answers in `SciVer.labels.json`, "
        "outside this folder. A submission is a file of responses: SciVer's `main.py` output "
        '(the records, each with a `response`) or JSON Lines of `{"request_id", "response"}`. '
        "With SciVer Studio: `python manage.py evaluate_release DIR/SciVer --part test "
        "--responses RESPONSES --labels DIR/SciVer.labels.json --out scores.jsonl` "
        "(`--labels` defaults to the labels file beside the folder), which scores as SciVer's "
        "`acc_evaluation.py` does: a response is correct when the claim is entailed and its "
        'lower-cased text contains "yes", or the claim is refuted and it does not; an empty '
        "response is wrong either way. It reports accuracy overall and per claim type.",
        "",
        "**What needs the labels.** SciVer's `acc_evaluation.py` reads each record's `label`, "
        "so it cannot score testset.json; strict loaders of the format refuse a record without "
        "`label` and the statements; `datasets.load_dataset` gives them as `None`. Develop on "
        "the validation part, which keeps its labels.",
        "",
    ]


def _licence_filter(split: SplitVersion) -> str:
    if not split.licences:
        return "none (any licence; this split was made before the default filter)"
    codes = ", ".join(split.licences)
    if split.licences_by_default:
        return f"{codes} (the default: licences that allow redistribution with adaptations)"
    return f"{codes} (named by whoever made the split)"


def _licence_lines(split: SplitVersion, papers: list[ReleasePaper]) -> list[str]:
    """The card's papers, listed under their licences; a paper whose licence does not allow
    redistribution with adaptations says why it is here anyway."""
    by_code: dict[str, list[ReleasePaper]] = defaultdict(list)
    for paper in papers:
        by_code[licence_code(paper.licence)].append(paper)
    lines = [f"## {LICENCE_HEADING}", ""]
    if split.left_out:
        lines += [
            "Left out by the licence filter (complete pairs): "
            + ", ".join(f"{licence_name(code)} {n}" for code, n in split.left_out.items())
            + ".",
            "",
        ]
    for code in sorted(by_code, key=lambda c: (not allows_redistribution(c), c)):
        group = by_code[code]
        lines += [f"### {licence_name(code)} (`{code}`): {len(group)} paper(s)", ""]
        if not allows_redistribution(code):
            lines += [
                f"> **{licence_name(code)} does not allow redistribution with adaptations.** "
                f"These papers are here because split {split.name}'s licence filter names "
                f"`{code}`"
                + (" (made before the default filter)" if not split.licences else "")
                + ": make sure you may publish them before you do.",
                "",
            ]
        lines += ["| paper | arXiv | licence | synthetic |", "|---|---|---|---|"]
        mark = "" if allows_redistribution(code) else " ⚠ not redistributable with adaptations"
        lines += [
            f"| {p.paperid} | {p.arxiv_id or p.paperid}"
            f"{f'v{p.version}' if p.version is not None else ''} | {p.licence}{mark} | "
            f"{'yes' if p.synthetic else 'no'} |"
            for p in group
        ]
        lines.append("")
    return lines
