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

import collections
import concurrent.futures
import functools
import json
import os
import threading
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


BATCH_THREADS = 64


class BatchPool:
    """The threads an engine runs batches on: started as needed, at most ``limit``, kept for the
    next batch, stopped by :meth:`close` (``Engine.close``).

    A batch never waits for one of these threads: the calling thread runs calls of its group
    too, and helpers only take calls nobody has started. So a batch makes progress when every
    thread is busy (other batches, a handler that calls ``call_batch`` itself), and after
    :meth:`close` a batch still runs, on the calling thread alone.
    """

    def __init__(self, limit: int = BATCH_THREADS) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._closed = False

    def submit(self, function: Callable[[], None]) -> bool:
        """Run ``function`` on a pool thread when one is free; False once the pool is closed."""
        with self._lock:
            if self._closed:
                return False
            if self._executor is None:
                self._executor = concurrent.futures.ThreadPoolExecutor(self.limit, thread_name_prefix="hermes-batch")
            try:
                self._executor.submit(function)
            except RuntimeError:  # the interpreter is shutting down
                return False
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


def _run_group(
    pool: BatchPool,
    call: Callable[[BatchCall], ToolResult],
    items: list[BatchCall],
    group: list[int],
    results: list[ToolResult | None],
    width: int,
) -> None:
    """Run the calls of one group, at most ``width`` at a time: the caller and up to width-1 helpers."""
    todo = collections.deque(group)
    lock = threading.Lock()
    done = threading.Event()
    left = [len(group)]
    failed: list[BaseException] = []

    def work(helper: bool) -> None:
        while True:
            try:
                index = todo.popleft()
            except IndexError:
                return
            try:
                results[index] = call(items[index])
            except BaseException as exc:  # `call` does not raise; should it, the caller raises it
                if not helper:
                    raise
                failed.append(exc)
            finally:
                with lock:
                    left[0] -= 1
                    if not left[0]:
                        done.set()

    for _ in range(min(width, len(group)) - 1):
        if not pool.submit(functools.partial(work, True)):
            break
    work(False)
    done.wait()  # helpers still running the group's last calls
    if failed:
        raise failed[0]


def run_batch(
    snap: Snapshot,
    calls: Iterable[Any],
    workdir: Path,
    call: Callable[[BatchCall], ToolResult],
    max_workers: int = 8,
    pool: BatchPool | None = None,
) -> list[ToolResult]:
    """One result per item of ``calls``, in order; ``call`` must not raise.

    ``pool`` is the engine's (a pool of its own, closed on return, without one).
    """
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
    own = pool is None
    threads = BatchPool() if pool is None else pool
    try:
        for group in groups:
            if len(group) == 1:
                results[group[0]] = call(items[group[0]])
            else:
                _run_group(threads, call, items, group, results, max(1, max_workers))
    finally:
        if own:
            threads.close()
    return [r if r is not None else _unreadable(snap, i, None) for i, r in enumerate(results)]


def _unreadable(snap: Snapshot, index: int, exc: Exception | None) -> ToolResult:
    message = f"batch item {index} is not a call: {exc}" if exc else f"batch item {index} produced no result"
    return failure("invalid_call", message, recoverable=False, generation=snap.generation, started=0.0, now=0.0)
