"""The annotation-artifact audit (pure: records in, figures out; no Django).

Datasets made by perturbing true claims carry artifacts: a model can tell entailed from refuted
from the claim alone ("hypothesis-only" baselines), e.g. "refuted whenever it says not". The
audit measures them on records given as dicts with `claim`, `label` (bool; None or absent when
hidden), `claim_type`, and optionally `subfield`, `origin_statement`, `perturbed_statement`,
`part` ("validation", "test", "pool"…), `pair` (any key shared by a pair's two claims),
`writer` (who wrote the pair) and `id` (what names the claim to a reader):

- **claim-only baseline**: logistic regression on the claim's text alone (TF-IDF of word 1–2-grams
  and character 3–5-grams), trained on the validation part and scored on the test part when both
  are labelled, else scored by stratified 5-fold cross-validation (seeded) over the labelled
  claims; accuracy with its 95 % Wilson interval, per subset and per subfield, beside chance (the
  majority label's share) and the human baseline when given. Too few claims (fewer than
  `MIN_CLAIMS`, or fewer than `MIN_PER_LABEL` of a label) give the size needed, not a number;
- **cue words**: the words that best predict a label, by PMI(word, label) over the claims holding
  the word (in at least `min_count` claims), with their counts;
- **rule baselines**: "refuted if the claim holds a negation" (`annotation.writing.negation`) and
  "refuted if it holds a downward comparative" (lower, worse, fewer…);
- **pair artifacts**: per subset, the share of pairs whose refuted claim differs from the entailed
  one only by negation or by an antonym (`pair_artifact`), where both statements are known, and
  per writer when known;
- **near duplicates** inside each part (`validation.release.duplicates`), a pair's own two claims
  aside (they are near duplicates by construction).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.writing.negation import has_negation, pair_artifact
from validation.release.duplicates import THRESHOLD, near_duplicates

__all__ = [
    "ARTIFACT_MARGIN",
    "ArtifactAudit",
    "Baseline",
    "Cue",
    "PairShare",
    "Score",
    "audit",
    "wilson",
]

ARTIFACT_MARGIN = 10.0  # points by which the baseline's lower bound may beat chance (settings)
FOLDS = 5
SEED = 13
MIN_CLAIMS = 40
MIN_PER_LABEL = 10
CUE_MIN_COUNT = 5
TOP = 10
EXAMPLES = 3
Z95 = 1.959964
# "Refuted if the claim holds one of these": the downward side of the comparatives a perturbation
# flips ("higher" → "lower").
DOWNWARD = frozenset(
    {
        "lower",
        "lowest",
        "less",
        "least",
        "fewer",
        "fewest",
        "smaller",
        "smallest",
        "worse",
        "worst",
        "slower",
        "slowest",
        "shorter",
        "weaker",
        "below",
        "decrease",
        "decreases",
        "decreased",
        "degrades",
        "degraded",
        "underperforms",
        "underperform",
        "underperformed",
        "trails",
    }
)
_WORD = re.compile(r"[a-z][a-z']*|\d+(?:[.,]\d+)*%?")


def wilson(correct: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default)."""
    if total <= 0:
        return 0.0, 0.0
    p = correct / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Score:
    """`correct` of `total`, with the accuracy's 95 % Wilson interval and the chance level of the
    same claims (the majority label's share)."""

    correct: int
    total: int
    chance: float = 0.5

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def low(self) -> float:
        return wilson(self.correct, self.total)[0]

    @property
    def high(self) -> float:
        return wilson(self.correct, self.total)[1]

    def text(self) -> str:
        return (
            f"{100 * self.accuracy:.1f} % [{100 * self.low:.1f}, {100 * self.high:.1f}] "
            f"on {self.total} (chance {100 * self.chance:.1f} %)"
        )


def _score(pairs: Sequence[tuple[bool, bool]]) -> Score:
    """Score of (gold, predicted) pairs."""
    gold = Counter(g for g, _ in pairs)
    chance = max(gold.values()) / len(pairs) if pairs else 0.5
    return Score(sum(g == p for g, p in pairs), len(pairs), chance)


@dataclass
class Baseline:
    """The claim-only baseline: `method` says how it was scored; `needed` (instead of a score)
    says what size a pool too small needs."""

    method: str
    overall: Score | None = None
    needed: str | None = None
    by_subset: dict[str, Score] = field(default_factory=dict)
    by_subfield: dict[str, Score] = field(default_factory=dict)
    # Claims it gets right most confidently, per subset: (id, claim, label).
    examples: dict[str, list[tuple[str, str, bool]]] = field(default_factory=dict)

    @property
    def margin(self) -> float | None:
        """Points by which the interval's lower bound beats chance (None without a score)."""
        if self.overall is None:
            return None
        return 100 * (self.overall.low - self.overall.chance)


@dataclass(frozen=True)
class Cue:
    word: str
    label: bool  # the label it predicts
    pmi: float
    claims: int  # claims holding it
    with_label: int  # of which with `label`
    examples: tuple[str, ...] = ()


@dataclass
class PairShare:
    """Pairs of one group (a subset, a writer) and those whose refuted claim is only a negation
    or an antonym of the entailed one."""

    pairs: int = 0
    negation: int = 0
    antonym: int = 0
    examples: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, entailed, refuted)

    @property
    def negation_share(self) -> float:
        return self.negation / self.pairs if self.pairs else 0.0

    @property
    def antonym_share(self) -> float:
        return self.antonym / self.pairs if self.pairs else 0.0

    @property
    def share(self) -> float:
        return (self.negation + self.antonym) / self.pairs if self.pairs else 0.0


@dataclass
class Rule:
    name: str
    score: Score | None
    examples: list[str] = field(default_factory=list)  # claims it gets right


@dataclass
class ArtifactAudit:
    claims: int
    labelled: int
    baseline: Baseline
    cues: dict[bool, list[Cue]]
    rules: list[Rule]
    pairs: dict[str, PairShare]  # by subset, and "all"
    writers: dict[str, PairShare]  # by writer (when records name one)
    duplicates: dict[str, tuple[int, list[tuple[str, str, float]]]]  # part → (count, examples)
    human: float | None = None

    def beats_chance(self, margin: float = ARTIFACT_MARGIN) -> bool:
        """Whether the baseline's lower bound beats chance by more than `margin` points."""
        return self.baseline.margin is not None and self.baseline.margin > margin


def _label(record: Mapping[str, Any]) -> bool | None:
    label = record.get("label")
    return label if isinstance(label, bool) else None


def _id(record: Mapping[str, Any], index: int) -> str:
    return str(record.get("id", record.get("request_id", index)))


def audit(
    records: Sequence[Mapping[str, Any]],
    *,
    folds: int = FOLDS,
    seed: int = SEED,
    human: float | None = None,
    min_claims: int = MIN_CLAIMS,
    min_per_label: int = MIN_PER_LABEL,
    cue_min_count: int = CUE_MIN_COUNT,
    top: int = TOP,
    threshold: float = THRESHOLD,
) -> ArtifactAudit:
    """The audit of `records` (see the module's docstring); `human` is the human baseline's
    accuracy (0–1) when known."""
    labelled = [(i, r) for i, r in enumerate(records) if _label(r) is not None]
    return ArtifactAudit(
        claims=len(records),
        labelled=len(labelled),
        baseline=claim_only(
            records,
            folds=folds,
            seed=seed,
            min_claims=min_claims,
            min_per_label=min_per_label,
        ),
        cues=cue_words(records, min_count=cue_min_count, top=top),
        rules=rule_baselines(records),
        pairs=pair_shares(records, "claim_type"),
        writers=pair_shares(records, "writer") if any(r.get("writer") for r in records) else {},
        duplicates=duplicates(records, threshold=threshold),
        human=human,
    )


# --- Claim-only baseline ---------------------------------------------------------------------


def _model(seed: int) -> Any:
    # scikit-learn takes a second to import: only the baseline needs it.
    from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: PLC0415 - slow import
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - slow import
    from sklearn.pipeline import make_pipeline, make_union  # noqa: PLC0415 - slow import

    features = make_union(
        TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True, lowercase=True),
        TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, min_df=2),
    )
    return make_pipeline(features, LogisticRegression(C=4.0, solver="liblinear", random_state=seed))


def _too_small(
    labels: Sequence[bool], min_claims: int, min_per_label: int, *, who: str
) -> str | None:
    """What `who` ("the validation part needs", "the claims need") lacks, or None."""
    counts = Counter(labels)
    fewest = min(counts.get(True, 0), counts.get(False, 0))
    if len(labels) >= min_claims and fewest >= min_per_label:
        return None
    return (
        f"{who} at least {min_claims} labelled claims with {min_per_label} of each label "
        f"(has {len(labels)}: {counts.get(True, 0)} entailed, {counts.get(False, 0)} refuted)"
    )


def _pair_key(index: int, record: Mapping[str, Any]) -> str:
    """Which pair a record belongs to: its pair id, else its entailed claim (both claims of a
    pair carry it), else the record alone (the pairing is hidden)."""
    if record.get("pair_id") is not None:
        return f"pair:{record['pair_id']}"
    if record.get("origin_statement"):
        return f"origin:{record['origin_statement']}"
    return f"record:{index}"


def claim_only(
    records: Sequence[Mapping[str, Any]],
    *,
    folds: int = FOLDS,
    seed: int = SEED,
    min_claims: int = MIN_CLAIMS,
    min_per_label: int = MIN_PER_LABEL,
) -> Baseline:
    """The claim-only baseline: trained on validation and scored on test when both parts are
    labelled, else stratified k-fold cross-validation over the labelled claims."""
    labelled = [(i, r) for i, r in enumerate(records) if _label(r) is not None]
    train = [(i, r) for i, r in labelled if r.get("part") == "validation"]
    test = [(i, r) for i, r in labelled if r.get("part") == "test"]
    hidden_test = any(r.get("part") == "test" and _label(r) is None for r in records)
    if train and test:
        method = "trained on validation, scored on test"
        needed = _too_small(
            [bool(r["label"]) for _, r in train],
            min_claims,
            min_per_label,
            who="the validation part needs",
        )
        if needed:
            return Baseline(method, needed=needed)
        model = _model(seed)
        model.fit([str(r["claim"]) for _, r in train], [bool(r["label"]) for _, r in train])
        texts = [str(r["claim"]) for _, r in test]
        predicted = [bool(p) for p in model.predict(texts)]
        confidence = [float(max(p)) for p in model.predict_proba(texts)]
        scored = test
    else:
        method = (
            f"{folds}-fold cross-validation (stratified, a pair's two claims in one fold, "
            f"seed {seed})"
        )
        if hidden_test:
            method += " on validation: the test labels are hidden (give them with --labels)"
        elif {r.get("part") for _, r in labelled} == {"validation"}:
            method += " on validation"
        labels = [bool(r["label"]) for _, r in labelled]
        needed = _too_small(
            labels,
            max(min_claims, 2 * folds),
            max(min_per_label, folds),
            who="the claims need",
        )
        if needed:
            return Baseline(method, needed=needed)
        from sklearn.model_selection import (  # noqa: PLC0415 - slow import
            StratifiedGroupKFold,
            cross_val_predict,
        )

        texts = [str(r["claim"]) for _, r in labelled]
        # A pair's claims differ in a few words and have opposite labels: split across folds,
        # each would teach the model the other's text with the wrong label (far below chance).
        pair_groups = [_pair_key(i, r) for i, r in labelled]
        splitter = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=seed)
        probabilities = cross_val_predict(
            _model(seed), texts, labels, cv=splitter, groups=pair_groups, method="predict_proba"
        )
        # Columns follow the sorted classes: False, True.
        predicted = [bool(p[1] >= 0.5) for p in probabilities]
        confidence = [float(max(p)) for p in probabilities]
        scored = labelled
    baseline = Baseline(method)
    outcomes = [(bool(r["label"]), p) for (_, r), p in zip(scored, predicted, strict=True)]
    baseline.overall = _score(outcomes)
    for key, target in (("claim_type", baseline.by_subset), ("subfield", baseline.by_subfield)):
        groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
        for (_, r), outcome in zip(scored, outcomes, strict=True):
            if r.get(key):
                groups[str(r[key])].append(outcome)
        for name in sorted(groups):
            target[name] = _score(groups[name])
    right: dict[str, list[tuple[float, str, str, bool]]] = defaultdict(list)
    for (i, r), (gold, guess), sure in zip(scored, outcomes, confidence, strict=True):
        if gold == guess:
            right[str(r.get("claim_type") or "")].append((-sure, _id(r, i), str(r["claim"]), gold))
    for subset in sorted(right):
        baseline.examples[subset] = [(a, b, c) for _, a, b, c in sorted(right[subset])[:EXAMPLES]]
    return baseline


# --- Cue words -------------------------------------------------------------------------------


def words(text: str) -> set[str]:
    """The claim's distinct lower-case words ("n't" kept with its verb: "doesn't")."""
    return set(_WORD.findall(text.lower().replace("\u2019", "'")))


def cue_words(
    records: Sequence[Mapping[str, Any]], *, min_count: int = CUE_MIN_COUNT, top: int = TOP
) -> dict[bool, list[Cue]]:
    """Per label, the `top` words with the highest PMI(word, label) = log2(P(word, label) /
    (P(word) P(label))) over the labelled claims, among words in at least `min_count` claims
    (ties: the more frequent first)."""
    labelled = [(str(r["claim"]), bool(r["label"])) for r in records if _label(r) is not None]
    total = len(labelled)
    per_label = Counter(label for _, label in labelled)
    holding: Counter[str] = Counter()
    joint: Counter[tuple[str, bool]] = Counter()
    examples: dict[tuple[str, bool], list[str]] = defaultdict(list)
    for text, label in labelled:
        for word in words(text):
            holding[word] += 1
            joint[word, label] += 1
            if len(examples[word, label]) < EXAMPLES:
                examples[word, label].append(text)
    cues: dict[bool, list[Cue]] = {True: [], False: []}
    for label in (True, False):
        found = []
        for word, n in holding.items():
            k = joint[word, label]
            if n < min_count or k == 0 or not per_label[label]:
                continue
            pmi = math.log2(k * total / (n * per_label[label]))
            if pmi <= 0:
                continue
            found.append(Cue(word, label, pmi, n, k, tuple(examples[word, label])))
        found.sort(key=lambda c: (-round(c.pmi, 9), -c.claims, c.word))
        cues[label] = found[:top]
    return cues


# --- Rule baselines --------------------------------------------------------------------------


def _rule(name: str, records: Sequence[Mapping[str, Any]], refuted_if: Any) -> Rule:
    outcomes: list[tuple[bool, bool]] = []
    right: list[str] = []
    for r in records:
        label = _label(r)
        if label is None:
            continue
        guess = not refuted_if(str(r["claim"]))
        outcomes.append((label, guess))
        if guess == label and not label and len(right) < EXAMPLES:
            right.append(str(r["claim"]))
    return Rule(name, _score(outcomes) if outcomes else None, right)


def rule_baselines(records: Sequence[Mapping[str, Any]]) -> list[Rule]:
    """Accuracy of two one-line rules a model can learn from the claim alone."""
    return [
        _rule("refuted if the claim holds a negation (not, no, never…)", records, has_negation),
        _rule(
            "refuted if the claim holds a downward comparative (lower, worse, fewer…)",
            records,
            lambda text: bool(words(text) & DOWNWARD),
        ),
    ]


# --- Pair artifacts --------------------------------------------------------------------------


def pair_shares(records: Sequence[Mapping[str, Any]], key: str) -> dict[str, PairShare]:
    """Per value of `key` (and "all"), the pairs (once each, by their two statements) whose
    refuted claim is only a negation or an antonym of the entailed one."""
    seen: set[tuple[str, str]] = set()
    shares: dict[str, PairShare] = defaultdict(PairShare)
    for r in records:
        entailed, refuted = r.get("origin_statement"), r.get("perturbed_statement")
        if not isinstance(entailed, str) or not isinstance(refuted, str):
            continue
        if not entailed.strip() or not refuted.strip() or (entailed, refuted) in seen:
            continue
        seen.add((entailed, refuted))
        kind = pair_artifact(entailed, refuted)
        for group in (str(r.get(key) or "unknown"), "all"):
            share = shares[group]
            share.pairs += 1
            if kind == "negation":
                share.negation += 1
            elif kind == "antonym":
                share.antonym += 1
            if kind and len(share.examples) < EXAMPLES:
                share.examples.append((kind, entailed, refuted))
    return {name: shares[name] for name in sorted(shares, key=lambda n: (n == "all", n))}


# --- Near duplicates -------------------------------------------------------------------------


def duplicates(
    records: Sequence[Mapping[str, Any]], *, threshold: float = THRESHOLD
) -> dict[str, tuple[int, list[tuple[str, str, float]]]]:
    """Per part: near-duplicate claims (count, a few examples), a pair's own two claims aside."""
    parts: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in records:
        parts[str(r.get("part") or "pool")].append(r)
    found = {}
    for part, rows in sorted(parts.items()):
        texts = [str(r.get("claim") or "") for r in rows]
        matches = []
        for match in near_duplicates(texts, None, threshold=threshold):
            a, b = rows[match.i], rows[match.j]
            if _same_pair(a, b):
                continue
            matches.append((texts[match.i], texts[match.j], match.similarity))
        found[part] = (len(matches), matches[:EXAMPLES])
    return found


def _same_pair(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if a.get("pair") is not None and a.get("pair") == b.get("pair"):
        return True
    origin = a.get("origin_statement")
    return bool(origin) and origin == b.get("origin_statement")
