"""Running a batch of calls: concurrently where the manifests say it is safe.

A tool marked ``parallel_safe`` may run beside others. Calls with
``path_arguments`` (file tools) only run beside each other when none of their
resolved paths overlaps a path a *writer* (a tool not annotated read_only) in
the same group touches. Anything else is a barrier and runs alone. Results come
back in call order.
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.dispatch.results import ToolResult
from engine.registry.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class BatchCall:
    name: str
    args: Any
    tool_call_id: str | None = None


def as_batch_call(item: Any) -> BatchCall:
    """Accept (name, args), (name, args, id), {"name", "arguments"/"args", "id"} or a BatchCall."""
    if isinstance(item, BatchCall):
        return item
    if isinstance(item, Mapping):
        args = item.get("arguments", item.get("args"))
        return BatchCall(str(item.get("name")), args, item.get("id") or item.get("tool_call_id"))
    if isinstance(item, Sequence) and not isinstance(item, str) and 2 <= len(item) <= 3:
        return BatchCall(str(item[0]), item[1], item[2] if len(item) == 3 else None)
    raise TypeError(f"cannot read a batch call from {item!r}")


@dataclass(frozen=True, slots=True)
class _Access:
    parallel: bool
    writer: bool
    paths: tuple[Path, ...]


def _access(snap: Snapshot, call: BatchCall, workdir: Path) -> _Access:
    name = snap.canonical_tool(call.name)
    if name is None:
        return _Access(True, False, ())  # fails fast without touching anything
    spec = snap.tools[name]
    paths: list[Path] = []
    args = call.args if isinstance(call.args, Mapping) else {}
    for arg in spec.path_arguments:
        value = args.get(arg)
        if value is None:
            value = (spec.parameters.get("properties") or {}).get(arg, {}).get("default")
        if isinstance(value, str) and value:
            candidate = Path(value).expanduser()
            if not candidate.is_absolute():
                candidate = workdir / candidate
            paths.append(Path(os.path.realpath(candidate)))
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
    items = [as_batch_call(c) for c in calls]
    results: list[ToolResult | None] = [None] * len(items)
    groups = plan_groups(snap, items, workdir)
    with concurrent.futures.ThreadPoolExecutor(max_workers, thread_name_prefix="hermes-batch") as pool:
        for group in groups:
            if len(group) == 1:
                results[group[0]] = call(items[group[0]])
                continue
            futures = {pool.submit(call, items[i]): i for i in group}
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()
    return [r for r in results if r is not None]
