"""A paper's licence as a short code (`cc-by`, `cc0`, `arxiv`, …), from its URL or name."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from papers.models import Paper

# First match wins: the narrower Creative Commons variants come before plain `cc-by`.
LICENCE_CODES = [
    (re.compile(r"publicdomain/zero|cc0", re.I), "cc0"),
    (re.compile(r"licenses/by-nc-sa|by-nc-sa", re.I), "cc-by-nc-sa"),
    (re.compile(r"licenses/by-nc-nd|by-nc-nd", re.I), "cc-by-nc-nd"),
    (re.compile(r"licenses/by-nc/|by-nc\b", re.I), "cc-by-nc"),
    (re.compile(r"licenses/by-sa|by-sa", re.I), "cc-by-sa"),
    (re.compile(r"licenses/by-nd|by-nd", re.I), "cc-by-nd"),
    (re.compile(r"licenses/by/|cc[- ]by\b", re.I), "cc-by"),
    (re.compile(r"nonexclusive-distrib|non-?exclusive", re.I), "arxiv"),
]

# The codes a licence filter may name (`unknown` is what no pattern matched, never a filter).
KNOWN_LICENCES = frozenset(code for _, code in LICENCE_CODES)

# A release carries the papers' text, table screenshots and chart images, cut and rearranged:
# only these licences let anyone redistribute a paper with adaptations. A split holds only
# their papers unless whoever makes it names other licences.
REDISTRIBUTABLE = ("cc-by", "cc-by-sa", "cc0")

# The one table of licence names, by code: each as its issuer writes it ("license" in arXiv's
# own name), without a version (a paper's licence URL names that: `licence_name_at`). What the
# name leaves unsaid follows it in brackets where a code's name is shown (`licence_name`).
LICENCE_NAMES = {
    "cc-by": "CC BY",
    "cc-by-sa": "CC BY-SA",
    "cc0": "CC0",
    "cc-by-nc": "CC BY-NC",
    "cc-by-nc-sa": "CC BY-NC-SA",
    "cc-by-nc-nd": "CC BY-NC-ND",
    "cc-by-nd": "CC BY-ND",
    "arxiv": "arXiv.org perpetual, non-exclusive license",
    "unknown": "unknown",
}
_GLOSS = {"cc0": "public domain"}

# Licences arXiv offers that no code stands for (a split's filter cannot name them), by URL.
_UNCODED_NAMES = {
    "arxiv.org/licenses/assumed-1991-2003": "arXiv assumed license (1991-2003)",
}
_URL_VERSION = re.compile(r"/(\d+\.\d+)/?$")


def allows_redistribution(code: str) -> bool:
    """Whether a paper under this licence may be redistributed with adaptations."""
    return code in REDISTRIBUTABLE


def licence_name(code: str) -> str:
    """A code's licence as the release pages and the dataset card name it ("CC BY",
    "CC0 (public domain)")."""
    name = LICENCE_NAMES.get(code, code)
    return f"{name} ({_GLOSS[code]})" if code in _GLOSS else name


def licence_name_at(url: str) -> str:
    """The name of the licence at `url`, with the version the URL names, as a paper stores it
    ("CC BY 4.0", "CC0 1.0", "arXiv.org perpetual, non-exclusive license 1.0"); "" for a URL
    of no licence this project knows."""
    key = re.sub(r"^https?://(www\.)?", "", url.strip()).rstrip("/")
    if key in _UNCODED_NAMES:
        return _UNCODED_NAMES[key]
    code = licence_code(key)
    if code == "unknown":
        return ""
    version = _URL_VERSION.search(key + "/")
    return f"{LICENCE_NAMES[code]} {version.group(1)}" if version else LICENCE_NAMES[code]


def licence_code(url: str, name: str = "") -> str:
    """A short code for a paper's licence (`cc-by`, `cc0`, `arxiv`, …; `unknown`)."""
    for text in (url or "", name or ""):
        for pattern, code in LICENCE_CODES:
            if pattern.search(text):
                return code
    return "unknown"


def paper_licence(paper: Paper) -> str:
    return licence_code(paper.license_url, paper.license_name)


# Where each licence lives, for a page banner that names it without a usable link.
_CANONICAL = {
    "cc0": "https://creativecommons.org/publicdomain/zero/{version}/",
    "cc-by": "https://creativecommons.org/licenses/by/{version}/",
    "cc-by-sa": "https://creativecommons.org/licenses/by-sa/{version}/",
    "cc-by-nd": "https://creativecommons.org/licenses/by-nd/{version}/",
    "cc-by-nc": "https://creativecommons.org/licenses/by-nc/{version}/",
    "cc-by-nc-sa": "https://creativecommons.org/licenses/by-nc-sa/{version}/",
    "cc-by-nc-nd": "https://creativecommons.org/licenses/by-nc-nd/{version}/",
    "arxiv": "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
}
_LICENCE_LINK = re.compile(
    r"creativecommons\.org/(licenses|publicdomain)/|arxiv\.org/licenses/", re.I
)
_VERSION = re.compile(r"\b(\d\.\d)\b")


def licence_from_banner(name: str, href: str) -> tuple[str, str]:
    """(url, name) of the licence a page's banner shows ("License: CC BY 4.0"): its link when
    that is a licence's own page, else the licence's canonical address; ("", name) when the
    name is no licence this project knows."""
    name = " ".join(name.split())
    if href and _LICENCE_LINK.search(href):
        return href, name
    code = licence_code("", name)
    template = _CANONICAL.get(code)
    if template is None:
        return "", name
    version = _VERSION.search(name)
    default = "1.0" if code == "cc0" else "4.0"
    return template.format(version=version.group(1) if version else default), name
