"""Session approval grants behind one interface (engine.policy.approval.GrantStore).

``serve`` keeps them in SQLite by default so that a grant survives a restart of the
process and several ``serve`` processes behind one load balancer see the same grants;
a shared store (a database server) implements the same two methods. A grant is
(tool, pattern key, scope): what one answer covers, never more (engine.policy.scope).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path

from engine.policy.approval import Grant
from engine.state_files import keep_aside

log = logging.getLogger("hermes_engine.grants")


class MemoryGrantStore:
    """Grants held by this process only."""

    def __init__(self) -> None:
        self._grants: dict[str, set[Grant]] = {}
        self._lock = threading.Lock()

    def granted(self, session_id: str, grants: set[Grant]) -> bool:
        with self._lock:
            return bool(grants) and grants <= self._grants.get(session_id, set())

    def grant(self, session_id: str, grants: set[Grant]) -> None:
        with self._lock:
            self._grants.setdefault(session_id, set()).update(grants)


class SqliteGrantStore:
    """Grants in a SQLite file (WAL mode: several processes may read and write it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            # A damaged file is kept for inspection, never written over; grants start empty
            # (every answer is asked again: fail closed).
            kept = keep_aside(path)
            for extra in ("-wal", "-shm"):
                path.with_name(path.name + extra).unlink(missing_ok=True)
            log.error("the grants file %s is damaged (%s); kept as %s, starting with no grants", path, exc, kept)
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), timeout=10, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS grants (session TEXT NOT NULL, tool TEXT NOT NULL, key TEXT NOT NULL, "
                "scope TEXT NOT NULL, created REAL NOT NULL, PRIMARY KEY (session, tool, key, scope))"
            )
            db.execute("SELECT session, tool, key, scope, created FROM grants LIMIT 1").fetchall()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def granted(self, session_id: str, grants: set[Grant]) -> bool:
        if not grants:
            return False
        with self._lock:
            for tool, key, scope in grants:
                row = self._db.execute(
                    "SELECT 1 FROM grants WHERE session = ? AND tool = ? AND key = ? AND scope = ?",
                    (session_id, tool, key, scope),
                ).fetchone()
                if row is None:
                    return False
        return True

    def grant(self, session_id: str, grants: set[Grant]) -> None:
        now = time.time()
        with self._lock:
            self._db.executemany(
                "INSERT OR IGNORE INTO grants (session, tool, key, scope, created) VALUES (?, ?, ?, ?, ?)",
                [(session_id, tool, key, scope, now) for tool, key, scope in grants],
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()
