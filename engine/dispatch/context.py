"""What a handler may know about the call it serves: ``ctx``.

A handler that declares a parameter named ``ctx`` receives a :class:`CallContext`.
Per-engine state (background processes, stores) lives in ``ctx.shared`` so
handler modules need no globals and two engines in one process stay apart.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from engine.config import Config

if TYPE_CHECKING:
    from engine.policy.paths import PathClassifier
    from engine.policy.programs import ProgramTable

T = TypeVar("T")
_KEPT = re.compile(r"[a-z0-9_-]")
_NAME_LIMIT = 100


def session_dirname(session_id: str | None) -> str:
    """The directory name of a session: distinct ids never share one.

    Everything but ``a-z 0-9 _ -`` is percent-encoded (so ``alice@corp`` and ``alice_corp``,
    ``Alice`` and ``alice`` on a case-insensitive disk, and ``..`` all stay apart); a long
    name keeps its start and ends in a hash after ``~``, which the encoding never produces.
    No session (None or "") is ``default``.
    """
    if not session_id:
        return "default"
    text = str(session_id)
    name = "".join(
        c if _KEPT.match(c) else "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass")) for c in text
    )
    if len(name) > _NAME_LIMIT:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        name = f"{name[:60]}~{digest}"
    return name


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
    # Classes of paths on this machine (``engine_files``, ``credential``...); file tools refuse
    # the engine's own files and judge where a path lands with it.
    paths: PathClassifier | None = None
    # The policy's Programs tables: which programs a background process started reads commands with
    # (session_memory.SessionMemory.started: ProgramTable.command_readers).
    programs: ProgramTable | None = None

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
        path = self.state_dir / "sessions" / session_dirname(self.session_id)
        path.mkdir(parents=True, exist_ok=True)
        return path


class ToolFailure(Exception):
    """Raise from a handler to fail the call with a clean message for the model."""

    def __init__(self, message: str, *, recoverable: bool = True, type: str = "tool_failure") -> None:
        super().__init__(message)
        self.message = message
        self.recoverable = recoverable
        self.type = type
