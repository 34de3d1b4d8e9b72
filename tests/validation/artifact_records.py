"""Claim records for the artifact-audit tests: pairs whose refuted claims are negations of
their entailed claims, or value-only rewrites (issue 43)."""

from __future__ import annotations

import random

SUBSETS = ("direct", "parallel", "sequential", "analytical")
SYSTEMS = ("RouteAdapt", "GateDepth", "ListKD", "SlipReG", "CacheCast", "SeedSmith", "TriageLM")
METRICS = ("chrF", "AbsRel", "nDCG", "success rate", "hit ratio", "coverage", "F1", "MRR")
DATASETS = ("FLORES", "KITTI", "TREC-COVID", "YCB", "CDN", "ProFTPD", "Defects4J", "AOL")
VERBS = ("reaches", "achieves", "obtains", "records", "attains")


def statements(i: int, rng: random.Random, negation: bool) -> tuple[str, str]:
    system, metric = rng.choice(SYSTEMS), rng.choice(METRICS)
    dataset, verb = rng.choice(DATASETS), rng.choice(VERBS)
    value = f"{rng.uniform(10, 95):.1f}"
    entailed = f"{system} {verb} {value} {metric} on {dataset} in Table {1 + i % 7}."
    if negation:
        refuted = entailed.replace(f" {verb} ", f" does not {verb[:-1]} ")
    else:
        refuted = entailed.replace(value, f"{rng.uniform(10, 95):.1f}")
    return entailed, refuted


def planted(pairs: int, *, negation: bool, seed: int = 5) -> list[dict]:
    """Records of `pairs` pairs, the first third in validation, the rest in test."""
    rng = random.Random(seed)
    records = []
    for i in range(pairs):
        entailed, refuted = statements(i, rng, negation)
        for label in (True, False):
            records.append(
                {
                    "id": 2 * i + int(not label),
                    "claim": entailed if label else refuted,
                    "label": label,
                    "claim_type": SUBSETS[i % 4],
                    "subfield": "cs.CL" if i % 2 else "cs.CV",
                    "origin_statement": entailed,
                    "perturbed_statement": refuted,
                    "part": "validation" if i < pairs // 3 else "test",
                    "writer": f"w{i % 3}",
                }
            )
    return records
