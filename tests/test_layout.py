"""The package layout: what may import what.

The Engine (engine.engine) sits on top: the call pipeline, the file watcher and tool search
are owned by it and depend on narrow protocols (CallHost, Reloadable, SearchHost), never on
the engine module. Checked twice: statically over every import the type checker follows
(TYPE_CHECKING blocks included), and by importing those modules in a fresh interpreter
where ``engine.engine`` cannot be imported at all.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "engine"
OWNED = ("engine.dispatch.pipeline", "engine.reload.watcher", "engine.toolsearch.service")


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every engine module ``name`` imports at module level or under TYPE_CHECKING (not in functions)."""
    out: set[str] = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    # `from engine import config` imports the module engine.config
                    out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
            for field in ("body", "orelse", "handlers", "finalbody"):
                child = getattr(node, field, None)
                if isinstance(child, list):
                    visit([c for c in child if isinstance(c, ast.stmt)])

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return {m for m in out if m in known and m != name}


def _graph() -> dict[str, set[str]]:
    known = _modules()
    graph = {name: _imports(name, path, known) for name, path in known.items()}
    for name in graph:  # importing a package's __init__ is not a dependency on its children
        graph[name] -= {p for p in graph if name.startswith(p + ".")}
    return graph


def _reachable(graph: dict[str, set[str]], start: str) -> dict[str, str]:
    """Every module reachable from ``start``, each with the module that first imported it."""
    seen = {start: ""}
    todo = [start]
    while todo:
        here = todo.pop()
        for there in sorted(graph[here]):
            if there not in seen:
                seen[there] = here
                todo.append(there)
    return seen


def _chain(seen: dict[str, str], end: str) -> str:
    chain = [end]
    while seen[chain[-1]]:
        chain.append(seen[chain[-1]])
    return " → ".join(reversed(chain))


def test_the_graph_sees_real_imports() -> None:
    """The checker itself can fail: it sees the engine importing the pipeline and the loader."""
    graph = _graph()
    assert "engine.dispatch.pipeline" in graph["engine.engine"]
    assert "engine.reload.watcher" in graph["engine.engine"]
    assert "engine.compile.loader" in graph["engine.engine"]
    assert "engine.config" in graph["engine.compile.loader"]  # `from engine import config as ...`


@pytest.mark.parametrize("module", OWNED)
def test_owned_modules_do_not_import_the_engine(module: str) -> None:
    graph = _graph()
    seen = _reachable(graph, module)
    assert "engine.engine" not in seen, f"import cycle: {_chain(seen, 'engine.engine')} → {module}"


def test_engine_module_is_in_no_import_cycle() -> None:
    graph = _graph()
    for module in _reachable(graph, "engine.engine"):
        if module == "engine.engine":
            continue
        seen = _reachable(graph, module)
        assert "engine.engine" not in seen, f"import cycle: engine.engine → {module} … {_chain(seen, 'engine.engine')}"


def test_no_package_named_build() -> None:
    """engine/build read as build output to people and tools; the compile pipeline lives in engine/compile."""
    assert not (PACKAGE / "build").exists()
    assert (PACKAGE / "compile" / "loader.py").is_file()


_BLOCKED = """
import sys, types
from pathlib import Path
root = Path(sys.argv[1])
# The package without its __init__ (which imports the Engine), and engine.engine unimportable.
pkg = types.ModuleType("engine")
pkg.__path__ = [str(root)]
sys.modules["engine"] = pkg
sys.modules["engine.engine"] = None
for name in sys.argv[2:]:
    __import__(name)
print("imported", len(sys.argv) - 2)
"""


def test_owned_modules_import_without_the_engine_module() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _BLOCKED, str(PACKAGE), *OWNED],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"imported {len(OWNED)}"
    # The control: the engine module itself cannot be imported that way.
    proc = subprocess.run(
        [sys.executable, "-c", _BLOCKED, str(PACKAGE), "engine.engine"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode != 0
    assert "engine.engine" in proc.stderr
