"""Running handlers: sync inline, async bridged, both under an optional timeout.

- A sync handler runs on the calling thread (no hop) unless it has a timeout,
  which needs a worker thread to wait on.
- An async handler runs on a persistent event loop owned by the calling thread;
  when the calling thread already runs a loop (a sync call from async code), it
  runs on a helper thread's loop instead, since a loop cannot be re-entered.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any


class CallTimeout(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"the handler did not finish within {seconds:g}s")
        self.seconds = seconds


_local = threading.local()
_helper_lock = threading.Lock()
_helper: tuple[asyncio.AbstractEventLoop, threading.Thread] | None = None
_workers: concurrent.futures.ThreadPoolExecutor | None = None


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        _local.loop = loop
    return loop


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


def run_coroutine(coro: Coroutine[Any, Any, Any], timeout: float | None) -> Any:
    """Run ``coro`` to completion from synchronous code.

    Raises:
        CallTimeout: ``timeout`` elapsed (the coroutine is cancelled).
    """
    if timeout:
        coro = _bounded(coro, timeout)
    if _in_running_loop():
        future = asyncio.run_coroutine_threadsafe(coro, _helper_loop())
        return future.result()
    return _thread_loop().run_until_complete(coro)


async def _bounded(coro: Coroutine[Any, Any, Any], timeout: float) -> Any:
    try:
        return await asyncio.wait_for(coro, timeout)
    except TimeoutError:
        raise CallTimeout(timeout) from None


def _worker_pool() -> concurrent.futures.ThreadPoolExecutor:
    global _workers
    with _helper_lock:
        if _workers is None:
            _workers = concurrent.futures.ThreadPoolExecutor(32, thread_name_prefix="hermes-call")
        return _workers


def run_sync(function: Callable[..., Any], kwargs: dict[str, Any], timeout: float | None) -> Any:
    """Call a sync handler; with a timeout it runs on a worker thread we wait on.

    Raises:
        CallTimeout: ``timeout`` elapsed. The worker thread cannot be stopped and
            finishes in the background; its result is discarded.
    """
    if not timeout:
        return function(**kwargs)
    future = _worker_pool().submit(function, **kwargs)
    try:
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        raise CallTimeout(timeout) from None


def call_bounded(function: Callable[..., Any], kwargs: dict[str, Any], timeout: float | None) -> Any:
    """Call a sync or async callable from sync code, bounded by ``timeout`` (hooks, judges, approvers).

    Raises:
        CallTimeout: it did not return in time.
        Exception: whatever it raised.
    """
    if asyncio.iscoroutinefunction(function):
        return run_coroutine(function(**kwargs), timeout)
    result = run_sync(function, kwargs, timeout)
    if asyncio.iscoroutine(result):  # a sync wrapper handing back a coroutine
        return run_coroutine(result, timeout)
    return result


async def run_async(function: Callable[..., Any], kwargs: dict[str, Any], is_async: bool, timeout: float | None) -> Any:
    """Call a handler from async code: coroutines awaited, sync functions in a thread."""
    if is_async:
        if timeout:
            return await _bounded(function(**kwargs), timeout)
        return await function(**kwargs)
    call = asyncio.to_thread(function, **kwargs)
    if timeout:
        return await _bounded(call, timeout)
    return await call
