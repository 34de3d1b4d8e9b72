"""Peer-review status from an arXiv comment and journal_ref: accepted, workshop, under review."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Acceptance = Literal["accepted", "workshop", "under_review", "unknown"]

# Fetch order of a crawl: accepted papers first, then workshop papers, then the rest.
PRIORITY: dict[str, int] = {"accepted": 0, "workshop": 1, "under_review": 2, "unknown": 3}


@dataclass(frozen=True, slots=True)
class AcceptanceResult:
    acceptance: Acceptance
    venue: str = ""  # "EMNLP 2024 (Findings)", "NeurIPS 2024 (workshop)"
    phrase: str = ""  # the words the decision rests on

    @property
    def priority(self) -> int:
        return PRIORITY[self.acceptance]


# Venues: canonical name, alias pattern, whether the pattern may match in any case.
# Short acronyms match case-sensitively so that "chi" or "rss" in prose do not count.
_VENUES: list[tuple[str, str, bool]] = [
    # machine learning
    ("NeurIPS", r"NeurIPS|NIPS|Neural Information Processing Systems", True),
    ("ICML", r"ICML|International Conference on Machine Learning", True),
    ("ICLR", r"ICLR|International Conference on Learning Representations", True),
    ("AAAI", r"AAAI", True),
    ("IJCAI", r"IJCAI", True),
    ("AISTATS", r"AISTATS", True),
    ("UAI", r"UAI|Uncertainty in Artificial Intelligence", False),
    ("COLT", r"COLT", False),
    ("CoLLAs", r"CoLLAs", False),
    ("COLM", r"COLM|Conference on Language Modeling", False),
    ("TMLR", r"TMLR|Transactions on Machine Learning Research", True),
    ("JMLR", r"JMLR|Journal of Machine Learning Research", True),
    ("ECAI", r"ECAI", False),
    ("ECML-PKDD", r"ECML[- ]?PKDD|ECML", False),
    ("ACML", r"ACML", False),
    ("IJCNN", r"IJCNN", False),
    ("ICONIP", r"ICONIP", False),
    ("LoG", r"LoG", False),
    # language
    ("ACL", r"ACL|Annual Meeting of the Association for Computational Linguistics", False),
    ("EMNLP", r"EMNLP|Empirical Methods in Natural Language Processing", True),
    (
        "NAACL",
        r"NAACL|North American Chapter of the Association for Computational Linguistics",
        True,
    ),
    ("EACL", r"EACL|European Chapter of the Association for Computational Linguistics", True),
    ("AACL", r"AACL(?:[- ]IJCNLP)?", True),
    ("LREC-COLING", r"LREC[- ]COLING", True),
    ("COLING", r"COLING|International Conference on Computational Linguistics", True),
    ("LREC", r"LREC", True),
    ("CoNLL", r"CoNLL", True),
    ("TACL", r"TACL|Transactions of the Association for Computational Linguistics", True),
    ("SIGDIAL", r"SIGDIAL", True),
    ("INLG", r"INLG", True),
    ("Interspeech", r"INTERSPEECH", True),
    ("ICASSP", r"ICASSP", True),
    ("SLT", r"SLT", False),
    ("ASRU", r"ASRU", True),
    # vision and graphics
    ("CVPR", r"CVPR|Conference on Computer Vision and Pattern Recognition", True),
    ("ICCV", r"ICCV|International Conference on Computer Vision", True),
    ("ECCV", r"ECCV|European Conference on Computer Vision", True),
    ("WACV", r"WACV", True),
    ("BMVC", r"BMVC|British Machine Vision Conference", True),
    ("ACCV", r"ACCV", True),
    ("3DV", r"3DV", False),
    ("MICCAI", r"MICCAI", True),
    ("ICIP", r"ICIP", True),
    ("ICPR", r"ICPR", True),
    ("ICME", r"ICME", True),
    ("ACM MM", r"ACM ?MM|ACM Multimedia|ACMMM", True),
    ("SIGGRAPH Asia", r"SIGGRAPH Asia", True),
    ("SIGGRAPH", r"SIGGRAPH", True),
    ("TPAMI", r"T-?PAMI|Transactions on Pattern Analysis and Machine Intelligence", True),
    ("IJCV", r"IJCV|International Journal of Computer Vision", True),
    ("TIP", r"IEEE TIP|Transactions on Image Processing", True),
    ("TMM", r"IEEE TMM|Transactions on Multimedia", True),
    ("TCSVT", r"TCSVT|Transactions on Circuits and Systems for Video Technology", True),
    # robotics
    ("ICRA", r"ICRA|International Conference on Robotics and Automation", True),
    ("IROS", r"IROS|International Conference on Intelligent Robots and Systems", True),
    ("RSS", r"RSS|Robotics: Science and Systems", False),
    ("CoRL", r"CoRL|Conference on Robot Learning", False),
    ("RA-L", r"RA-?L|Robotics and Automation Letters", False),
    ("T-RO", r"T-?RO|IEEE Transactions on Robotics", False),
    ("IJRR", r"IJRR|International Journal of Robotics Research", True),
    ("HRI", r"HRI", False),
    ("Humanoids", r"Humanoids", False),
    # software engineering and programming languages
    ("ICSE", r"ICSE|International Conference on Software Engineering", True),
    ("FSE", r"(?:ESEC/)?FSE|Foundations of Software Engineering", True),
    ("ASE", r"ASE|Automated Software Engineering", False),
    ("ISSTA", r"ISSTA", True),
    ("ICSME", r"ICSME", True),
    ("MSR", r"MSR|Mining Software Repositories", False),
    ("SANER", r"SANER", True),
    ("ICPC", r"ICPC", False),
    ("ICST", r"ICST", False),
    ("OOPSLA", r"OOPSLA", True),
    ("PLDI", r"PLDI", True),
    ("POPL", r"POPL", True),
    ("TOSEM", r"TOSEM|Transactions on Software Engineering and Methodology", True),
    ("TSE", r"IEEE TSE|Transactions on Software Engineering", True),
    ("EMSE", r"EMSE|Empirical Software Engineering", False),
    # information retrieval, data, web
    ("SIGIR", r"SIGIR", True),
    ("CIKM", r"CIKM", True),
    ("WSDM", r"WSDM", True),
    ("RecSys", r"RecSys", True),
    ("ECIR", r"ECIR", True),
    ("KDD", r"(?:SIG)?KDD", True),
    ("WWW", r"WWW|The Web Conference|TheWebConf", False),
    ("TOIS", r"TOIS|Transactions on Information Systems", True),
    ("TKDE", r"TKDE|Transactions on Knowledge and Data Engineering", True),
    ("ICDE", r"ICDE", True),
    ("VLDB", r"P?VLDB", True),
    ("SIGMOD", r"SIGMOD", True),
    ("ICDM", r"ICDM", True),
    ("SDM", r"SDM", False),
    # security
    ("CCS", r"(?:ACM )?CCS", False),
    ("USENIX Security", r"USENIX Security", True),
    ("EuroS&P", r"Euro ?S&P", True),
    (
        "IEEE S&P",
        r"IEEE S&P|IEEE SP|S&P|IEEE Symposium on Security and Privacy|Oakland",
        False,
    ),
    ("NDSS", r"NDSS", True),
    ("ACSAC", r"ACSAC", True),
    ("RAID", r"RAID", False),
    ("AsiaCCS", r"Asia ?CCS", True),
    ("PETS", r"PoPETs|PETS", False),
    ("ESORICS", r"ESORICS", True),
    ("SaTML", r"SaTML", True),
    ("TIFS", r"TIFS|Transactions on Information Forensics and Security", True),
    ("TDSC", r"TDSC|Transactions on Dependable and Secure Computing", True),
    # human-computer interaction
    ("CHI", r"CHI", False),
    ("CSCW", r"CSCW", True),
    ("UIST", r"UIST", True),
    ("IUI", r"IUI", False),
]

# Workshop series that are workshops whatever else the comment says.
_WORKSHOP_SERIES: list[tuple[str, str, bool]] = [
    ("BlackboxNLP", r"BlackboxNLP", True),
    ("SemEval", r"SemEval", True),
    ("BioNLP", r"BioNLP", True),
    ("RepL4NLP", r"RepL4NLP", True),
    ("WOAH", r"WOAH", False),
    ("TrustNLP", r"TrustNLP", True),
    ("SustaiNLP", r"SustaiNLP", True),
    ("ClinicalNLP", r"ClinicalNLP", True),
    ("LoResMT", r"LoResMT", True),
    ("ArabicNLP", r"ArabicNLP", True),
    ("WMT", r"WMT", False),
    ("GEM", r"GEM", False),
]

_YEAR_AFTER = r"(?:\s*[-'’]?\s*(?P<year>(?:19|20)\d{2}|\d{2})(?!\d))?"


def _venue_regex(alias: str, any_case: bool) -> re.Pattern[str]:
    flags = re.IGNORECASE if any_case else 0
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alias}){_YEAR_AFTER}(?![A-Za-z])", flags)


_VENUE_PATTERNS = [(name, _venue_regex(alias, ci), False) for name, alias, ci in _VENUES] + [
    (name, _venue_regex(alias, ci), True) for name, alias, ci in _WORKSHOP_SERIES
]

_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_WORKSHOP = re.compile(r"\bworkshops?\b|\bW@|@\s*[A-Z]{3,}", re.IGNORECASE)

_TIERS: list[tuple[str, re.Pattern[str]]] = [
    ("Findings", re.compile(r"\bfindings\b", re.I)),
    ("Main", re.compile(r"\bmain(?:\s+(?:conference|track|paper))?\b", re.I)),
    ("Datasets and Benchmarks", re.compile(r"\bdatasets?\s+(?:and|&)\s+benchmarks?\b", re.I)),
    ("oral", re.compile(r"\boral\b", re.I)),
    ("spotlight", re.compile(r"\bspotlight\b", re.I)),
    ("highlight", re.compile(r"\bhighlights?\b", re.I)),
    ("poster", re.compile(r"\bposter\b", re.I)),
    ("demo", re.compile(r"\bdemo(?:nstration)?s?\b(?:\s+track)?", re.I)),
    ("industry", re.compile(r"\bindustry\s+track\b", re.I)),
    ("short", re.compile(r"\bshort\s+paper\b", re.I)),
]

# Signals, in the words authors use. Positive: the paper itself was accepted somewhere.
_POSITIVE = re.compile(
    r"\baccepted\b|\bto\s+appear\b|\bwill\s+appear\b"
    r"|\bappears?\s+(?:in|at)\b|\bpublished\s+(?:in|at|as|by|with)\b"
    r"|\bcamera[-\s]?ready\b|\bproceedings\s+of\b|\bin\s+proc(?:\.|eedings)?\b"
    r"|\bpresented\s+(?:at|in)\b|\bselected\s+(?:as|for)\s+(?:an?\s+)?(?:oral|spotlight)\b",
    re.IGNORECASE,
)
# Negative: the paper is submitted or under review somewhere (its venue is not an acceptance).
_NEGATIVE = re.compile(
    r"\bsubmitted\s+(?:to|for|at)\b|\bsubmission\s+to\b|\bunder\s+(?:review|submission)\b"
    r"|\bin\s+(?:review|submission)\b|\bfor\s+possible\s+publication\b|\bsubmitted\b"
    r"|\bACL\s+Rolling\s+Review\b|\bARR\b|\bpending\s+review\b|\bunder\s+consideration\b"
    r"|\bre-?submitted\b|\brejected\b|\bwithdrawn\b|\bupon\s+acceptance\b",
    re.IGNORECASE,
)
# Negative for the rest of the clause: the venue named belongs to an earlier paper.
_EARLIER_WORK = re.compile(
    r"\bextended\s+version\s+of\b|\bextension\s+of\b|\bextends\s+(?:our|the)\b"
    r"|\bjournal\s+(?:version|extension)\s+of\b|\bsupersedes\b"
    r"|\b(?:a\s+|an\s+|the\s+)?(?:preliminary|earlier|previous|prior|shorter|short|initial"
    r"|conference|workshop)\s+version\b",
    re.IGNORECASE,
)
# Weak negative: only when nothing positive is said anywhere.
_WEAK_NEGATIVE = re.compile(
    r"\bpreprint\b|\bwork\s+in\s+progress\b|\bdraft\b|\bunder\s+revision\b", re.IGNORECASE
)

_ABBREVIATIONS = (
    r"(?<!\bProc)(?<!\bVol)(?<!\bNo)(?<!\bpp)(?<!\be\.g)(?<!\bi\.e)(?<!\bal)"
    r"(?<!\bConf)(?<!\bInt)(?<!\bTrans)(?<!\bSymp)(?<!\bvs)(?<!\bJ)(?<!\bvol)(?<!\bno)(?<!\bproc)(?<!\bNos)"
)
_CLAUSE_SPLIT = re.compile(rf"\s*(?:[;|\n]+|{_ABBREVIATIONS}\.\s+(?=[A-Z0-9(\[]))\s*")
_UNKNOWN_VENUE_LEAD = re.compile(
    r"^(?:\s*(?:for\s+publication|for\s+presentation|as\s+(?:an?\s+)?(?:\w+\s+){0,2}?"
    r"(?:paper|presentation|talk|poster|article|contribution)s?))*"
    r"\s*(?:to|at|by|in|for|into|on|@|as)?\s*:?\s*(?:the\s+)?",
    re.IGNORECASE,
)

_NOT_A_VENUE = re.compile(
    r"^\d+\s*(?:pages?|figures?|tables?)\b|^(?:publication|presentation|review)$", re.I
)

_RANK = {"accepted": 3, "workshop": 2, "under_review": 1, "unknown": 0}


@dataclass(frozen=True, slots=True)
class _Venue:
    name: str
    year: str
    workshop_series: bool
    start: int
    end: int


@dataclass(slots=True)
class _Candidate:
    acceptance: Acceptance
    venue: str
    phrase: str
    quality: int  # 2: known venue with year, 1: known venue or named venue, 0: none


def classify_acceptance(comment: str | None, journal_ref: str | None = None) -> AcceptanceResult:
    """Classify a paper's peer-review status from its arXiv comment and journal reference."""
    candidates: list[_Candidate] = []
    positive_seen = False
    weak_negative: str = ""
    for source, text in (("journal_ref", journal_ref or ""), ("comment", comment or "")):
        for clause in _clauses(text):
            found = _classify_clause(clause, journal_ref=source == "journal_ref")
            candidates.extend(found)
            positive_seen |= any(c.acceptance in ("accepted", "workshop") for c in found)
            if not weak_negative and (match := _WEAK_NEGATIVE.search(clause)):
                weak_negative = clause if len(clause) <= 200 else match.group(0)
    if not candidates and weak_negative and not positive_seen:
        return AcceptanceResult("under_review", "", weak_negative)
    if not candidates:
        return AcceptanceResult("unknown")
    best = max(candidates, key=lambda c: (_RANK[c.acceptance], c.quality))
    venue = best.venue if best.acceptance in ("accepted", "workshop") else ""
    return AcceptanceResult(best.acceptance, venue[:200], best.phrase[:500])


def _clauses(text: str) -> list[str]:
    text = re.sub(r"[ \t\r\f\v]+", " ", text).strip()
    return [c.strip(" ,.") for c in _CLAUSE_SPLIT.split(text) if c and c.strip(" ,.")]


def _classify_clause(clause: str, *, journal_ref: bool) -> list[_Candidate]:
    signals: list[tuple[int, int, str]] = []
    for kind, pattern in (("pos", _POSITIVE), ("neg", _NEGATIVE), ("earlier", _EARLIER_WORK)):
        signals.extend((m.start(), m.end(), kind) for m in pattern.finditer(clause))
    signals.sort()
    # Drop overlapping signals ("submitted" inside "submitted to" is one signal).
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in signals:
        if merged and start < merged[-1][1]:
            continue
        merged.append((start, end, kind))

    candidates: list[_Candidate] = []
    earlier_until = -1  # an "extended version of ..." covers the clause up to the next comma
    for index, (start, end, kind) in enumerate(merged):
        next_start = merged[index + 1][0] if index + 1 < len(merged) else len(clause)
        scope = clause[end:next_start]
        if kind == "earlier":
            comma = clause.find(",", end)
            earlier_until = comma if comma >= 0 else len(clause)
            candidates.append(_Candidate("under_review", "", clause, 0))
        elif kind == "neg":
            candidates.append(_Candidate("under_review", "", clause, 0))
        elif start < earlier_until:
            continue  # "extended version of the paper accepted at ACL 2024"
        else:
            previous_end = merged[index - 1][1] if index else 0
            before = clause[previous_end:start]
            candidates.append(_positive(clause, scope=scope, before=before))
    if merged:
        return candidates
    if journal_ref and _WEAK_NEGATIVE.search(clause):
        return []  # "arXiv preprint" in the journal reference says nothing about a venue

    # No verb at all: a bare "EMNLP 2024 (Findings)" or a journal reference.
    venue = _find_venue(clause)
    workshop = bool(_WORKSHOP.search(clause)) or (venue is not None and venue.workshop_series)
    kind: Acceptance = "workshop" if workshop else "accepted"
    if venue is not None and (venue.year or journal_ref):
        return [_Candidate(kind, _venue_label(venue, clause, workshop), clause, 2)]
    if journal_ref:
        label = _venue_label(venue, clause, workshop) if venue else _free_venue(clause)
        return [_Candidate(kind, label, clause, 1 if venue else 0)]
    if workshop and _YEAR.search(clause) and re.search(r"\bworkshop\s+on\b", clause, re.I):
        return [_Candidate("workshop", _free_venue(clause), clause, 0)]
    return []


def _positive(clause: str, *, scope: str, before: str) -> _Candidate:
    venue = _find_venue(scope) or _find_venue(before)
    workshop = bool(_WORKSHOP.search(scope) or _WORKSHOP.search(before)) or (
        venue is not None and venue.workshop_series
    )
    kind: Acceptance = "workshop" if workshop else "accepted"
    context = f"{before} {scope}"
    if venue is not None:
        label = _venue_label(venue, context, workshop)
        return _Candidate(kind, label, clause, 2 if venue.year or _YEAR.search(label) else 1)
    free = _free_venue(scope)
    return _Candidate(kind, free, clause, 1 if free else 0)


def _find_venue(text: str) -> _Venue | None:
    best: _Venue | None = None
    for name, pattern, series in _VENUE_PATTERNS:
        for match in pattern.finditer(text):
            venue = _Venue(name, match.group("year") or "", series, match.start(), match.end())
            if best is None or (venue.start, -venue.end) < (best.start, -best.end):
                best = venue
            break
    return best


def _venue_label(venue: _Venue, context: str, workshop: bool) -> str:
    year = venue.year
    if len(year) == 2:
        year = f"20{year}"
    if not year and (match := _YEAR.search(context)):
        year = match.group(1)
    label = f"{venue.name} {year}".strip()
    if workshop and not venue.workshop_series:
        return f"{label} (workshop)"
    for tier, pattern in _TIERS:
        if pattern.search(context):
            return f"{label} ({tier})"
    return label


def _free_venue(scope: str) -> str:
    """The venue as written after "accepted at …", for venues not in the table."""
    text = _UNKNOWN_VENUE_LEAD.sub("", scope, count=1)
    text = re.split(r",\s*(?=\d|pages?\b|code\b|https?:)|\s+-\s+|https?://", text)[0]
    text = text.strip(" .,:;()[]")
    if len(text) < 3 or not re.search(r"[A-Za-z]{3}", text) or _NOT_A_VENUE.match(text):
        return ""
    if (match := _YEAR.search(scope)) and match.group(1) not in text:
        text = f"{text} {match.group(1)}"
    return text[:120]
