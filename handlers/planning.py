"""Default providers for todo and memory: per-session JSON files in the state dir.

A host may register its own provider for either tool on the Engine; these run
only when it did not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from filelock import FileLock

from engine.dispatch.context import CallContext, ToolFailure

from ._io import atomic_write

_STATUSES = ("pending", "in_progress", "completed", "cancelled")
_MAX_MEMORY_ENTRY = 4000


def _load(path: Path, default: Any) -> Any:
    if not path.exists():
        return default
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        message = f"the stored state at {path} is unreadable ({exc}); move it aside"
        raise ToolFailure(message, recoverable=False) from None


def _lock(path: Path) -> FileLock:
    return FileLock(str(path) + ".lock", timeout=10)


def _summary(items: list[dict[str, Any]]) -> dict[str, Any]:
    counts = {s: sum(1 for i in items if i["status"] == s) for s in _STATUSES}
    return {"todos": items, "summary": counts}


def todo(ctx: CallContext, todos: list[dict[str, Any]] | None = None, merge: bool = False) -> dict[str, Any]:
    path = ctx.session_dir() / "todo.json"
    with _lock(path):
        items: list[dict[str, Any]] = _load(path, [])
        if todos is None:
            return _summary(items)
        ids = [t["id"] for t in todos]
        if len(set(ids)) != len(ids):
            raise ToolFailure("todo ids must be unique")
        if merge:
            by_id = {i["id"]: i for i in items}
            for item in todos:
                by_id[item["id"]] = {**by_id.get(item["id"], {}), **item}
            items = list(by_id.values())
        else:
            items = [dict(t) for t in todos]
        atomic_write(path, json.dumps(items, ensure_ascii=False, indent=1))
    return _summary(items)


def memory(
    action: str,
    ctx: CallContext,
    content: str | None = None,
    old_text: str | None = None,
) -> dict[str, Any]:
    path = ctx.session_dir() / "memory.json"
    with _lock(path):
        entries: list[str] = _load(path, [])
        if action == "list":
            return {"entries": entries}
        if action == "add":
            if not content:
                raise ToolFailure("add needs content")
            if len(content) > _MAX_MEMORY_ENTRY:
                raise ToolFailure(f"an entry holds at most {_MAX_MEMORY_ENTRY} characters")
            if content in entries:
                return {"entries": entries, "message": "already stored"}
            entries.append(content)
        elif action in ("replace", "remove"):
            if not old_text:
                raise ToolFailure(f"{action} needs old_text")
            hits = [i for i, e in enumerate(entries) if old_text in e]
            if len(hits) != 1:
                raise ToolFailure(f"old_text matches {len(hits)} entries; it must match exactly one")
            if action == "remove":
                entries.pop(hits[0])
            else:
                if not content:
                    raise ToolFailure("replace needs content")
                entries[hits[0]] = entries[hits[0]].replace(old_text, content)
        else:
            raise ToolFailure(f"unknown action {action!r}")
        atomic_write(path, json.dumps(entries, ensure_ascii=False, indent=1))
    return {"entries": entries}
