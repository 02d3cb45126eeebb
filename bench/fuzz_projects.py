"""Fuzzing `validate` with mutated projects: the builtin pack and the test projects.

Each run copies a seed project once, then for every example mutates one to three of its
YAML files (or its config), loads it the way `hermes-engine validate` does, and puts the
files back. A mutation is structural (a key deleted, a value swapped for another type, a
huge number, deep nesting, random unicode, extra documents) or textual (bytes inserted,
cut or repeated, invalid UTF-8, deep flow collections, alias chains, tabs).

What must hold (checked by :func:`judge`):
- loading never raises (the CLI's exit 3) and takes a bounded time;
- every error is located: a real file of the project (or the builtin pack), line and
  column >= 1;
- a project that validates also lists its tools, renders its definitions and judges a
  command (a config value that validates must be usable).

Shared by tests/test_fuzz_projects.py (a few hundred projects) and bench/bench_robust.py
(10,000).
"""

from __future__ import annotations

import itertools
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
REPO = Path(__file__).resolve().parent.parent
PROJECTS = REPO / "tests" / "projects"
HANG_SECONDS = 10.0
_HUGE = [10**400, -(10**400), 2**63, -(2**63) - 1, 1e308, -1e308, 5e-324, 0, -1, 1, 10**30]
_WEIRD_TEXT = [
    "",
    " ",
    "\u202etxt.exe",
    "💥" * 50,
    "a\u0000b",
    "\t",
    "x" * 5000,
    "${{ 7*7 }}",
    "{{ config }}",
    "../../etc/passwd",
    "~",
    "null",
    "off",
    "Tool",
    "handlers.files:read_file",
    "os:system",
    "subprocess",
    "*",
]


def seeds() -> list[Path]:
    """The builtin pack and every test project; the valid ones more often, since a mutation
    that keeps a project valid is the one that can reach `list` and `call`."""
    good = sorted(p for p in (PROJECTS / "good").iterdir() if p.is_dir())
    bad = sorted(p for p in (PROJECTS / "bad").iterdir() if p.is_dir())
    return [REPO, *good, REPO, *good, *bad]


@dataclass
class Outcome:
    seed: str
    index: int
    seconds: float
    crashed: str | None = None  # what escaped (the CLI's exit 3)
    unlocated: list[str] = field(default_factory=list)
    valid: bool = False

    @property
    def hung(self) -> bool:
        return self.seconds > HANG_SECONDS


class Workspace:
    """One working copy per seed project; the files a run mutates are put back after it."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="hermes-fuzz-projects-"))
        self._copies: dict[Path, Path] = {}

    def copy(self, seed: Path) -> Path:
        target = self._copies.get(seed)
        if target is None:
            target = self.tmp / f"p{len(self._copies)}"
            ignore = shutil.ignore_patterns(
                ".git", ".ci*", ".hermes-engine", ".state", "__pycache__", "tests", "bench", "engine", "docs"
            )
            shutil.copytree(seed, target, ignore=ignore)
            if seed == REPO:  # the builtin pack, as a project of its own
                (target / "hermes-engine.yaml").write_text("include_builtin: false\nhandler_roots: [handlers]\n")
            self._copies[seed] = target
        return target

    def close(self) -> None:
        # The copies' handler packages must not shadow a later load of the same projects.
        copies = [str(p) for p in self._copies.values()]
        sys.path[:] = [p for p in sys.path if p not in copies]
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(str(self.tmp)):
                del sys.modules[name]
        shutil.rmtree(self.tmp, ignore_errors=True)


def _files(root: Path) -> list[Path]:
    found = [p for d in ("manifests", "toolsets", "policies") for p in sorted((root / d).rglob("*.y*ml"))]
    return [*found, root / "hermes-engine.yaml"]


# -- structural mutations ---------------------------------------------------------------


def _paths(value: Any, prefix: tuple[Any, ...] = (), depth: int = 0) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if depth > 8:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key), depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*prefix, i), depth + 1)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 2 else 6)
    if kind == 0:
        return rng.choice(_HUGE)
    if kind == 1:
        return rng.choice(_WEIRD_TEXT)
    if kind == 2:
        return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x80, 0x2FFFF)])) for _ in range(8))
    if kind == 3:
        return rng.choice([None, True, False])
    if kind == 4:
        return rng.uniform(-1e6, 1e6)
    if kind == 5:
        return rng.choice(["a", "tool", "main", 7])
    if kind == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 7:
        return {rng.choice(["kind", "name", "a", "type", "patterns", "match"]): _random_value(rng, depth + 1)}
    nested: Any = rng.choice([1, "x", None])
    for _ in range(rng.randrange(2, 120)):
        nested = [nested] if rng.random() < 0.5 else {"k": nested}
    return nested


def _edge(rng: random.Random, value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return rng.choice(_HUGE)
    if isinstance(value, str):
        return rng.choice([*_WEIRD_TEXT, value * rng.randrange(2, 50), value.upper(), value + "\u0301"])
    if isinstance(value, list):
        return value * rng.randrange(0, 4)
    return value


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return doc


def _delete(doc: Any, path: tuple[Any, ...]) -> Any:
    if not path:
        return None
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    return doc


def _mutate_documents(rng: random.Random, docs: list[Any]) -> list[Any]:
    if not docs or rng.random() < 0.1:
        docs.append(_random_value(rng))
        return docs
    i = rng.randrange(len(docs))
    doc = docs[i]
    path = rng.choice(list(itertools.islice(_paths(doc), 5000)))  # an alias bomb expands without end
    op = rng.randrange(9)
    if op >= 7:  # the same type, an edge value: the mutation most likely to still validate
        docs[i] = _set(doc, path, _edge(rng, _get(doc, path)))
    elif op == 0:
        docs[i] = _delete(doc, path)
    elif op == 1:
        docs[i] = _set(doc, path, _random_value(rng))
    elif op == 2:
        docs[i] = _set(doc, path, rng.choice(_HUGE))
    elif op == 3:  # rename a key
        if path and isinstance(path[-1], str):
            parent = doc
            for step in path[:-1]:
                parent = parent[step]
            parent[rng.choice(["kind", "name", "x" + path[-1], path[-1].upper(), ""])] = parent.pop(path[-1])
    elif op == 4:
        docs.insert(
            rng.randrange(len(docs) + 1),
            rng.choice([None, "text", [1], {}, dict(doc) if isinstance(doc, dict) else doc]),
        )
    elif op == 5:  # the same value under another type
        docs[i] = _set(doc, path, rng.choice([[doc], str(path), {"v": 1}, 1, "1", None]))
    else:
        docs[i] = _set(doc, path, rng.choice(_WEIRD_TEXT))
    return docs


def _config_keys() -> list[tuple[str, ...]]:
    from engine.config import CONFIG_SCHEMA

    keys: list[tuple[str, ...]] = []
    for key, rule in CONFIG_SCHEMA.items():
        keys.append((key,))
        keys.extend((key, sub) for sub in (rule.get("schema") or {}) if rule.get("type") == "dict")
    return keys


def _set_config_key(rng: random.Random, docs: list[Any]) -> list[Any]:
    """A known config key set to an edge value of its own kind, or of another."""
    if not docs or not isinstance(docs[0], dict):
        docs = [{}]
    config = docs[0]
    path = rng.choice(_config_keys())
    if len(path) == 2 and not isinstance(config.get(path[0]), dict):
        config[path[0]] = {}
    value = rng.choice([rng.choice(_HUGE), _random_value(rng), [rng.choice(_WEIRD_TEXT)], rng.choice(_WEIRD_TEXT)])
    _set(config, path, value)
    return docs


def _structural(rng: random.Random, text: bytes, is_config: bool = False) -> bytes | None:
    try:
        docs = list(yaml.load_all(text, Loader=_Loader))
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    docs = _set_config_key(rng, docs) if is_config and rng.random() < 0.6 else _mutate_documents(rng, docs)
    try:
        dumped = yaml.dump_all(docs, Dumper=_Dumper, allow_unicode=rng.random() < 0.5, sort_keys=False)
    except (yaml.YAMLError, ValueError, RecursionError, TypeError):
        return None
    return str(dumped).encode("utf-8", "surrogatepass")


# -- textual mutations ---------------------------------------------------------------------


def _textual(rng: random.Random, text: bytes) -> bytes:
    at = rng.randrange(len(text) + 1)
    op = rng.randrange(10)
    if op == 0:
        return (
            text[:at]
            + "".join(chr(rng.randrange(1, 0x10FFFF)) for _ in range(rng.randrange(1, 6))).encode(
                "utf-8", "surrogatepass"
            )
            + text[at:]
        )
    if op == 1:
        return text[:at] + text[at + rng.randrange(1, 200) :]
    if op == 2:
        end = min(len(text), at + rng.randrange(1, 400))
        return text[:end] + text[at:end] * rng.randrange(2, 20) + text[end:]
    if op == 3:
        return text[:at] + bytes([rng.randrange(0x80, 0x100) for _ in range(3)]) + text[at:]
    if op == 4:
        n = rng.randrange(50, 5000)
        return text + b"\n---\n" + rng.choice([b"[" * n + b"]" * n, b"{a: " * n + b"}" * n, b"- " * n + b"x"])
    if op == 5:
        chain = b"a0: &a0 [x, x, x, x]\n" + b"".join(
            b"a%d: &a%d [*a%d, *a%d, *a%d, *a%d]\n" % (i, i, i - 1, i - 1, i - 1, i - 1) for i in range(1, 12)
        )
        return text + b"\n---\n" + chain
    if op == 6:
        return text[:at]
    if op == 7:
        return text.replace(b"  ", b"\t", rng.randrange(1, 4))
    if op == 8:
        return b"\xef\xbb\xbf" + text + b"\n---\n" + text
    return (
        text[:at]
        + rng.choice([b"\n---\n", b": :", b"&x ", b"*nope", b"!!python/object:os.system ", b"<<: *x\n", b"%YAML 9\n"])
        + text[at:]
    )


def mutate(rng: random.Random, root: Path) -> list[tuple[Path, bytes | None]]:
    """Mutate one to three files of ``root``; returns what to restore."""
    files = _files(root)
    touched: list[tuple[Path, bytes | None]] = []
    count = rng.choice([1, 1, 1, 2, 3])
    chosen = rng.sample(files, min(len(files), count))
    if rng.random() < 0.3:  # the config is one file among many, but every value in it matters
        chosen = [root / "hermes-engine.yaml"]
    for path in chosen:
        original = path.read_bytes() if path.exists() else None
        text = original or b""
        mutated = _structural(rng, text, path.name == "hermes-engine.yaml") if rng.random() < 0.7 else None
        if mutated is None:
            mutated = _textual(rng, text)
        touched.append((path, original))
        path.write_bytes(mutated)
    return touched


def restore(touched: list[tuple[Path, bytes | None]]) -> None:
    for path, original in reversed(touched):
        if original is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(original)


# -- judging one project ---------------------------------------------------------------------


def judge(root: Path, seed: str, index: int) -> Outcome:
    """Load ``root`` as validate does, then use it when it validates; nothing may escape."""
    from engine.compile.loader import ProjectLoader
    from engine.engine import Engine
    from engine.errors import UsageError

    started = time.perf_counter()
    outcome = Outcome(seed, index, 0.0)
    try:
        loader = ProjectLoader(root, pin="report")
        result = loader.load()
        for problem in result.problems:
            if not _located(problem, root):
                outcome.unlocated.append(problem.format())
        if result.ok:
            outcome.valid = True
            engine = Engine(loader, result)
            engine.list_tools()
            engine.definitions()
            engine.check("ls -la")
    except UsageError as exc:
        outcome.crashed = f"UsageError: {exc}"
    except Exception as exc:
        outcome.crashed = f"{type(exc).__name__}: {exc}"
    outcome.seconds = time.perf_counter() - started
    return outcome


def _located(problem: Any, root: Path) -> bool:
    if problem.line < 1 or problem.column < 1:
        return False
    if problem.file.startswith("<builtin>/"):
        return True
    return not problem.file.startswith("<") and (root / problem.file).exists()


def run(count: int, seed: int = 0) -> Iterator[Outcome]:
    """``count`` mutated projects, round-robin over the seeds, reproducible from ``seed``."""
    workspace = Workspace()
    sources = seeds()
    try:
        for index in range(count):
            rng = random.Random(seed * 1_000_003 + index)
            source = sources[index % len(sources)]
            root = workspace.copy(source)
            touched = mutate(rng, root)
            try:
                yield judge(root, source.name, index)
            finally:
                restore(touched)
    finally:
        workspace.close()


def baseline() -> dict[str, float]:
    """Seconds to judge each seed project as it is (the yardstick for its mutations), by name."""
    workspace = Workspace()
    try:
        return {source.name: judge(workspace.copy(source), source.name, -1).seconds for source in seeds()}
    finally:
        workspace.close()
