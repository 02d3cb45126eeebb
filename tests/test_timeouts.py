"""Timeouts that hold: a handler past its deadline is reported at the deadline (plus a grace)
whatever it does with its cancellation; hung handlers are counted, listed and never starve
other tools; past the thread cap a call is a clear error."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine import Engine
from engine.dispatch.invoke import GRACE_SECONDS

BRIEF = 0.3  # the timeout of give_brief / agive_brief in the chaos project
# Scheduling noise on a loaded 2-CPU CI machine: generous, since the handlers these bounds are about never
# end until told (a call that waited for one would never return, not return late).
SLACK = 10.0


@pytest.fixture
def load(project_copy: Any) -> Iterator[Callable[..., Engine]]:
    root = project_copy("good/chaos")
    engines: list[Engine] = []

    def make(**config: Any) -> Engine:
        engine = Engine.load(root, config=config or None)
        engines.append(engine)
        return engine

    make()  # the first load puts the project's handler package on the import path
    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def outcomes(load: Callable[..., Engine]) -> dict[str, Any]:
    import chaos_handlers  # type: ignore[import-not-found]

    chaos_handlers.OUTCOMES.clear()
    return chaos_handlers.OUTCOMES  # type: ignore[no-any-return]


def _until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Wait for ``condition`` with a bound (an event that nothing sets is the clock)."""
    tick = threading.Event()
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        tick.wait(0.01)
    return True


def _stubborn(stop: threading.Event, finished: threading.Event) -> Callable[[], Any]:
    async def stubborn() -> str:
        while not stop.is_set():
            with contextlib.suppress(asyncio.CancelledError):  # swallowed: the handler refuses to stop
                await asyncio.sleep(0.02)
        finished.set()
        return "late"

    return stubborn


def test_an_async_handler_swallowing_its_cancellation_is_a_timeout_at_the_deadline(
    load: Callable[..., Engine], outcomes: dict[str, Any]
) -> None:
    engine = load()
    stop, finished = threading.Event(), threading.Event()
    outcomes["x"] = _stubborn(stop, finished)
    started = time.monotonic()
    result = engine.call("agive_brief", {"key": "x"})
    elapsed = time.monotonic() - started
    assert result.error is not None and result.error.type == "timeout", result.output
    assert BRIEF <= elapsed < BRIEF + GRACE_SECONDS + SLACK
    [overdue] = engine.overdue_calls()
    assert overdue.label == "agive_brief" and overdue.overdue_seconds > 0
    assert engine.call("agive_brief", {}).output == "ok"  # the stubborn one holds its own thread only
    stop.set()
    assert finished.wait(10)
    assert _until(lambda: not engine.overdue_calls())


def test_acall_reports_a_swallowed_cancellation_as_a_timeout_and_lists_the_task(
    load: Callable[..., Engine], outcomes: dict[str, Any]
) -> None:
    engine = load()
    stop, finished = threading.Event(), threading.Event()
    outcomes["x"] = _stubborn(stop, finished)

    async def host() -> None:
        started = time.monotonic()
        result = await engine.acall("agive_brief", {"key": "x"})
        elapsed = time.monotonic() - started
        assert result.error is not None and result.error.type == "timeout", result.output
        assert BRIEF <= elapsed < BRIEF + GRACE_SECONDS + SLACK
        assert [c.where for c in engine.overdue_calls()] == ["async task"]
        stop.set()
        while not finished.is_set():
            await asyncio.sleep(0.01)
        await asyncio.sleep(0)
        assert engine.overdue_calls() == []

    asyncio.run(host())


def test_hung_sync_handlers_are_listed_and_never_starve_other_tools(
    load: Callable[..., Engine], outcomes: dict[str, Any]
) -> None:
    engine = load()
    release = threading.Event()
    outcomes["hang"] = lambda: "released" if release.wait(60) else "gave up"
    try:
        hung = engine.call_batch([("give_brief", {"key": "hang"})] * 40, max_workers=40)
        assert [r.error.type if r.error else None for r in hung] == ["timeout"] * 40
        assert len(engine.overdue_calls()) == 40
        for _ in range(3):
            assert engine.call("give_brief", {}).output == "ok"
            assert engine.call("agive_brief", {}).output == "ok"
    finally:
        release.set()
    assert _until(lambda: not engine.overdue_calls())


def test_past_the_thread_cap_a_call_is_an_overloaded_error_naming_the_hung_tool(
    load: Callable[..., Engine], outcomes: dict[str, Any]
) -> None:
    engine = load(max_handler_threads=3)
    release = threading.Event()
    outcomes["hang"] = lambda: "released" if release.wait(60) else "gave up"
    try:
        engine.call_batch([("give_brief", {"key": "hang"})] * 3, max_workers=3)
        refused = engine.call("give_brief", {})
        assert refused.error is not None and refused.error.type == "overloaded"
        assert "all 3 handler threads are busy" in refused.error.message
        assert "give_brief x3" in refused.error.message
        assert engine.call("give", {}).output == "ok"  # untimed sync handlers run on the caller's thread
    finally:
        release.set()
    assert _until(lambda: engine.workers.threads == 0 or not engine.overdue_calls())
    assert engine.call("give_brief", {}).output == "ok"


def test_acall_of_a_hung_sync_handler_times_out_without_blocking_the_hosts_loop(
    load: Callable[..., Engine], outcomes: dict[str, Any]
) -> None:
    engine = load()
    release = threading.Event()
    outcomes["hang"] = lambda: "released" if release.wait(60) else "gave up"

    async def host() -> None:
        ticks = 0

        async def heartbeat() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        beat = asyncio.ensure_future(heartbeat())
        started = time.monotonic()
        result = await engine.acall("give_brief", {"key": "hang"})
        elapsed = time.monotonic() - started
        beat.cancel()
        assert result.error is not None and result.error.type == "timeout"
        assert BRIEF <= elapsed < BRIEF + SLACK
        assert ticks >= 5  # the loop kept running while the handler hung

    try:
        asyncio.run(host())
    finally:
        release.set()


def test_a_handler_raising_timeout_error_itself_is_its_error_not_a_timeout(
    load: Callable[..., Engine], outcomes: dict[str, Any]
) -> None:
    engine = load()
    outcomes["x"] = TimeoutError("upstream timed out")
    result = engine.call("give_brief", {"key": "x"})
    assert result.error is not None and result.error.type == "handler_error"
    assert result.error.message == "TimeoutError: upstream timed out"
