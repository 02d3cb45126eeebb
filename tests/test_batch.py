"""The batch runner's seams: reading the model's arguments, and the engine's one batch pool."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Engine
from engine.dispatch.batch import parse_arguments

# What parse_arguments answered before its fast path for one plain JSON object: json.loads.
TRICKY = [
    '{"text": "hello"}',
    ' {"a": 1}',
    '{"a": 1} ',
    '\n{"a": 1}\n',
    '\ufeff{"a": 1}',
    '{"a": 1}{"b": 2}',
    '{"a": 1} x',
    '{"a": NaN, "b": Infinity}',
    '{"a": 1, "a": 2}',
    '{"a": "\\ud800"}',
    '{"n": 123456789012345678901234567890}',
    "[1, 2]",
    '"text"',
    "null",
    "",
    "   ",
    "{",
    "{}",
    '{"a": ' * 100_000,
    "[" * 100_000 + "]" * 100_000,
]


def reference(raw: str) -> tuple[Any, bool]:
    """(value, ok) as json.loads reads the text, the way parse_arguments did before."""
    if not raw.strip():
        return {}, True
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None, False
    return (value, True) if isinstance(value, dict) else (None, False)


def same(raw: str) -> None:
    value, problem = parse_arguments(raw)
    expected, ok = reference(raw)
    assert (problem is None) == ok, raw[:80]
    if ok:
        assert json.dumps(value, sort_keys=True) == json.dumps(expected, sort_keys=True)
        assert type(value) is dict


@pytest.mark.parametrize("raw", TRICKY, ids=range(len(TRICKY)))
def test_the_fast_path_reads_every_text_as_json_loads_does(raw: str) -> None:
    same(raw)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=40),
        st.builds(
            lambda value, before, after: before + json.dumps(value) + after,
            st.dictionaries(st.text(max_size=5), st.one_of(st.integers(), st.text(max_size=5), st.none())),
            st.sampled_from(["", " ", "\n", "x", "{"]),
            st.sampled_from(["", " ", "\t", "}", "1"]),
        ),
    )
)
def test_the_fast_path_agrees_with_json_loads_on_any_text(raw: str) -> None:
    same(raw)


# -- the engine's batch pool ----------------------------------------------------------

HANDLERS = """
import threading

STATE = {"barrier": None, "active": 0, "peak": 0, "threads": [], "engine": None}
LOCK = threading.Lock()


def meet(name: str) -> str:
    with LOCK:
        STATE["active"] += 1
        STATE["peak"] = max(STATE["peak"], STATE["active"])
        STATE["threads"].append(threading.current_thread())
    try:
        STATE["barrier"].wait()
    finally:
        with LOCK:
            STATE["active"] -= 1
    return name


def nest(name: str) -> str:
    results = STATE["engine"].call_batch([("meet", {"name": name + "1"}), ("meet", {"name": name + "2"})])
    return ",".join(r.output for r in results)
"""

MANIFEST = """
kind: Tool
name: meet
toolset: t
description: Wait for the others at the barrier.
handler: bp_handlers:meet
parallel_safe: true
parameters: {type: object, properties: {name: {type: string}}, required: [name]}
---
kind: Tool
name: nest
toolset: t
description: A batch inside a batch.
handler: bp_handlers:nest
parallel_safe: true
parameters: {type: object, properties: {name: {type: string}}, required: [name]}
"""


@pytest.fixture
def pooled(tool_project: Callable[[str, str, str], Path]) -> Iterator[tuple[Engine, dict[str, Any]]]:
    engine = Engine.load(tool_project("bp_handlers", HANDLERS, MANIFEST))
    import bp_handlers  # type: ignore[import-not-found]

    state: dict[str, Any] = bp_handlers.STATE
    state["engine"] = engine
    try:
        yield engine, state
    finally:
        engine.close()


def batch_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("hermes-batch")]


def test_a_batch_runs_max_workers_calls_at_once_and_answers_in_call_order(
    pooled: tuple[Engine, dict[str, Any]],
) -> None:
    engine, state = pooled
    # Six calls that only get past the barrier six at a time: all six run at once.
    state["barrier"] = threading.Barrier(6, timeout=10)
    results = engine.call_batch([("meet", {"name": f"n{i}"}) for i in range(6)], max_workers=6)
    assert [r.output for r in results] == [f"n{i}" for i in range(6)]
    assert state["peak"] == 6
    # Never more than max_workers: three at a time, twice.
    state["barrier"], state["peak"] = threading.Barrier(3, timeout=10), 0
    results = engine.call_batch([("meet", {"name": f"m{i}"}) for i in range(6)], max_workers=3)
    assert [r.output for r in results] == [f"m{i}" for i in range(6)]
    assert state["peak"] == 3


def test_batches_reuse_the_engines_threads_and_close_stops_them(pooled: tuple[Engine, dict[str, Any]]) -> None:
    engine, state = pooled
    state["barrier"] = threading.Barrier(2, timeout=10)
    for i in range(10):
        results = engine.call_batch([("meet", {"name": f"a{i}"}), ("meet", {"name": f"b{i}"})])
        assert [r.output for r in results] == [f"a{i}", f"b{i}"]
    # A pool per batch would have started ten helper threads; the engine's keeps one (or two,
    # should a batch begin before the last one's helper was back).
    helpers = {id(t) for t in state["threads"] if t is not threading.current_thread()}
    assert 1 <= len(helpers) <= 3
    alive = batch_threads()
    assert alive
    engine.close()
    for thread in alive:
        thread.join(timeout=10)
    assert not any(t.is_alive() for t in alive)
    # A closed engine's batch still answers every call, on the calling thread.
    state["barrier"] = threading.Barrier(1, timeout=10)
    assert [r.output for r in engine.call_batch([("meet", {"name": "x"}), ("meet", {"name": "y"})])] == ["x", "y"]
    assert batch_threads() == []


def test_a_batch_inside_a_batch_completes_when_every_pool_thread_is_busy(
    pooled: tuple[Engine, dict[str, Any]],
) -> None:
    engine, state = pooled
    engine._batch_pool.limit = 1  # one helper thread for everything: the outer batch takes it
    state["barrier"] = threading.Barrier(1, timeout=10)
    results = engine.call_batch([("nest", {"name": "p"}), ("nest", {"name": "q"})])
    assert [r.output for r in results] == ["p1,p2", "q1,q2"]
