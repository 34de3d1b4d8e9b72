"""Licence codes from a paper's licence URL or name (pure: no database)."""

from __future__ import annotations

import pytest

from papers.crawl import client
from papers.licences import (
    KNOWN_LICENCES,
    licence_code,
    licence_name,
    licence_name_at,
    paper_licence,
)
from papers.models import Paper


@pytest.mark.parametrize(
    ("url", "name", "code"),
    [
        ("http://creativecommons.org/licenses/by/4.0/", "", "cc-by"),
        ("http://creativecommons.org/licenses/by-sa/4.0/", "", "cc-by-sa"),
        ("http://creativecommons.org/licenses/by-nc-sa/4.0/", "", "cc-by-nc-sa"),
        ("http://creativecommons.org/licenses/by-nc-nd/4.0/", "", "cc-by-nc-nd"),
        ("http://creativecommons.org/licenses/by-nc/4.0/", "", "cc-by-nc"),
        ("http://creativecommons.org/publicdomain/zero/1.0/", "", "cc0"),
        ("http://arxiv.org/licenses/nonexclusive-distrib/1.0/", "", "arxiv"),
        ("", "CC BY 4.0", "cc-by"),
        ("", "", "unknown"),
        ("https://example.org/terms", "all rights reserved", "unknown"),
    ],
)
def test_the_narrowest_matching_code_wins(url: str, name: str, code: str) -> None:
    assert licence_code(url, name) == code


def test_a_paper_reads_its_url_then_its_name_and_every_code_is_known() -> None:
    paper = Paper(license_url="", license_name="CC0 1.0")
    assert paper_licence(paper) == "cc0"
    assert "unknown" not in KNOWN_LICENCES
    assert KNOWN_LICENCES == {
        "cc0",
        "cc-by-nc-sa",
        "cc-by-nc-nd",
        "cc-by-nc",
        "cc-by-sa",
        "cc-by-nd",
        "cc-by",
        "arxiv",
    }


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("http://creativecommons.org/licenses/by/4.0/", "CC BY 4.0"),
        ("https://creativecommons.org/licenses/by-nc-sa/4.0/", "CC BY-NC-SA 4.0"),
        ("http://creativecommons.org/licenses/by/3.0/", "CC BY 3.0"),
        ("http://creativecommons.org/publicdomain/zero/1.0/", "CC0 1.0"),
        (
            "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
            "arXiv.org perpetual, non-exclusive license 1.0",
        ),
        ("http://arxiv.org/licenses/assumed-1991-2003/", "arXiv assumed license (1991-2003)"),
        ("https://example.org/terms", ""),
    ],
)
def test_a_licence_url_is_named_from_the_one_table(url: str, name: str) -> None:
    assert licence_name_at(url) == name


def test_the_crawl_names_a_licence_from_the_one_table() -> None:
    url = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    assert client.license_name(url, "view license") == licence_name_at(url)
    assert client.license_name("https://example.org/terms", "view license") == ""
    assert client.license_name("https://example.org/terms", "All rights reserved") == (
        "All rights reserved"
    )


def test_a_code_is_named_as_its_issuer_names_it() -> None:
    assert licence_name("cc-by") == "CC BY"
    assert licence_name("cc0") == "CC0 (public domain)"
    assert licence_name("arxiv") == "arXiv.org perpetual, non-exclusive license"
    assert licence_name("unknown") == "unknown"
