"""Running a batch of calls: concurrently where the manifests say it is safe.

A tool marked ``parallel_safe`` may run beside others. Calls with
``path_arguments`` (file tools) only run beside each other when none of their
resolved paths overlaps a path a *writer* (a tool not annotated read_only) in
the same group touches. Anything else is a barrier and runs alone, and so is a
call whose paths cannot be resolved. Arguments sent as JSON text are read once,
before grouping, so their paths count too. Results come back in call order, one
per call: an item that is not a call at all gets an error result of its own.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.dispatch.results import ToolResult, failure
from engine.registry.snapshot import Snapshot
from engine.toolsearch.meta import inner_call


@dataclass(frozen=True, slots=True)
class BatchCall:
    name: str
    args: Any
    tool_call_id: str | None = None


def as_batch_call(item: Any) -> BatchCall:
    """Accept (name, args), (name, args, id), {"name", "arguments"/"args", "id"} or a BatchCall.

    Raises:
        TypeError: ``item`` is none of those.
    """
    if isinstance(item, BatchCall):
        return item
    if isinstance(item, Mapping):
        args = item.get("arguments", item.get("args"))
        return BatchCall(str(item.get("name")), args, _call_id(item.get("id") or item.get("tool_call_id")))
    if isinstance(item, Sequence) and not isinstance(item, (str, bytes, bytearray)) and 2 <= len(item) <= 3:
        return BatchCall(str(item[0]), item[1], _call_id(item[2]) if len(item) == 3 else None)
    raise TypeError(f"a batch item must be (name, arguments[, id]) or a mapping, not {type(item).__name__}")


def _call_id(value: Any) -> str | None:
    return None if value is None else str(value)


_DECODER = json.JSONDecoder()  # what json.loads uses when given no options


def parse_arguments(raw: Any) -> tuple[Any, str | None]:
    """The model's raw arguments (JSON text or a mapping) → (value, problem)."""
    if raw is None:
        return {}, None
    if isinstance(raw, (bytes, bytearray)):
        raw = raw.decode("utf-8", errors="replace")
    if isinstance(raw, str):
        # The common case first: text that is exactly one JSON object, nothing around it. It is
        # what json.loads would return (same decoder) without json.loads's whitespace passes
        # (~1 us of a tool call). Anything else, errors included, takes the full path below.
        try:
            value, end = _DECODER.raw_decode(raw)
        except Exception:
            pass
        else:
            if end == len(raw) and type(value) is dict:
                return value, None
        if not raw.strip():
            return {}, None
        try:
            value = json.loads(raw)
        except RecursionError:
            return None, "the arguments are nested too deeply to read; send one flat JSON object"
        except ValueError as exc:
            return None, (
                f'the arguments are not valid JSON ({exc}); send one JSON object, e.g. {{"path": "README.md"}}'
            )
        if not isinstance(value, dict):
            return None, f"the arguments must be a JSON object, not a JSON {type(value).__name__}"
        return value, None
    return raw, None


def _read(item: Any) -> BatchCall:
    """A batch item with its JSON-text arguments already parsed (left as sent when they do not parse)."""
    call = as_batch_call(item)
    if isinstance(call.args, (str, bytes, bytearray)):
        args, problem = parse_arguments(call.args)
        if problem is None:
            return BatchCall(call.name, args, call.tool_call_id)
    return call


@dataclass(frozen=True, slots=True)
class _Access:
    parallel: bool
    writer: bool
    paths: tuple[Path, ...]


def _access(snap: Snapshot, call: BatchCall, workdir: Path) -> _Access:
    name = snap.canonical_tool(call.name)
    if name is None:
        inner = inner_call(call.name, call.args)
        if inner is not None:  # tool_call: planned as the call it wraps
            arguments, _ = parse_arguments(inner[1])
            return _access(snap, BatchCall(inner[0], arguments, call.tool_call_id), workdir)
        return _Access(True, False, ())  # fails fast without touching anything
    spec = snap.tools[name]
    paths: list[Path] = []
    args = call.args if isinstance(call.args, Mapping) else {}
    for arg in spec.path_arguments:
        value = args.get(arg)
        if value is None:
            value = (spec.parameters.get("properties") or {}).get(arg, {}).get("default")
        if isinstance(value, str) and value:
            try:
                candidate = Path(value).expanduser()
                if not candidate.is_absolute():
                    candidate = workdir / candidate
                paths.append(Path(os.path.realpath(candidate)))
            except (ValueError, OSError, RuntimeError):
                # A NUL byte, an unknown ~user: nobody can tell what it touches, so it runs alone.
                return _Access(False, True, ())
    return _Access(spec.parallel_safe, spec.annotations.read_only is not True, tuple(paths))


def _overlaps(a: Path, b: Path) -> bool:
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)


def _conflicts(access: _Access, group: list[_Access]) -> bool:
    for other in group:
        if not (access.writer or other.writer):
            continue
        if any(_overlaps(p, q) for p in access.paths for q in other.paths):
            return True
    return False


def plan_groups(snap: Snapshot, calls: Sequence[BatchCall], workdir: Path) -> list[list[int]]:
    """Consecutive calls that may run together, as lists of indexes."""
    groups: list[list[int]] = []
    current: list[int] = []
    current_access: list[_Access] = []
    for index, call in enumerate(calls):
        access = _access(snap, call, workdir)
        if not access.parallel:
            if current:
                groups.append(current)
            groups.append([index])
            current, current_access = [], []
            continue
        if _conflicts(access, current_access):
            groups.append(current)
            current, current_access = [], []
        current.append(index)
        current_access.append(access)
    if current:
        groups.append(current)
    return groups


def run_batch(
    snap: Snapshot,
    calls: Iterable[Any],
    workdir: Path,
    call: Callable[[BatchCall], ToolResult],
    max_workers: int = 8,
) -> list[ToolResult]:
    """One result per item of ``calls``, in order; ``call`` must not raise."""
    items: list[BatchCall] = []
    results: list[ToolResult | None] = []
    runnable: list[int] = []
    for index, item in enumerate(calls):
        try:
            items.append(_read(item))
        except TypeError as exc:
            items.append(BatchCall("", None))
            results.append(_unreadable(snap, index, exc))
            continue
        results.append(None)
        runnable.append(index)
    groups = [[runnable[i] for i in group] for group in plan_groups(snap, [items[i] for i in runnable], workdir)]
    with concurrent.futures.ThreadPoolExecutor(max(1, max_workers), thread_name_prefix="hermes-batch") as pool:
        for group in groups:
            if len(group) == 1:
                results[group[0]] = call(items[group[0]])
                continue
            futures = {pool.submit(call, items[i]): i for i in group}
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()
    return [r if r is not None else _unreadable(snap, i, None) for i, r in enumerate(results)]


def _unreadable(snap: Snapshot, index: int, exc: Exception | None) -> ToolResult:
    message = f"batch item {index} is not a call: {exc}" if exc else f"batch item {index} produced no result"
    return failure("invalid_call", message, recoverable=False, generation=snap.generation, started=0.0, now=0.0)
