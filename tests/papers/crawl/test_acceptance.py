"""The acceptance classifier on realistic arXiv comments and journal references."""

from __future__ import annotations

import pytest

from papers.crawl.acceptance import PRIORITY, classify_acceptance

A, W, U, N = "accepted", "workshop", "under_review", "unknown"

# (comment, journal_ref, class, venue); venue None: not checked.
CASES: list[tuple[str, str, str, str | None]] = [
    # the tricky ones the issue names
    (
        "Submitted to ICLR 2025; accepted at a NeurIPS 2024 workshop",
        "",
        W,
        "NeurIPS 2024 (workshop)",
    ),
    ("Extended version of our ACL 2024 paper", "", U, ""),
    ("13 pages, 5 figures", "", N, ""),
    ("", "", N, ""),
    # accepted, with venue, year and track
    (
        "Accepted to EMNLP 2024 (Findings). 9 pages, 4 figures",
        "Findings of EMNLP 2024",
        A,
        "EMNLP 2024 (Findings)",
    ),
    ("Accepted at NeurIPS 2024 as a spotlight", "", A, "NeurIPS 2024 (spotlight)"),
    ("NeurIPS 2024 Spotlight", "", A, "NeurIPS 2024 (spotlight)"),
    ("Accepted to ACL 2024 main conference", "", A, "ACL 2024 (Main)"),
    ("ACL 2024 (Main)", "", A, "ACL 2024 (Main)"),
    ("EMNLP 2024 Findings", "", A, "EMNLP 2024 (Findings)"),
    ("Accepted by CVPR 2024", "", A, "CVPR 2024"),
    ("Published as a conference paper at ICLR 2025", "", A, "ICLR 2025"),
    ("Accepted as a poster at ICLR 2025", "", A, "ICLR 2025 (poster)"),
    ("Accepted as an oral presentation at CVPR 2024", "", A, "CVPR 2024 (oral)"),
    ("ECCV 2024 Oral", "", A, "ECCV 2024 (oral)"),
    ("To appear in the Proceedings of EMNLP 2024", "", A, "EMNLP 2024"),
    ("Camera-ready version for COLING 2025", "", A, "COLING 2025"),
    (
        "Accepted for publication in IEEE Transactions on Pattern Analysis and Machine "
        "Intelligence",
        "",
        A,
        "TPAMI",
    ),
    ("Accepted to IEEE Robotics and Automation Letters (RA-L)", "", A, "RA-L"),
    ("Accepted at ICRA 2025", "", A, "ICRA 2025"),
    ("IROS 2024. Project page: https://example.org/robot", "", A, "IROS 2024"),
    ("This paper has been accepted by ICASSP 2025", "", A, "ICASSP 2025"),
    ("Accepted at Interspeech 2024", "", A, "Interspeech 2024"),
    ("Extended version of our ACL 2024 paper, accepted to TACL", "", A, "TACL 2024"),
    ("Accepted in the Findings of NAACL 2025", "", A, "NAACL 2025 (Findings)"),
    ("NAACL 2025 Main", "", A, "NAACL 2025 (Main)"),
    (
        "COLING 2025",
        "Proceedings of the 31st International Conference on Computational Linguistics",
        A,
        "COLING 2025",
    ),
    ("Accepted at LREC-COLING 2024", "", A, "LREC-COLING 2024"),
    ("NeurIPS 2024 Datasets and Benchmarks Track", "", A, "NeurIPS 2024 (Datasets and Benchmarks)"),
    ("Accepted to NeurIPS'24", "", A, "NeurIPS 2024"),
    ("CVPR24 highlight", "", A, "CVPR 2024 (highlight)"),
    ("ACM MM 2024", "", A, "ACM MM 2024"),
    ("Accepted at KDD 2024", "", A, "KDD 2024"),
    ("Accepted at SIGIR '24", "", A, "SIGIR 2024"),
    ("WWW 2025 short paper", "", A, "WWW 2025 (short)"),
    (
        "Accepted to the 33rd USENIX Security Symposium (USENIX Security 2024)",
        "",
        A,
        "USENIX Security 2024",
    ),
    ("IEEE S&P 2025", "", A, "IEEE S&P 2025"),
    ("Accepted at NDSS 2025", "", A, "NDSS 2025"),
    ("Accepted at CCS 2024", "", A, "CCS 2024"),
    ("ICSE 2025", "", A, "ICSE 2025"),
    ("Accepted at FSE 2024 (Industry Track)", "", A, "FSE 2024 (industry)"),
    ("Accepted to ISSTA 2024", "", A, "ISSTA 2024"),
    ("Accepted to RecSys 2024", "", A, "RecSys 2024"),
    ("Accepted at ACL 2024; code at https://github.com/x/y", "", A, "ACL 2024"),
    (
        "Accepted by the Journal of Artificial Intelligence Research",
        "",
        A,
        "Journal of Artificial Intelligence Research",
    ),
    ("Oral at CoRL 2024", "", A, "CoRL 2024 (oral)"),
    ("CoRL 2024", "", A, "CoRL 2024"),
    ("Accepted to Robotics: Science and Systems (RSS) 2024", "", A, "RSS 2024"),
    ("Accepted in TMLR", "", A, "TMLR"),
    ("Accepted to COLM 2024", "", A, "COLM 2024"),
    ("EMNLP 2024 camera-ready", "", A, "EMNLP 2024"),
    ("Accepted to the AAAI-25 Main Technical Track", "", A, "AAAI 2025 (Main)"),
    ("IJCAI-24", "", A, "IJCAI 2024"),
    ("17 pages; accepted to CHI 2025", "", A, "CHI 2025"),
    (
        "Accepted at ICLR 2025 (Spotlight); previously at a NeurIPS 2023 workshop",
        "",
        A,
        "ICLR 2025 (spotlight)",
    ),
    ("Accepted as a long paper at ACL 2024 Findings", "", A, "ACL 2024 (Findings)"),
    ("Best Paper Award at CVPR 2024", "", A, "CVPR 2024"),
    ("Accepted to the main track of AAAI 2025", "", A, "AAAI 2025 (Main)"),
    ("accepted at neurips 2024", "", A, "NeurIPS 2024"),
    ("The paper is accepted by IEEE TIFS", "", A, "TIFS"),
    ("Accepted for publication", "", A, ""),
    (
        "This article has been accepted for publication in IEEE Transactions on Software "
        "Engineering. This is the author's version",
        "",
        A,
        "TSE",
    ),
    # journal references alone
    (
        "",
        "Proceedings of the 2024 Conference on Empirical Methods in Natural Language "
        "Processing, pages 1234-1250",
        A,
        "EMNLP 2024",
    ),
    (
        "",
        "IEEE Robotics and Automation Letters, vol. 9, no. 11, pp. 10001-10008, 2024",
        A,
        "RA-L 2024",
    ),
    ("", "Transactions on Machine Learning Research (TMLR), 2024", A, "TMLR 2024"),
    ("", "Some Obscure Journal of Things, 2024", A, "Some Obscure Journal of Things 2024"),
    (
        "",
        "Findings of the Association for Computational Linguistics: ACL 2024",
        A,
        "ACL 2024 (Findings)",
    ),
    ("13 pages", "arXiv preprint", U, ""),
    # workshops
    (
        "Accepted at the ICML 2024 Workshop on Foundation Models in the Wild",
        "",
        W,
        "ICML 2024 (workshop)",
    ),
    (
        "Accepted to the Workshop on Trustworthy NLP (TrustNLP) at NAACL 2024",
        "",
        W,
        "TrustNLP 2024",
    ),
    ("BlackboxNLP 2024", "", W, "BlackboxNLP 2024"),
    ("SemEval-2024 Task 8 system paper", "", W, "SemEval 2024"),
    (
        "Paper accepted at the 1st Workshop on Towards Knowledgeable Language Models @ ACL 2024",
        "",
        W,
        "ACL 2024 (workshop)",
    ),
    (
        "Presented at the NeurIPS 2024 Workshop on Adaptive Foundation Models",
        "",
        W,
        "NeurIPS 2024 (workshop)",
    ),
    (
        "Accepted for oral presentation at the ICLR 2025 Workshop on Reasoning and Planning",
        "",
        W,
        "ICLR 2025 (workshop)",
    ),
    (
        "Accepted at a NeurIPS 2024 workshop; under review at ICLR 2025",
        "",
        W,
        "NeurIPS 2024 (workshop)",
    ),
    # submitted, under review, earlier versions
    ("Under review as a conference paper at ICLR 2025", "", U, ""),
    ("Under review", "", U, ""),
    ("Preprint. Under review.", "", U, ""),
    ("Preprint", "", U, ""),
    ("Work in progress", "", U, ""),
    ("Submitted to TACL", "", U, ""),
    ("Submitted to IEEE TPAMI. 14 pages", "", U, ""),
    ("Submitted to NeurIPS 2024 Datasets and Benchmarks Track", "", U, ""),
    ("Extended version of the paper accepted at ACL 2024", "", U, ""),
    ("A preliminary version of this work appeared at ICML 2024", "", U, ""),
    ("Under review at ARR October 2024", "", U, ""),
    ("ARR 2024 December submission", "", U, ""),
    ("In submission", "", U, ""),
    ("Currently under review at a conference", "", U, ""),
    (
        "This work has been submitted to the IEEE for possible publication. Copyright may be "
        "transferred without notice",
        "",
        U,
        "",
    ),
    ("Rejected from ICLR 2024, resubmitted to ICML 2024", "", U, ""),
    # nothing about peer review
    ("Code: https://github.com/foo/bar", "", N, ""),
    ("v2: fixed typos in Table 3", "", N, ""),
    ("Technical report", "", N, ""),
    ("The code will be released upon acceptance", "", U, ""),
    ("arXiv admin note: text overlap with arXiv:2301.00001", "", N, ""),
    ("PhD thesis, University of Somewhere", "", N, ""),
    ("Workshop paper", "", N, ""),
    ("Accepted. 10 pages", "", A, ""),
]


def test_enough_cases() -> None:
    assert len(CASES) >= 60


@pytest.mark.parametrize(
    ("comment", "journal_ref", "expected", "venue"),
    CASES,
    ids=[f"{c[0][:40]}|{c[1][:20]}" for c in CASES],
)
def test_classify(comment: str, journal_ref: str, expected: str, venue: str | None) -> None:
    result = classify_acceptance(comment, journal_ref)
    assert result.acceptance == expected
    if venue is not None:
        assert result.venue == venue
    if expected != N:
        assert result.phrase, "the matched phrase is stored with the class"


def test_none_inputs_are_unknown() -> None:
    assert classify_acceptance(None, None).acceptance == N


def test_priority_order() -> None:
    order = sorted([N, U, W, A], key=PRIORITY.__getitem__)
    assert order == [A, W, U, N]
    assert classify_acceptance("Accepted to EMNLP 2024").priority == 0
