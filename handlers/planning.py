"""Default providers for todo and memory: per-session JSON files in the state dir.

A host may register its own provider for either tool on the Engine; these run
only when it did not.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from filelock import FileLock

from engine.dispatch.context import CallContext, ToolFailure

from ._io import atomic_write

_STATUSES = ("pending", "in_progress", "completed", "cancelled")
_MAX_MEMORY_ENTRY = 4000
_MAX_ITEMS = 1000  # todo items, memory entries
_MAX_FILE_BYTES = 4 * 1024 * 1024


def _is_todo_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, dict)
        and isinstance(item.get("id"), str)
        and isinstance(item.get("content"), str)
        and item.get("status") in _STATUSES
        for item in value
    )


def _is_memory(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(entry, str) for entry in value)


def _load(path: Path, what: str, valid: Callable[[Any], bool]) -> Any:
    """The stored state, checked; a file that is not what this tool wrote is moved aside.

    Raises:
        ToolFailure: (not recoverable) the file could not be read, or held something else;
            it is kept as ``<name>.corrupt-N`` and the next call starts afresh.
    """
    try:
        with path.open("rb") as handle:
            data = handle.read(_MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ToolFailure(f"the stored {what} at {path} cannot be read ({exc.strerror})", recoverable=False) from None
    problem = None
    if len(data) > _MAX_FILE_BYTES:
        problem = f"it is larger than {_MAX_FILE_BYTES} bytes"
    else:
        try:
            value = json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            problem = f"it is not JSON ({exc})"
        else:
            if valid(value):
                return value
            problem = f"it holds a JSON {type(value).__name__} that is not a {what}"
    kept = _set_aside(path)
    raise ToolFailure(
        f"the stored {what} at {path} is damaged: {problem}. It was moved to {kept.name} (nothing was "
        "overwritten); the next call starts with an empty one",
        recoverable=False,
    )


def _set_aside(path: Path) -> Path:
    for n in itertools.count(1):
        target = path.with_name(f"{path.name}.corrupt-{n}")
        try:
            os.link(path, target)  # never replaces an earlier .corrupt-N
        except FileExistsError:
            continue
        except OSError:  # no hard links here: a rename that might race is still better than nothing
            if target.exists():
                continue
            os.rename(path, target)
            return target
        path.unlink()
        return target
    raise AssertionError("unreachable")


def _store(path: Path, value: list[Any], what: str) -> None:
    if len(value) > _MAX_ITEMS:
        raise ToolFailure(f"the {what} holds at most {_MAX_ITEMS} entries")
    text = json.dumps(value, ensure_ascii=False, indent=1)
    if len(text.encode("utf-8")) > _MAX_FILE_BYTES:
        raise ToolFailure(f"the {what} would take more than {_MAX_FILE_BYTES} bytes; remove entries first")
    atomic_write(path, text.encode("utf-8"))


def _lock(path: Path) -> FileLock:
    return FileLock(str(path) + ".lock", timeout=10)


def _summary(items: list[dict[str, Any]]) -> dict[str, Any]:
    counts = {s: sum(1 for i in items if i["status"] == s) for s in _STATUSES}
    return {"todos": items, "summary": counts}


def todo(ctx: CallContext, todos: list[dict[str, Any]] | None = None, merge: bool = False) -> dict[str, Any]:
    path = ctx.session_dir() / "todo.json"
    with _lock(path):
        items: list[dict[str, Any]] = _load(path, "todo list", _is_todo_list)
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
        _store(path, items, "todo list")
    return _summary(items)


def memory(
    action: str,
    ctx: CallContext,
    content: str | None = None,
    old_text: str | None = None,
) -> dict[str, Any]:
    path = ctx.session_dir() / "memory.json"
    with _lock(path):
        entries: list[str] = _load(path, "memory", _is_memory)
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
                replaced = entries[hits[0]].replace(old_text, content)
                if len(replaced) > _MAX_MEMORY_ENTRY:
                    raise ToolFailure(f"an entry holds at most {_MAX_MEMORY_ENTRY} characters")
                entries[hits[0]] = replaced
        else:
            raise ToolFailure(f"unknown action {action!r}")
        _store(path, entries, "memory")
    return {"entries": entries}
