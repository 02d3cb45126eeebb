"""The audit log: one JSON line per decision, each hash-chained to the one before.

Editing or deleting a line breaks the chain from there on; :func:`verify` finds
the first broken line. Appends are serialised across processes by a file lock.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
MAX_FIELD = 2000
_SECRETS = re.compile(
    r"(sk-[A-Za-z0-9_-]{16,}|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_\w+|xox[abpr]-[\w-]+|AKIA[0-9A-Z]{16}"
    r"|(?i:bearer|token|password|passwd|secret|api[_-]?key)\s*[:=]\s*\S+|://[^/\s:@]+:[^/\s@]+@)"
)


def redact(text: str) -> str:
    """Mask values that look like credentials before they are written down."""
    return _SECRETS.sub("[redacted]", text)[:MAX_FIELD]


def _digest(previous: str, record: dict[str, Any]) -> str:
    body = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256((previous + body).encode("utf-8")).hexdigest()


def _last_hash(path: Path) -> tuple[str, int]:
    if not path.exists() or path.stat().st_size == 0:
        return GENESIS, 0
    with open(path, "rb") as handle:
        handle.seek(max(0, path.stat().st_size - 65536))
        tail = handle.read().splitlines()
    last = json.loads(tail[-1])
    return str(last["hash"]), int(last.get("seq", 0))


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        from filelock import FileLock  # noqa: PLC0415

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path) + ".lock", timeout=10):
            previous, seq = _last_hash(self.path)
            entry = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "seq": seq + 1, **record, "prev": previous}
            entry["hash"] = _digest(previous, entry)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        return entry


def verify(path: Path) -> int | None:
    """The 1-based number of the first line whose chain is broken, or None if all hold."""
    previous = GENESIS
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                entry = json.loads(line)
            except ValueError:
                return number
            claimed = entry.pop("hash", None)
            if entry.get("prev") != previous or _digest(previous, entry) != claimed:
                return number
            previous = str(claimed)
    return None
