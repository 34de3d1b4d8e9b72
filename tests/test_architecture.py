"""The pipeline runs one way: a module imports only its own app or a lower one, and no circles."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lowest first. A page that composes several stages lives in `workspace`, above them all.
PIPELINE = (
    "charts",
    "jobs",
    "papers",
    "annotation",
    "guidelines",
    "validation",
    "evaluation",
    "workspace",
    "config",
)


@dataclass(frozen=True)
class Import:
    """One edge of the module graph: `source` imports `target` at `path:line`."""

    source: str
    target: str
    path: str
    line: int


def module_files(root: Path, apps: Sequence[str]) -> dict[str, Path]:
    """Dotted module name -> file, for every .py of the apps, migrations left out."""
    modules: dict[str, Path] = {}
    for app in apps:
        for path in sorted((root / app).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if "migrations" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _resolve_relative(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of `from <level dots><name> import ...` written in `module`."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        package = package[: len(package) - (level - 1)]
    return ".".join([*package, name] if name else package)


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The project module `name` denotes: itself, or the longest enclosing module we know."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def imports_of(module: str, path: Path, modules: dict[str, Path], root: Path) -> list[Import]:
    """Every import in the file, wherever it sits (function bodies and TYPE_CHECKING included),
    that names a project module. `from pkg import name` imports `pkg.name` when that is a module,
    else `pkg` itself (its __init__); parent packages a dotted import runs are not edges, or every
    package whose __init__ re-exports its submodules would look like a circle."""
    tree = ast.parse(path.read_text(), filename=str(path))
    shown = str(path.relative_to(root))
    found: list[Import] = []

    def add(target: str | None, line: int) -> None:
        if target is not None and target != module:
            edge = Import(module, target, shown, line)
            if edge not in found:
                found.append(edge)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_known(alias.name, modules), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _resolve_relative(module, _is_package(path), node.level, node.module)
            else:
                base = node.module or ""
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in modules:
                    add(submodule, node.lineno)
                else:
                    add(_known(base, modules), node.lineno)
    return sorted(found, key=lambda e: (e.line, e.target))


def import_graph(root: Path, apps: Sequence[str]) -> tuple[list[str], list[Import]]:
    """The project's modules, and the imports among them."""
    modules = module_files(root, apps)
    edges = [
        edge for module, path in modules.items() for edge in imports_of(module, path, modules, root)
    ]
    return sorted(modules), edges


def upward_imports(edges: Iterable[Import], apps: Sequence[str]) -> list[str]:
    """One line per import of an app above the importer's."""
    rank = {app: i for i, app in enumerate(apps)}
    return [
        f"{e.path}:{e.line}: {e.source} imports {e.target}, "
        f"but {e.target.split('.')[0]} is above {e.source.split('.')[0]}"
        for e in edges
        if rank[e.target.split(".")[0]] > rank[e.source.split(".")[0]]
    ]


def _strongly_connected(nodes: Sequence[str], succ: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's components, iteratively (import chains can be long)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(succ.get(start, [])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(succ.get(child, []))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def _shortest_cycle(start: str, members: set[str], succ: dict[str, list[str]]) -> list[str]:
    """A shortest path start -> ... -> start inside one component (breadth first)."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in succ.get(node, []):
                if child not in members:
                    continue
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if child not in came_from:
                    came_from[child] = node
                    following.append(child)
        frontier = following
    return [start]


def import_cycles(nodes: Sequence[str], edges: Iterable[Import]) -> list[str]:
    """One report per circle of modules: its members, a shortest cycle, and where each step is."""
    edges = list(edges)
    succ: dict[str, list[str]] = {}
    for e in edges:
        succ.setdefault(e.source, [])
        if e.target not in succ[e.source]:
            succ[e.source].append(e.target)
    where: dict[tuple[str, str], list[str]] = {}
    for e in edges:
        where.setdefault((e.source, e.target), []).append(f"{e.path}:{e.line}")
    reports = []
    for component in _strongly_connected(nodes, succ):
        if len(component) < 2:
            continue
        members = set(component)
        cycle = _shortest_cycle(component[0], members, succ)
        steps = "\n".join(
            f"    {a} -> {b} ({where[(a, b)][0]})" for a, b in zip(cycle, cycle[1:], strict=False)
        )
        inside = "\n".join(
            f"    {a} -> {b}: {', '.join(lines)}"
            for (a, b), lines in sorted(where.items())
            if a in members and b in members
        )
        reports.append(
            f"circle among {', '.join(component)}; for instance:\n{steps}\n"
            f"  all imports inside it:\n{inside}"
        )
    return reports


def test_no_module_imports_a_higher_app() -> None:
    _, edges = import_graph(ROOT, PIPELINE)
    upward = upward_imports(edges, PIPELINE)
    assert not upward, "imports against the pipeline:\n" + "\n".join(upward)


def test_no_import_circles() -> None:
    nodes, edges = import_graph(ROOT, PIPELINE)
    cycles = import_cycles(nodes, edges)
    assert not cycles, "import circles:\n" + "\n".join(cycles)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_checker_reports_circles_and_upward_imports(tmp_path: Path) -> None:
    apps = ("low", "high")
    _write(
        tmp_path,
        {
            "low/__init__.py": "",
            "low/migrations/0001_initial.py": "import high.b\n",
            "low/a.py": "def f():\n    from high.b import thing\n",
            "low/models/__init__.py": "from low.models.x import X\nfrom .y import Y\n",
            # Re-exports alone are no circle; `low.models.y` reaching back through the package is.
            "low/models/x.py": "from low.models.y import Y\n",
            "low/models/y.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from low import models\n",
            "high/__init__.py": "",
            "high/b.py": "import high.c\n",
            "high/c.py": "from . import b\nfrom low import a\n",
            "high/sub/__init__.py": "",
            "high/sub/d.py": "from ..c import b as again\n",
        },
    )
    nodes, edges = import_graph(tmp_path, apps)
    assert "low.migrations.0001_initial" not in nodes
    assert ("high.sub.d", "high.c") in {(e.source, e.target) for e in edges}

    assert upward_imports(edges, apps) == [
        "low/a.py:2: low.a imports high.b, but high is above low"
    ]
    cycles = import_cycles(nodes, edges)
    assert len(cycles) == 2
    high_cycle = next(c for c in cycles if "high.b" in c)
    assert high_cycle.startswith("circle among high.b, high.c, low.a;")
    assert "high/c.py:1" in high_cycle
    models_cycle = next(c for c in cycles if "low.models" in c)
    assert models_cycle.startswith("circle among low.models, low.models.x, low.models.y;")
    assert "low/models/y.py:3" in models_cycle


def test_checker_accepts_reexports(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "low/__init__.py": "",
            "low/models/__init__.py": "from .x import X\nfrom low.models.y import Y\n",
            "low/models/x.py": "from low.models.y import Y\n",
            "low/models/y.py": "",
            "low/views.py": "from low.models import X\nfrom low import models\n",
        },
    )
    nodes, edges = import_graph(tmp_path, ("low",))
    assert import_cycles(nodes, edges) == []
    targets = {(e.source, e.target) for e in edges}
    assert ("low.views", "low.models") in targets
    assert ("low.models", "low.models.x") in targets


# -- tests import helpers, never each other -----------------------------------------------------


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
