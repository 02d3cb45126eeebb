"""The live runtimes of one engine: one per (runtime, session), started on first use,
closed when idle for the runtime's ``idle_timeout`` and all closed with the engine."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from engine.runtime.base import Runtime, RuntimeUnavailable, Session
from engine.runtime.loop import LoopThread
from engine.runtime.registry import LOCAL, RuntimeSpec, RuntimeTypes


@dataclass(slots=True)
class _Live:
    spec: RuntimeSpec
    runtime: Runtime
    last_used: float
    busy: int = 0
    processes: list[Any] = field(default_factory=list)  # background handles: alive ones keep it open


class RuntimeManager:
    """Runtimes by (name, session). Thread-safe; :meth:`close` ends everything it started."""

    def __init__(self, types: RuntimeTypes, clock: Any = time.monotonic) -> None:
        self.types = types
        self._clock = clock
        self._live: dict[tuple[str, str], _Live] = {}
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._sweeper: threading.Thread | None = None
        self._closed = False
        self.loop = LoopThread()
        self._reaped: list[tuple[str, str]] = []  # (runtime, session) closed as idle, newest last

    # -- availability --------------------------------------------------------------------

    def check(self, spec: RuntimeSpec) -> str | None:
        """Why ``spec`` cannot work here (None: it can)."""
        kind = self.types.get(spec.type)
        if kind is None:
            return f"runtime type {spec.type!r} is not registered"
        try:
            return kind.check(spec.settings)
        except Exception as exc:  # a plugin's check must not take the engine down
            return f"the {spec.type} runtime check raised {type(exc).__name__}: {exc}"

    # -- use -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def use(self, spec: RuntimeSpec, session: Session) -> Iterator[Runtime]:
        """The session's runtime for ``spec``, started; it is not reaped while in use.

        Raises:
            RuntimeUnavailable: the runtime cannot start (the reason says why).
        """
        live = self._acquire(spec, session)
        try:
            yield live.runtime
        finally:
            with self._lock:
                live.busy -= 1
                live.last_used = self._clock()
                self._wake.notify_all()

    def _acquire(self, spec: RuntimeSpec, session: Session) -> _Live:
        key = (spec.name, session.session_id)
        stale: Runtime | None = None
        with self._lock:
            if self._closed:
                raise RuntimeUnavailable("the engine is closed")
            live = self._live.get(key)
            if live is not None and live.spec != spec:
                stale, live = live.runtime, None  # the manifest changed on reload
                del self._live[key]
            if live is None:
                kind = self.types.get(spec.type)
                if kind is None:
                    raise RuntimeUnavailable(f"runtime type {spec.type!r} is not registered")
                runtime = kind.create(spec.name, spec.settings, _with_loop(session, self.loop))
                live = self._live[key] = _Live(spec, runtime, self._clock())
            live.busy += 1
        if stale is not None:
            stale.close()
        try:
            reason = None if spec.type == LOCAL else self.check(spec)
            if reason:
                raise RuntimeUnavailable(reason)
            live.runtime.start()
        except BaseException:
            with self._lock:
                live.busy -= 1
            raise
        self._ensure_sweeper()
        return live

    def track(self, spec: RuntimeSpec, session: Session, process: Any) -> None:
        """Keep the runtime open while ``process`` (a background handle) is alive."""
        with self._lock:
            live = self._live.get((spec.name, session.session_id))
            if live is not None:
                live.processes = [p for p in live.processes if p.is_alive()] + [process]

    def live(self) -> list[tuple[str, str]]:
        """(runtime, session) of every open runtime."""
        with self._lock:
            return list(self._live)

    # -- idle sweeping ---------------------------------------------------------------------

    def _ensure_sweeper(self) -> None:
        with self._lock:
            if self._sweeper is None and not self._closed:
                self._sweeper = threading.Thread(target=self._sweep, name="hermes-runtime-idle", daemon=True)
                self._sweeper.start()

    def _sweep(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                now = self._clock()
                due: list[tuple[tuple[str, str], _Live]] = []
                wait = 60.0
                for key, live in self._live.items():
                    if live.busy or any(p.is_alive() for p in live.processes):
                        continue
                    left = live.last_used + live.spec.idle_timeout - now
                    if left <= 0:
                        due.append((key, live))
                    else:
                        wait = min(wait, left)
                for key, _ in due:
                    del self._live[key]
                if not due:
                    # A background process may end at any time: look again within a few seconds.
                    self._wake.wait(min(wait, 5.0))
                    continue
            for key, live in due:
                live.runtime.close()
                with self._lock:
                    self._reaped.append(key)
                    self._wake.notify_all()

    def wait_reaped(self, name: str, session_id: str, timeout: float) -> bool:
        """Wait until the idle sweeper has closed that runtime (for tests and hosts)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while (name, session_id) not in self._reaped:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._wake.wait(left)
            return True

    # -- the end ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close every runtime (containers removed, connections dropped, processes ended)."""
        with self._lock:
            self._closed = True
            lives = list(self._live.values())
            self._live.clear()
            self._wake.notify_all()
            sweeper = self._sweeper
        for live in lives:
            with contextlib.suppress(Exception):
                live.runtime.close()
        if sweeper is not None:
            sweeper.join(10)
        self.loop.close()


def _with_loop(session: Session, loop: LoopThread) -> Session:
    return replace(session, loop=loop)


@dataclass(frozen=True, slots=True)
class RuntimeRef:
    """What a handler gets as ``ctx.runtime``: its session's runtime, started on first use."""

    spec: RuntimeSpec
    session: Session
    manager: RuntimeManager

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def is_local(self) -> bool:
        return self.spec.type == LOCAL

    @property
    def shares_host_files(self) -> bool:
        """Whether its files are the host's (local, sandbox): then the host's path rules apply."""
        kind = self.manager.types.get(self.spec.type)
        return kind is not None and kind.runtime_class.shares_host_files

    def use(self) -> contextlib.AbstractContextManager[Runtime]:
        """``with ctx.runtime.use() as rt: rt.exec(...)``.

        Raises:
            RuntimeUnavailable: it cannot start (the reason says why).
        """
        return self.manager.use(self.spec, self.session)

    def track(self, process: Any) -> None:
        """Keep the runtime open (not idle) while a background ``process`` lives."""
        self.manager.track(self.spec, self.session, process)
