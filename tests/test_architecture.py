"""Rooms of one job (issue 46): no module of `papers/` grows past MAX_LINES lines, so a module
that takes on a second job is split along its seams instead. (The apps' layers and the absence
of import circles are import-linter's contracts, `.importlinter`, run by `make lint`.)"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 600


def modules_over(package: Path, limit: int) -> list[str]:
    """Every Python module under `package` with more than `limit` lines, as `path: N lines`."""
    found = []
    for path in sorted(package.rglob("*.py")):
        with path.open("rb") as handle:
            lines = sum(1 for _ in handle)
        if lines > limit:
            found.append(f"{path.relative_to(package.parent)}: {lines} lines")
    return found


def test_no_module_of_papers_is_over_600_lines() -> None:
    over = modules_over(ROOT / "papers", MAX_LINES)
    assert not over, f"split these along their seams (at most {MAX_LINES} lines):\n" + "\n".join(
        over
    )


def test_the_size_check_finds_a_long_module_anywhere_below(tmp_path: Path) -> None:
    package = tmp_path / "papers"
    (package / "inner").mkdir(parents=True)
    (package / "short.py").write_text("x = 1\n" * 600)
    (package / "inner" / "long.py").write_text("x = 1\n" * 601)
    assert modules_over(package, MAX_LINES) == ["papers/inner/long.py: 601 lines"]
