"""What a handler may know about the call it serves: ``ctx``.

A handler that declares a parameter named ``ctx`` receives a :class:`CallContext`.
Per-engine state (background processes, stores) lives in ``ctx.shared`` so
handler modules need no globals and two engines in one process stay apart.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from engine.config import Config

T = TypeVar("T")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class SharedState:
    """A per-engine namespace for handler state, created on first use."""

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get_or_create(self, key: str, factory: Callable[[], T]) -> T:
        item = self._items.get(key)
        if item is None:
            with self._lock:
                item = self._items.get(key)
                if item is None:
                    item = factory()
                    self._items[key] = item
        return item

    def values(self) -> list[Any]:
        return list(self._items.values())


class CallReporter(Protocol):
    """Where a call's progress goes, and how it learns that its caller gave up (an MCP client)."""

    def progress(self, done: float, total: float | None, message: str | None) -> None: ...

    @property
    def cancelled(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class CallContext:
    tool: str
    session_id: str | None
    task_id: str | None
    tool_call_id: str | None
    generation: int
    config: Config
    root: Path
    workdir: Path
    state_dir: Path
    shared: SharedState
    reporter: CallReporter | None = None
    # The session's runtime (engine.runtime.RuntimeRef) for a tool whose manifest names one.
    runtime: Any = None

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Report how far the call has got; sent to the caller when it asked for progress, else dropped."""
        if self.reporter is not None:
            self.reporter.progress(done, total, message)

    @property
    def cancelled(self) -> bool:
        """The caller cancelled this call: a long sync handler should stop and return."""
        return self.reporter is not None and self.reporter.cancelled

    def session_dir(self) -> Path:
        """A private directory for this session's state (created on demand)."""
        name = _UNSAFE.sub("_", self.session_id or "default")[:100] or "default"
        path = self.state_dir / "sessions" / name
        path.mkdir(parents=True, exist_ok=True)
        return path


class ToolFailure(Exception):
    """Raise from a handler to fail the call with a clean message for the model."""

    def __init__(self, message: str, *, recoverable: bool = True, type: str = "tool_failure") -> None:
        super().__init__(message)
        self.message = message
        self.recoverable = recoverable
        self.type = type
