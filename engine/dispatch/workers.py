"""Threads for handlers that must not run on the caller's thread, and the calls still running.

A sync handler with a timeout runs on a worker thread the caller waits on; a thread cannot
be stopped, so a handler past its timeout keeps its thread until it returns. The pool
therefore grows instead of queueing: an idle thread is reused, otherwise a new one starts,
up to ``limit`` threads; past that a call is refused with :class:`Overloaded` (naming the
handlers that hold the threads) instead of waiting behind hung ones. Idle threads exit
after a while. :meth:`Workers.overdue` lists the calls (threads and async tasks) still
running past their deadline, for the host to see.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_LIMIT = 256
IDLE_SECONDS = 30.0


class Overloaded(Exception):
    """Every worker thread is taken; the call was not started."""


@dataclass(frozen=True, slots=True)
class RunningCall:
    """A call running in the background: on a worker thread, or as an async task."""

    label: str  # the tool (or hook) it serves
    started: float  # time.monotonic()
    deadline: float | None  # time.monotonic() past which it is overdue
    where: str  # the thread's name, or "async task"

    @property
    def overdue_seconds(self) -> float:
        return 0.0 if self.deadline is None else max(0.0, time.monotonic() - self.deadline)

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": self.label,
            "running_seconds": round(time.monotonic() - self.started, 3),
            "overdue_seconds": round(self.overdue_seconds, 3),
            "where": self.where,
        }


_local = threading.local()


def worker_loop() -> asyncio.AbstractEventLoop:
    """The calling worker thread's event loop, created on first use and closed when the thread exits."""
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None:
        loop = _local.loop = asyncio.new_event_loop()
    return loop


_Job = tuple[Callable[[], Any], concurrent.futures.Future[Any], str, float | None]


class _Worker:
    __slots__ = ("jobs", "pool", "thread")

    def __init__(self, pool: Workers, number: int) -> None:
        self.pool = pool
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name=f"hermes-call-{number}", daemon=True)

    def _loop(self) -> None:
        while True:
            try:
                job = self.jobs.get(timeout=self.pool.idle_seconds)
            except queue.Empty:
                if self.pool._retire(self):
                    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
                    if loop is not None:
                        loop.close()
                    return
                continue  # a job was handed over just as it timed out
            self.pool._run(job, self.thread.name)
            self.pool._rest(self)


class Workers:
    """A growing set of worker threads with a cap, and a register of what runs in the background."""

    def __init__(self, limit: int = DEFAULT_LIMIT, idle_seconds: float = IDLE_SECONDS) -> None:
        self.limit = limit
        self.idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._threads = 0
        self._numbers = itertools.count(1)
        self._running: dict[int, RunningCall] = {}
        self._tasks: dict[asyncio.Task[Any], RunningCall] = {}

    def submit(self, function: Callable[[], Any], label: str, timeout: float | None) -> concurrent.futures.Future[Any]:
        """Start ``function()`` on a worker thread.

        Raises:
            Overloaded: ``limit`` threads are busy.
        """
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        deadline = None if not timeout else time.monotonic() + timeout
        job: _Job = (function, future, label, deadline)
        with self._lock:
            if self._idle:
                self._idle.pop().jobs.put(job)
                return future
            if self._threads >= self.limit:
                raise Overloaded(self._busy_message())
            self._threads += 1
            worker = _Worker(self, next(self._numbers))
        worker.jobs.put(job)
        try:
            worker.thread.start()
        except RuntimeError as exc:  # the process cannot start another thread
            with self._lock:
                self._threads -= 1
            raise Overloaded(f"cannot start a worker thread: {exc}") from None
        return future

    def _run(self, job: _Job, where: str) -> None:
        function, future, label, deadline = job
        if not future.set_running_or_notify_cancel():
            return
        key = id(future)
        self._running[key] = RunningCall(label, time.monotonic(), deadline, where)
        try:
            future.set_result(function())
        except BaseException as exc:
            future.set_exception(exc)
        finally:
            del self._running[key]

    def _rest(self, worker: _Worker) -> None:
        with self._lock:
            self._idle.append(worker)

    def _retire(self, worker: _Worker) -> bool:
        with self._lock:
            if worker not in self._idle:
                return False
            self._idle.remove(worker)
            self._threads -= 1
            return True

    def _busy_message(self) -> str:
        late = Counter(r.label for r in self._running.copy().values() if r.overdue_seconds > 0)
        held = ", ".join(f"{label} x{n}" for label, n in late.most_common(5)) or "none"
        return (
            f"all {self.limit} handler threads are busy ({sum(late.values())} held by handlers past their "
            f"timeout: {held}); try again when they finish"
        )

    # -- async tasks that outlived their cancellation ----------------------------------

    def adopt(self, task: asyncio.Task[Any], label: str, started: float, deadline: float) -> None:
        """Keep a task that did not stop when cancelled listed (and referenced) until it ends."""
        self._tasks[task] = RunningCall(label, started, deadline, "async task")
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[Any]) -> None:
        self._tasks.pop(task, None)
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not log it as never retrieved

    # -- what the host can see --------------------------------------------------------------

    @property
    def threads(self) -> int:
        return self._threads

    def overdue(self) -> list[RunningCall]:
        """Calls still running past their deadline, longest overdue first."""
        everything = [*self._running.copy().values(), *self._tasks.copy().values()]
        calls = [r for r in everything if r.overdue_seconds > 0]
        return sorted(calls, key=lambda r: r.overdue_seconds, reverse=True)


_default: Workers | None = None
_default_lock = threading.Lock()


def default_workers() -> Workers:
    """The process-wide pool for bounded calls made outside an engine's dispatch (judges, callbacks)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Workers()
        return _default
