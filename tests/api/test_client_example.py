"""docs/api.md's client example, run as written against a live server and a stand-in arXiv:
the API alone adds papers by id, waits for the crawl, makes a split, exports it and downloads
it. Only the example's four settings lines are set here (server, token, ids, sizes)."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from api.tokens import issue_token
from papers.models import CrawlRun, Paper
from tests.papers.crawl.standin_papers import day, paper
from tests.standin import StandInArxiv
from tests.validation.factories import Team, validated_pairs

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"
SETTINGS_LINES = ("API = ", "TOKEN = ", "IDS = ", "VALIDATION, TEST = ")


def example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.S)
    assert blocks, "docs/api.md has no Python example"
    return blocks[0]


def with_settings(code: str, values: dict[str, str]) -> str:
    """The example with its settings lines replaced, every other line as written."""
    lines = code.splitlines()
    for prefix, value in values.items():
        found = [i for i, line in enumerate(lines) if line.startswith(prefix)]
        assert len(found) == 1, f"the example's settings line {prefix!r} moved"
        lines[found[0]] = f"{prefix}{value}"
    return "\n".join(lines) + "\n"


@pytest.fixture
def arxiv(settings, tmp_path):
    server = StandInArxiv(
        [paper("2410.00101", published=day(3)), paper("2410.00102", published=day(4))]
    ).start()
    server.point_crawler(settings, tmp_path)
    settings.REDIS_URL = ""  # the crawl and the export run in threads of the server
    settings.USE_CHROMIUM = False
    try:
        yield server
    finally:
        server.stop()


def test_the_documented_client_adds_crawls_splits_exports_and_downloads(
    live_server, arxiv, tmp_path, monkeypatch
):
    team = Team()
    validated_pairs(team, 4)
    _, token = issue_token(user=team.admin, name="client example")
    code = with_settings(
        example(),
        {
            "API = ": repr(f"{live_server.url}/api"),
            "TOKEN = ": repr(token),
            "IDS = ": repr(["2410.00101", "2410.00102"]),
            "VALIDATION, TEST = ": "2, 4",
        },
    )
    code = code.replace("time.sleep(2)", "time.sleep(0.2)")  # the only other change: the wait
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/api.md, the client example", "exec"), {"__name__": "client_example"})  # noqa: S102

    assert set(
        Paper.objects.filter(arxiv_id__in=["2410.00101", "2410.00102"]).values_list(
            "arxiv_id", flat=True
        )
    ) == {"2410.00101", "2410.00102"}
    assert {r.path.split("?")[0] for r in arxiv.log} >= {"/api/query"}
    run = CrawlRun.objects.get()  # the fields the example leaves out: the crawl page's defaults
    assert (run.min_tables, run.min_charts) == (2, 2) and not run.keep_all
    archives = list(tmp_path.glob("*.zip"))
    assert len(archives) == 1
    with zipfile.ZipFile(archives[0]) as release:
        names = release.namelist()
    assert any(n.endswith("valset.json") for n in names)
    assert any(n.endswith("testset.json") for n in names)
