"""The layout the code promises, checked on the source itself:

- ingest, recall and lifecycle never import each other; they meet in the store and the facade;
- nothing below the facade imports the facade or a front door (cli, rest, mcp_server);
- SQL lives in ``store/`` only;
- no function is longer than 60 lines;
- no module imports itself through others (no import circle), imports inside functions included;
- the model seams (``providers/``) stay small, at most 800 lines: model inference belongs to the
  libraries that own it; the README, a user's guide, at most 400 lines.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__import__("fleet_memory").__file__).parent
STAGES = {"ingest", "recall", "lifecycle"}
FRONT_DOORS = {"cli", "rest", "mcp_server"}
ABOVE = FRONT_DOORS | {"memory", "__init__"}  # the facade and the package's public face
SQL = re.compile(r"\b(SELECT\b[\s\S]*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)"
                 r"|ALTER\s+TABLE|pg_advisory)\b")
MAX_LINES = 60


def _modules() -> list[tuple[str, Path, ast.Module]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        out.append((".".join(parts), path, ast.parse(path.read_text(encoding="utf-8"))))
    return out


def _imports(name: str, tree: ast.Module) -> set[str]:
    """Absolute module paths (inside fleet_memory, dotted from the package) this module imports."""
    package = name.split(".")[:-1] if not name.endswith("__init__") else name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("fleet_memory"):
                target = node.module.removeprefix("fleet_memory").lstrip(".")
            else:
                continue
            found.add(target)
            found.update(f"{target}.{alias.name}".lstrip(".") for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("fleet_memory.") for a in node.names if a.name.startswith("fleet_memory."))
    return found


def _top(module: str) -> str:
    return module.split(".")[0] if module else "__init__"


def layering_violations(modules) -> list[str]:
    bad = []
    for name, _, tree in modules:
        mine = _top(name)
        for target in _imports(name, tree):
            theirs = _top(target)
            if mine in STAGES and theirs in STAGES and theirs != mine:
                bad.append(f"{name} imports {target}: ingest, recall and lifecycle never import each other")
            if mine not in ABOVE and theirs in ABOVE and target not in ("", "__init__"):
                bad.append(f"{name} imports {target}: nothing below the facade imports it or a front door")
    return sorted(set(bad))


def sql_outside_store(modules) -> list[str]:
    bad = []
    for name, _, tree in modules:
        if _top(name) == "store":
            continue
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                    and SQL.search(node.value)):
                bad.append(f"{name}:{node.lineno}: {node.value[:60]!r}")
    return bad


def long_functions(modules) -> list[str]:
    return [f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
            for name, _, tree in modules for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_LINES]


def _package_name(name: str) -> str:
    return "" if name == "__init__" else name.removesuffix(".__init__")


def _import_edges(name: str, tree: ast.Module, known: set[str]) -> set[str]:
    """The modules of fleet_memory one module imports: ``from a import b`` is an edge to ``a.b`` when
    that is a module, else to ``a`` (a package's ``__init__`` counts when a name comes from it)."""
    edges = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        found = _imports(name, ast.Module(body=[node], type_ignores=[]))
        if not found:
            continue  # outside fleet_memory
        if isinstance(node, ast.Import):
            edges |= found & known
            continue
        base = min(found, key=len)
        modules = {f for f in found if f != base and f in known}
        edges |= modules | ({base} if len(modules) < len(node.names) else set())
    return edges - {"", _package_name(name)}


def import_cycles(modules) -> list[list[str]]:
    """Every set of modules that import each other in a circle (strongly connected components of
    the import graph with more than one module, or a module importing itself)."""
    known = {_package_name(name) for name, _, _ in modules}
    graph = {_package_name(name): _import_edges(name, tree, known) & known for name, _, tree in modules}
    order, low, stack, cycles = {}, {}, [], []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            group = stack[stack.index(node):]
            del stack[stack.index(node):]
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return sorted(cycles)


def test_ingest_recall_and_lifecycle_are_independent_and_nothing_below_the_facade_imports_upwards():
    assert layering_violations(_modules()) == []


def test_sql_lives_in_the_store_only():
    assert sql_outside_store(_modules()) == []


def test_no_function_is_longer_than_sixty_lines():
    assert long_functions(_modules()) == []


def test_no_module_imports_itself_through_others():
    assert import_cycles(_modules()) == []


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_model_seams_and_the_readme_stay_small():
    providers = sum(_lines(p) for p in (PACKAGE / "providers").glob("*.py"))
    assert providers <= 800, f"providers/ has {providers} lines"
    readme = PACKAGE.parents[1] / "README.md"
    if readme.exists():  # a source checkout, not an installed wheel
        assert _lines(readme) <= 400, f"README.md has {_lines(readme)} lines"


def _fake(source: str, name: str) -> tuple[str, Path, ast.Module]:
    return name, Path(name), ast.parse(source)


@pytest.mark.parametrize("name, source", [
    ("lifecycle.consolidation", "from ..ingest.linking import link_units"),
    ("recall.search", "from fleet_memory.lifecycle import decay"),
    ("store.units", "from ..rest.app import create_app"),
    ("viz.graph", "from ..memory import FleetMemory"),
])
def test_the_layering_check_catches_a_break(name, source):
    assert layering_violations([_fake(source, name)])


def test_the_checks_catch_sql_and_long_functions_outside_the_store():
    assert sql_outside_store([_fake('q = "SELECT id FROM memory_units"', "recall.search")])
    assert not sql_outside_store([_fake('q = "SELECT id FROM memory_units"', "store.units")])
    body = "\n".join("    x = 1" for _ in range(MAX_LINES))
    assert long_functions([_fake(f"def f():\n{body}\n", "recall.search")])


def test_the_cycle_check_catches_a_circle_even_through_a_function_level_import():
    units = _fake("from .filters import UnitFilter\n\ndef f():\n    from .supersession import reopen\n",
                  "store.tables.units")
    supersession = _fake("from .units import UNIT_COLUMNS", "store.tables.supersession")
    filters = _fake("import re", "store.tables.filters")
    assert import_cycles([units, supersession, filters]) == [["store.tables.supersession", "store.tables.units"]]
    package = _fake("from .app import create_app", "rest.__init__")
    app = _fake("from . import agents\nfrom .schemas import Unit", "rest.app")
    leaves = [_fake("import json", n) for n in ("rest.agents", "rest.schemas")]
    assert import_cycles([package, app, *leaves]) == []  # a submodule taken from its package is no circle
    assert import_cycles([package, _fake("from ..rest import create_app", "rest.app")]) == [["rest", "rest.app"]]
