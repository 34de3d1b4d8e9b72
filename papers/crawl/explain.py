"""Crawl errors in plain language: what failed and what to do, from the technical message a
run or one of its events recorded (which the page keeps, folded, as the detail)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Explained:
    summary: str  # what failed, for a person
    advice: str  # what to do about it
    detail: str  # the technical message, unchanged

    @property
    def technical(self) -> bool:
        """Whether the detail says more than the summary (worth a folded <details>)."""
        return self.detail.strip() != self.summary


# (pattern in the technical message, what failed, what to do): the first that matches wins.
RULES: list[tuple[re.Pattern[str], str, str]] = [
    (
        re.compile(
            r"NameResolutionError|Failed to resolve|getaddrinfo failed|Name or service "
            r"not known|Temporary failure in name resolution",
            re.I,
        ),
        "arXiv's address could not be looked up (DNS): this machine seems to have no working "
        "internet connection or name server.",
        "Check the machine's network and DNS (or a proxy it needs), then press Resume: the "
        "crawl continues where it stopped.",
    ),
    (
        re.compile(r"certificate verify failed|SSLError|CERTIFICATE", re.I),
        "The secure connection to arXiv could not be verified (TLS certificate).",
        "Check the machine's clock and its CA certificates, or a proxy that intercepts HTTPS; "
        "then press Resume.",
    ),
    (
        re.compile(
            r"Connection refused|ConnectionRefused|Max retries exceeded|NewConnectionError"
            r"|Failed to establish a new connection|Network is unreachable"
            r"|ConnectionError|RemoteDisconnected|Connection reset|connection aborted",
            re.I,
        ),
        "arXiv could not be reached: every attempt to connect failed.",
        "arXiv may be down, or this machine offline or behind a firewall. Check that "
        "export.arxiv.org opens from this machine (or the ARXIV_API_URL / ARXIV_HTML_URL "
        "settings), then press Resume.",
    ),
    (
        re.compile(r"timed out|Timeout|deadline", re.I),
        "arXiv did not answer in time.",
        "arXiv is slow or overloaded. Press Resume later; the limits are ARXIV_CONNECT_TIMEOUT, "
        "ARXIV_READ_TIMEOUT and ARXIV_REQUEST_DEADLINE.",
    ),
    (
        re.compile(r"HTTP 429|Too Many Requests|Retry-After", re.I),
        "arXiv asked the crawler to slow down (HTTP 429).",
        "Wait a while, then press Resume; a larger ARXIV_DELAY_SECONDS makes it rarer.",
    ),
    (
        re.compile(r"HTTP 403|Forbidden", re.I),
        "arXiv refused the requests (HTTP 403).",
        "arXiv may be blocking this address or the user agent: set ARXIV_CONTACT to a real "
        "e-mail address and keep ARXIV_DELAY_SECONDS at 3 or more; then press Resume.",
    ),
    (
        re.compile(r"HTTP 5\d\d|Service Unavailable|Bad Gateway", re.I),
        "arXiv answered with a server error.",
        "That is on arXiv's side: press Resume later.",
    ),
    (
        re.compile(r"HTTP 404"),
        "arXiv has no such page (HTTP 404).",
        "Nothing to do: the paper has no HTML version (yet).",
    ),
    (
        re.compile(r"search .*(failed|incomplete)|not all date ranges", re.I),
        "Part of the search of arXiv failed, so the list of papers is incomplete.",
        "Press Resume: only the date ranges that failed are searched again.",
    ),
]

FALLBACK_ADVICE = (
    "See the technical detail; press Resume to try again, and if it keeps failing report it "
    "with that detail."
)


def explain(message: str, *, fallback_advice: str = FALLBACK_ADVICE) -> Explained:
    """The plain-language reading of a crawl error message (one nothing here recognises: its
    first line, with `fallback_advice`)."""
    text = message or ""
    for pattern, summary, advice in RULES:
        if pattern.search(text):
            return Explained(summary, advice, text)
    first_line = text.strip().splitlines()[0] if text.strip() else "The crawl failed."
    return Explained(first_line[:300], fallback_advice, text)
