"""Per-session state of the tool search: which toolsets a session may reach, what it found.

Both are bounded: a session's catalog keeps the most recently found tools (the
oldest are forgotten first; calling one again asks for a new search), and the
engine keeps the most recently active sessions.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

MAX_SESSIONS = 10_000

# (enabled, disabled) as Engine.definitions takes them; (None, ()) is the config's choice.
Scope = tuple[tuple[str, ...] | None, tuple[str, ...]]
DEFAULT_SCOPE: Scope = (None, ())


def scope_of(enabled: Iterable[str] | None, disabled: Iterable[str] | None) -> Scope:
    return (None if enabled is None else tuple(enabled), () if disabled is None else tuple(disabled))


@dataclass(slots=True)
class Session:
    scope: Scope = DEFAULT_SCOPE
    found: OrderedDict[str, None] = field(default_factory=OrderedDict)
    forgotten: int = 0  # tools dropped because the catalog was full
    # No catalog can outlive a request (stateless serve): every tool in scope counts as found.
    stateless: bool = False


class Sessions:
    """Every session's scope and catalog; thread-safe."""

    def __init__(self, max_sessions: int = MAX_SESSIONS) -> None:
        self._sessions: OrderedDict[str | None, Session] = OrderedDict()
        self._lock = threading.Lock()
        self.max_sessions = max_sessions

    def _get(self, session_id: str | None) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            session = self._sessions[session_id] = Session()
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(session_id)
        return session

    def bind(self, session_id: str | None, scope: Scope, stateless: bool = False) -> None:
        """Limit a session to the toolsets it was offered (its catalog is kept when the scope is the same).

        ``stateless``: the session lasts one request (stateless HTTP serve), so a tool found by one
        request cannot be remembered for the next; tool_call reaches any tool in scope instead.
        """
        with self._lock:
            session = self._get(session_id)
            session.stateless = stateless
            if session.scope != scope:
                session.scope = scope
                session.found.clear()

    def scope(self, session_id: str | None) -> Scope:
        with self._lock:
            session = self._sessions.get(session_id)
            return DEFAULT_SCOPE if session is None else session.scope

    def add(self, session_id: str | None, names: Iterable[str], limit: int) -> None:
        """Add found tools to a session's catalog, keeping at most ``limit`` (the most recent)."""
        with self._lock:
            session = self._get(session_id)
            for name in names:
                session.found[name] = None
                session.found.move_to_end(name)
            while len(session.found) > limit:
                session.found.popitem(last=False)
                session.forgotten += 1

    def has(self, session_id: str | None, name: str) -> bool:
        with self._lock:
            session = self._sessions.get(session_id)
            return session is not None and (session.stateless or name in session.found)

    def forget(self, session_id: str | None, name: str) -> None:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None:
                session.found.pop(name, None)

    def catalog(self, session_id: str | None) -> list[str]:
        with self._lock:
            session = self._sessions.get(session_id)
            return [] if session is None else list(session.found)

    def forgotten(self, session_id: str | None) -> int:
        with self._lock:
            session = self._sessions.get(session_id)
            return 0 if session is None else session.forgotten
