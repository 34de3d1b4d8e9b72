"""Benchmark: the near-duplicate finder (`validation.release.duplicates`) on SciVer's sizes,
1,000 validation claims against 2,000 test claims, beside a floor measured in the same run:
normalising the same 3,000 texts (what any finder must do once), then the all-pairs baseline
on a sample, to show what the prefix filter saves.

Run by hand: `python bench/duplicates.py [--repeat 7] [--validation 1000] [--test 2000]`. The
claims are `realistic_claims`: hand-shaped sentences of SciVer's kinds (a value, a comparison,
a trend, a trade-off) over many models, datasets and metrics, about 20–35 words each, with a few
planted copies (exact, re-punctuated, one word changed) that must be found. It prints the
median and spread of each step and the matches found. No timing is asserted anywhere: the
tests run the same 3,000 texts for correctness only (tests/validation/test_release_check_more.py).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation.release.duplicates import near_duplicates, similarity, tokens  # noqa: E402

_PREFIXES = "Route Sparse Graph Token Flow Meta Deep Late Cross Dual Tri Hyper Proto Span".split()
_SUFFIXES = "Adapt Former Net KD Mix Gate Rank Fuse Prune Align Distill Cast Smith Depth".split()
MODELS = [p + s for p in _PREFIXES for s in _SUFFIXES] + [
    "BERT-base",
    "RoBERTa-large",
    "T5-3B",
    "Llama-2-7B",
    "Mistral-7B",
    "GPT-4o",
    "ResNet-50",
    "ViT-B/16",
    "CLIP",
    "DINOv2",
    "BM25",
    "Contriever",
    "IQL",
    "Decision Transformer",
    "AFLNet",
    "Monodepth2",
    "the fine-tuned T5 suggester",
    "the rerun-history triager",
    "the 6-layer student",
    "the vision-only baseline",
]
DATASETS = (
    "MS MARCO, TREC-COVID, FiQA, Touché-2020, NQ, HotpotQA, SQuAD, MNLI, SST-2, ImageNet, "
    "COCO, KITTI, Cityscapes, NYUv2, ScanNet, WMT14 En-De, FLORES-200, XSum, CNN/DM, GSM8K, "
    "MATH, HumanEval, MBPP, Defects4J, Kamailio, ProFTPD, hopper medium-replay, walker2d "
    "medium-expert, AOL, Shop, the African directions, the low-friction objects"
).split(", ")
METRICS = (
    "accuracy, F1, exact match, BLEU, chrF++, ROUGE-L, nDCG@10, MRR@10, recall@5, AbsRel, "
    "RMSE, mIoU, AP50, top-1 accuracy, pass@1, branch coverage, hit ratio, normalized return, "
    "success rate, ECE, latency, throughput"
).split(", ")
KNOBS = "model size, batch size, number of retrieved passages, training steps, beam width".split(
    ", "
)
QUALIFIERS = [
    "by a wide margin",
    "on every seed",
    "despite using fewer parameters",
    "without any task-specific tuning",
    "in the zero-shot setting",
    "after fine-tuning",
    "at the same compute budget",
    "while training only the adapters",
]


def _value(rng: random.Random) -> str:
    return f"{rng.uniform(5, 95):.1f}"


def _claim(rng: random.Random) -> str:
    m1, m2 = rng.sample(MODELS, 2)
    d1, d2 = rng.sample(DATASETS, 2)
    metric, other = rng.sample(METRICS, 2)
    v1, v2, v3 = _value(rng), _value(rng), _value(rng)
    table = f"Table {rng.randint(1, 9)}"
    figure = f"Figure {rng.randint(1, 12)}"
    qualifier = rng.choice(QUALIFIERS)
    templates = [
        f"In {table}, {m1} reaches {v1} {metric} on {d1}, the best score of all methods "
        f"{qualifier}, ahead of {m2} at {v2}.",
        f"On {d1}, {m1} reaches {v1} {metric}, higher than the {v2} of {m2}, while on {d2} the "
        f"order is reversed ({v3} against {v1}).",
        f"{m1} trains {rng.randint(1, 9)}.{rng.randint(0, 9)}% of the parameters of {m2} and "
        f"still reaches an average {metric} of {v1} over {d1} and {d2}.",
        f"The gain of {m1} over {m2} is largest on {d1}, at +{v1}% {metric}, and smallest on "
        f"{d2}, where both stay within {rng.randint(1, 4)} points.",
        f"Averaged over {rng.randint(3, 10)} seeds, {m1} reaches {v1} on {d1}, a gain of "
        f"{rng.uniform(0.2, 12):.1f} {metric} over {m2}, as {table} reports.",
        f"{figure} shows that the {metric} of {m1} rises from {v1} to {v2} as the "
        f"{rng.choice(KNOBS)} grows, whereas {m2} saturates early on {d1}.",
        f"{m1} is {rng.randint(2, 40)} times faster than {m2} ({v1} against {v2} ms per "
        f"request) while keeping most of its {metric} on {d1}.",
        f"Since {m1} uses fewer parameters yet outperforms {m2} on {d1} and {d2} {qualifier}, "
        f"it is the more parameter-efficient choice according to {table}.",
        f"With the calibrated setting, the {metric} of {m1} on {d1} falls to {v1}, against "
        f"{v2} for {m2}, and its {other} improves as well.",
        f"Both {m1} and {m2} exceed {v1} {metric} on {d1}, but only {m1} does so on {d2}, "
        f"where {m2} drops to {v2} according to {figure}.",
        f"Combining {table} and {figure}, {m1} attains the lowest {other} on {d1} and the "
        f"highest {metric} on {d2}, which {m2} matches on neither.",
        f"Removing the gating module lowers the {metric} of {m1} on {d1} from {v1} to {v2}, "
        f"which is still above {m2} {qualifier}.",
    ]
    return rng.choice(templates)


def realistic_claims(n: int, seed: int = 0) -> list[str]:
    """`n` varied claims of SciVer's kinds, reproducible from `seed`."""
    rng = random.Random(seed)
    return [_claim(rng) for _ in range(n)]


def planted(left: list[str], seed: int = 1, count: int = 30) -> list[tuple[int, str, str]]:
    """(index into `left`, kind, copy) for `count` copies of left claims: exactly the same,
    re-cased and re-punctuated, or with one word replaced."""
    rng = random.Random(seed)
    copies = []
    for index in rng.sample(range(len(left)), count):
        text, kind = left[index], rng.choice(["same", "punctuation", "word"])
        if kind == "same":
            copy = text
        elif kind == "punctuation":
            copy = text.upper().replace(",", " ;").rstrip(".") + "!"
        else:
            words = text.split()
            at = rng.randrange(len(words))
            words[at] = "remarkably" if words[at] != "remarkably" else "notably"
            copy = " ".join(words)
        copies.append((index, kind, copy))
    return copies


def claims_for(validation: int, test: int, seed: int = 0) -> tuple[list[str], list[str], list]:
    """SciVer-sized parts: `validation` and `test` claims, the test part holding planted copies
    of validation claims (returned as (validation index, test index, kind))."""
    left = realistic_claims(validation, seed)
    right = realistic_claims(test, seed + 1)
    rng = random.Random(seed + 2)
    where = []
    for index, kind, copy in planted(left, seed + 3):
        at = rng.randrange(len(right))
        right[at] = copy
        where.append((index, at, kind))
    # A copy written over another copy's place loses it: keep the last one written at each place.
    last = {at: (index, at, kind) for index, at, kind in where}
    return left, right, sorted(last.values())


def _timed(fn, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return times


def _line(name: str, times: list[float]) -> str:
    return (
        f"{name:<44} median {statistics.median(times) * 1000:8.1f} ms  "
        f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validation", type=int, default=1000)
    parser.add_argument("--test", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    left, right, where = claims_for(args.validation, args.test)
    words = statistics.mean(len(t.split()) for t in left + right)
    print(f"{len(left)} × {len(right)} claims, {words:.1f} words on average, {len(where)} planted")
    floor = _timed(lambda: [tokens(t) for t in left + right], args.repeat)
    found: list = []
    finder = _timed(lambda: found.append(near_duplicates(left, right)), args.repeat)
    matches = found[-1]
    within = _timed(lambda: near_duplicates(left + right), args.repeat)
    sample = 100
    sets_l, sets_r = [tokens(t) for t in left[:sample]], [tokens(t) for t in right]
    brute = _timed(
        lambda: [len(a & b) / len(a | b) for a in sets_l for b in sets_r], max(1, args.repeat // 3)
    )
    print(_line("floor: normalise the texts (tokens)", floor))
    print(_line("near_duplicates(validation, test)", finder))
    print(_line("near_duplicates(validation + test) (within)", within))
    scale = len(left) / sample
    print(
        _line(f"all pairs: Jaccard only, {sample} × {len(right)}", brute)
        + f"  → ~{statistics.median(brute) * scale:.1f} s for all"
    )
    print(
        f"ratio finder / floor: {statistics.median(finder) / statistics.median(floor):.1f}; "
        f"{len(matches)} matches ({sum(m.exact for m in matches)} exact)"
    )
    pairs = {(m.i, m.j) for m in matches}
    missed = [(i, j, kind) for i, j, kind in where if (i, j) not in pairs]
    print(f"planted copies found: {len(where) - len(missed)} of {len(where)}")
    for i, j, kind in missed:
        print(f"  missed {kind}: {similarity(left[i], right[j]):.2f} {left[i]!r} / {right[j]!r}")
    if missed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
