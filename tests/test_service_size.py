"""No service function over 60 lines: a long service is split into a pure rule that says what
is wrong (its app's `rules` module, tested without a database) and a short write that reads,
asks the rule and writes (issue 46). Every `services.py` and every module under a `services/`
package of the project's apps is read with `ast`, and so are papers' service modules, which
are named by their job instead (`PAPERS_SERVICES`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = (
    "annotation",
    "api",
    "charts",
    "config",
    "evaluation",
    "guidelines",
    "jobs",
    "papers",
    "serving",
    "validation",
    "workspace",
)
MAX_LINES = 60
# papers/ names its service layer by job (docs/design.md): each of these modules is read too.
PAPERS_SERVICES = (
    "papers/importing.py",
    "papers/reparse.py",
    "papers/reparse_plan.py",
    "papers/drawing.py",
    "papers/media.py",
    "papers/metadata.py",
    "papers/assets.py",
    "papers/storable.py",
    "papers/crawl/fetch_phase.py",
    "papers/crawl/search_phase.py",
    "papers/crawl/polite.py",
    "papers/crawl/runner.py",
    "papers/crawl/bookkeeping.py",
)


def service_modules(root: Path = ROOT) -> Iterator[Path]:
    """The apps' `services.py` files, the modules of their `services/` packages, and papers'
    service modules (`PAPERS_SERVICES`, those that exist under `root`)."""
    for name in PAPERS_SERVICES:
        if (root / name).is_file():
            yield root / name
    for app in APPS:
        for path in sorted((root / app).rglob("*.py")):
            parts = path.relative_to(root).parts
            if "migrations" in parts:
                continue
            if path.name == "services.py" or "services" in parts[:-1]:
                yield path


def function_lengths(path: Path) -> Iterator[tuple[str, int]]:
    """Each function of the module (methods and nested ones too) and its length in lines,
    from its `def` to its last line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node.end_lineno - node.lineno + 1


def too_long(root: Path = ROOT) -> list[str]:
    found = []
    for path in service_modules(root):
        name = path.relative_to(root).as_posix()
        for function, lines in function_lengths(path):
            if lines > MAX_LINES:
                found.append(f"{name}: {function} has {lines} lines (at most {MAX_LINES})")
    return found


def test_the_walk_finds_the_services():
    names = {p.relative_to(ROOT).as_posix() for p in service_modules()}
    assert {"annotation/writing/services.py", "validation/services.py"} <= names
    assert "evaluation/services.py" in names
    assert set(PAPERS_SERVICES) <= names


def test_every_listed_papers_service_exists():
    """A renamed or moved module must be renamed here too, not silently left unread."""
    missing = [name for name in PAPERS_SERVICES if not (ROOT / name).is_file()]
    assert missing == []


def test_no_service_function_is_over_60_lines():
    assert too_long() == []


def test_a_long_function_is_named(tmp_path):
    app = tmp_path / "annotation" / "services"
    app.mkdir(parents=True)
    (app / "big.py").write_text("def big():\n" + "    x = 1\n" * MAX_LINES)
    (tmp_path / "annotation" / "services.py").write_text("def small():\n    return 1\n")
    assert too_long(tmp_path) == [
        f"annotation/services/big.py: big has {MAX_LINES + 1} lines (at most {MAX_LINES})"
    ]
