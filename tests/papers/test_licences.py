"""Licence codes from a paper's licence URL or name (pure: no database)."""

from __future__ import annotations

import pytest

from papers.licences import KNOWN_LICENCES, licence_code, paper_licence
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
        "cc0", "cc-by-nc-sa", "cc-by-nc-nd", "cc-by-nc", "cc-by-sa", "cc-by-nd", "cc-by", "arxiv"
    }  # fmt: skip
