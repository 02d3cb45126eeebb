"""Session approval grants behind one interface (engine.policy.approval.GrantStore).

``serve`` keeps them in SQLite by default so that a grant survives a restart of the
process and several ``serve`` processes behind one load balancer see the same grants;
a shared store (a database server) implements the same two methods. A grant is
(tool, pattern key, scope): what one answer covers, never more (engine.policy.scope).
"""

from __future__ import annotations

import logging
import secrets
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
        self._secrets: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def granted(self, session_id: str, grants: set[Grant]) -> bool:
        with self._lock:
            return bool(grants) and grants <= self._grants.get(session_id, set())

    def grant(self, session_id: str, grants: set[Grant]) -> None:
        with self._lock:
            self._grants.setdefault(session_id, set()).update(grants)

    def secret(self, name: str) -> bytes:
        """A random key for ``name``, the same for every caller of this store (this process)."""
        with self._lock:
            return self._secrets.setdefault(name, secrets.token_bytes(32))


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
            db.execute("CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL)")
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

    def secret(self, name: str) -> bytes:
        """A random key for ``name``, the same for every process that shares this file (the first
        one written wins), such as the key of input_required answer tokens: a stateless client's
        retry may reach another ``serve`` process than the one that asked."""
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)", (name, secrets.token_bytes(32))
            )
            row = self._db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()
        value = row[0] if row else None
        if not isinstance(value, bytes) or len(value) < 32:  # a damaged row: this process's own key
            log.error(
                "the grants file %s holds no usable %s key; answers issued elsewhere will not count", self.path, name
            )
            return secrets.token_bytes(32)
        return value

    def close(self) -> None:
        with self._lock:
            self._db.close()
