"""Running handlers: sync inline, async bridged, both under an optional timeout.

- A sync handler runs on the calling thread (no hop) unless it has a timeout, which
  needs a worker thread to wait on (:mod:`engine.dispatch.workers`).
- An async handler runs on a persistent event loop owned by the calling thread; when
  the calling thread already runs a loop (a sync call from async code), it runs on a
  helper thread's loop instead, since a loop cannot be re-entered.
- A timeout holds whatever the handler does with it: at the deadline an async handler
  is cancelled and given ``GRACE_SECONDS`` to stop; then the call is reported as timed
  out even if the handler swallowed the cancellation (it stays listed as overdue until
  it ends). A sync handler's thread cannot be stopped; it is listed the same way.
- What a handler raises never crosses a task or a future as itself: asyncio re-raises
  SystemExit out of the loop that runs the task, throws a GeneratorExit that resolves
  a future into every coroutine awaiting it, and refuses StopIteration. A carrier
  exception takes it across, and the original is raised again on the caller's side.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

from engine.dispatch.workers import Workers, default_workers, worker_loop

GRACE_SECONDS = 0.5


class CallTimeout(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"the handler did not finish within {seconds:g}s")
        self.seconds = seconds


class _Raised(Exception):
    """Carries what a handler raised across a task or future boundary."""

    def __init__(self, raised: BaseException) -> None:
        super().__init__(type(raised).__name__)
        self.raised = raised


_local = threading.local()
_helper_lock = threading.Lock()
_helper: tuple[asyncio.AbstractEventLoop, threading.Thread] | None = None


class _OwnLoop:
    """A thread's own event loop, closed when the thread ends and its locals are dropped
    (batch threads come and go; an unclosed loop leaks its self-pipe sockets)."""

    __slots__ = ("loop",)

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __del__(self) -> None:
        if not self.loop.is_running():
            self.loop.close()


def _thread_loop() -> asyncio.AbstractEventLoop:
    own: _OwnLoop | None = getattr(_local, "own", None)
    if own is None or own.loop.is_closed():
        own = _local.own = _OwnLoop()
    return own.loop


def _helper_loop() -> asyncio.AbstractEventLoop:
    global _helper
    with _helper_lock:
        if _helper is None or not _helper[1].is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="hermes-async-helper", daemon=True)
            thread.start()
            _helper = (loop, thread)
        return _helper[0]


def _in_running_loop() -> bool:
    # The non-raising probe: asyncio.get_running_loop() costs an exception when there is none.
    return asyncio._get_running_loop() is not None


def _call_carried(function: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    try:
        return function(**kwargs)
    except BaseException as exc:
        raise _Raised(exc) from None


async def _carried(coro: Coroutine[Any, Any, Any]) -> Any:
    try:
        return await coro
    except asyncio.CancelledError:
        raise  # a task must still end as cancelled
    except BaseException as exc:
        raise _Raised(exc) from None


async def _bounded(coro: Coroutine[Any, Any, Any], timeout: float, workers: Workers, label: str) -> Any:
    """Run ``coro`` as a task; at ``timeout`` cancel it and, after a grace, give up on it.

    Raises:
        CallTimeout: the deadline passed, whether or not the task has stopped.
        _Raised: what the coroutine raised.
    """
    started = time.monotonic()
    task = asyncio.ensure_future(_carried(coro))
    try:
        done, _ = await asyncio.wait((task,), timeout=timeout)
        if not done:
            task.cancel()
            done, _ = await asyncio.wait((task,), timeout=GRACE_SECONDS)
            if done:
                _retrieve(task)
            else:
                workers.adopt(task, label, started, started + timeout)
            raise CallTimeout(timeout)
    except asyncio.CancelledError:
        task.cancel()  # the caller is cancelled: so is the call
        raise
    return task.result()


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Take a finished task's exception so asyncio does not log it as never retrieved."""
    if not task.cancelled():
        task.exception()


def run_coroutine(
    coro: Coroutine[Any, Any, Any], timeout: float | None, workers: Workers | None = None, label: str = "handler"
) -> Any:
    """Run ``coro`` to completion from synchronous code.

    With a timeout it runs on a worker thread's loop, so the deadline holds even if the
    handler blocks its loop or ignores its cancellation.

    Raises:
        CallTimeout: ``timeout`` elapsed (the coroutine was cancelled).
        Overloaded: no worker thread is free and no more may be started.
        BaseException: whatever the coroutine raised.
    """
    try:
        if timeout:
            pool = workers or default_workers()
            future = pool.submit(functools.partial(_run_on_this_thread, coro, timeout), label, timeout)
            done, _ = concurrent.futures.wait((future,), timeout=timeout + GRACE_SECONDS)
            if not done:
                raise CallTimeout(timeout)  # the worker goes on running it, listed as overdue
            return future.result()
        if _in_running_loop():
            # A SystemExit escaping a task ends the loop that runs it: the helper's must keep running.
            return asyncio.run_coroutine_threadsafe(_carried(coro), _helper_loop()).result()
        return _thread_loop().run_until_complete(coro)
    except _Raised as carrier:
        raise _original(carrier) from None


def _run_on_this_thread(coro: Coroutine[Any, Any, Any], timeout: float) -> Any:
    """On a worker thread: run ``coro``, cancel it at ``timeout``, and wait for it to end.

    Raises:
        CallTimeout: the deadline passed (the caller may have stopped waiting already).
        _Raised: what the coroutine raised.
    """
    loop = worker_loop()
    task = loop.create_task(_carried(coro))
    expired: list[bool] = []

    def expire() -> None:
        expired.append(True)
        task.cancel()

    timer = loop.call_later(timeout, expire)
    try:
        loop.run_until_complete(asyncio.wait((task,)))
    finally:
        timer.cancel()
    if expired:
        _retrieve(task)
        raise CallTimeout(timeout)
    return task.result()


def _original(carrier: _Raised) -> BaseException:
    raised = carrier.raised
    while isinstance(raised, _Raised):
        raised = raised.raised
    return raised


def run_sync(
    function: Callable[..., Any],
    kwargs: dict[str, Any],
    timeout: float | None,
    workers: Workers | None = None,
    label: str = "handler",
) -> Any:
    """Call a sync handler; with a timeout it runs on a worker thread we wait on.

    Raises:
        CallTimeout: ``timeout`` elapsed. The worker thread cannot be stopped and
            finishes in the background (listed as overdue); its result is discarded.
        Overloaded: no worker thread is free and no more may be started.
    """
    if not timeout:
        return function(**kwargs)
    future = (workers or default_workers()).submit(functools.partial(function, **kwargs), label, timeout)
    done, _ = concurrent.futures.wait((future,), timeout=timeout)
    if not done:
        raise CallTimeout(timeout)
    return future.result()


def call_bounded(
    function: Callable[..., Any],
    kwargs: dict[str, Any],
    timeout: float | None,
    workers: Workers | None = None,
    label: str = "callback",
) -> Any:
    """Call a sync or async callable from sync code, bounded by ``timeout`` (hooks, judges, approvers).

    Raises:
        CallTimeout: it did not return in time.
        Exception: whatever it raised.
    """
    if asyncio.iscoroutinefunction(function):
        return run_coroutine(function(**kwargs), timeout, workers, label)
    result = run_sync(function, kwargs, timeout, workers, label)
    if asyncio.iscoroutine(result):  # a sync wrapper handing back a coroutine
        return run_coroutine(result, timeout, workers, label)
    return result


async def run_async(
    function: Callable[..., Any],
    kwargs: dict[str, Any],
    is_async: bool,
    timeout: float | None,
    workers: Workers,
    label: str = "handler",
) -> Any:
    """Call a handler from async code: coroutines awaited, sync functions on a worker thread.

    Raises:
        CallTimeout: ``timeout`` elapsed.
        Overloaded: no worker thread is free and no more may be started.
        BaseException: whatever the handler raised.
    """
    try:
        if is_async:
            if timeout:
                return await _bounded(function(**kwargs), timeout, workers, label)
            return await function(**kwargs)
        future = asyncio.wrap_future(workers.submit(functools.partial(_call_carried, function, kwargs), label, timeout))
        if not timeout:
            return await future
        done, _ = await asyncio.wait((future,), timeout=timeout)
        if not done:
            future.add_done_callback(_retrieve)  # it ends later; what it raises is nobody's to log
            raise CallTimeout(timeout)
        return future.result()
    except _Raised as carrier:
        raise _original(carrier) from None
