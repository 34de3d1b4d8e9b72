"""Tests import helpers, never each other: fixtures come from conftest files by pytest's own
lookup, and shared helpers live in modules of their own (factories, tests/browser/pages.py, …).
(The layers of the apps and the absence of import circles are import-linter's contracts,
`.importlinter`, run by `make lint`.)"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _is_test_module(dotted: str) -> bool:
    last = dotted.rsplit(".", 1)[-1]
    return last == "conftest" or last.startswith("test_")


def imports_of_test_modules(root: Path) -> list[str]:
    """Every import under `root/tests` of a test module (`test_*.py`) or of a conftest.py, as
    `path:line imports name`: fixtures come from conftest files by pytest's own lookup, and
    shared helpers live in modules of their own (factories, tests/browser/pages.py, …)."""
    found = []
    tests = root / "tests"
    for path in sorted(tests.rglob("*.py")):
        package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")
                    parent = parent[: len(parent) - (node.level - 1)]
                    base = ".".join([*parent, *([base] if base else [])])
                names = [base] + [f"{base}.{alias.name}" for alias in node.names]
            for name in names:
                if name.startswith("tests.") and any(
                    _is_test_module(part) for part in name.split(".")[1:]
                ):
                    found.append(f"{path.relative_to(root)}:{node.lineno} imports {name}")
                    break
    return found


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    found = imports_of_test_modules(ROOT)
    assert not found, "\n".join(found)


def test_the_test_import_check_finds_every_form(tmp_path: Path) -> None:
    tests = tmp_path / "tests" / "a"
    tests.mkdir(parents=True)
    (tests / "test_one.py").write_text("X = 1\n")
    (tests / "helpers.py").write_text("Y = 2\n")
    (tests / "test_two.py").write_text(
        "from tests.a.test_one import X\n"
        "from tests.a import test_one\n"
        "import tests.a.test_one\n"
        "from .test_one import X\n"
        "from . import conftest\n"
        "from tests.a.conftest import fixture\n"
        "from tests.a.helpers import Y\n"
    )
    found = imports_of_test_modules(tmp_path)
    assert [line.split(" imports ")[0] for line in found] == [
        f"tests/a/test_two.py:{n}" for n in range(1, 7)
    ]
