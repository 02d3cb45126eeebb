"""``guard install`` / ``guard uninstall``: the guard's hook entry in Claude Code's settings file.

The settings file is the user's: it is merged into, never rewritten from scratch. Whatever
else it holds (other hooks, permissions, unknown keys, key order) stays as it was. Before
any change the file is copied aside (``settings.json.bak-<timestamp>``); the new content is
written to a temporary file and moved into place, so a crash leaves the old file or the
new one, never half of one. Installing twice changes nothing the second time; uninstall
removes exactly the entries whose command is the guard's (marked by ``GUARD_MARK``), and
the ``PreToolUse`` list (and ``hooks``) only when nothing else is left in them.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from engine.errors import UsageError

GUARD_MARK = "engine guard --for claude-code"
EVENT = "PreToolUse"
TIMEOUT_SECONDS = 30


def settings_path(scope: str, cwd: Path) -> Path:
    """Claude Code's settings file: the project's ``.claude/settings.json`` or the user's."""
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    return cwd / ".claude" / "settings.json"


def _load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{path} is not JSON ({exc}); it was left as it is") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} holds a JSON {type(data).__name__}, not an object; it was left as it is")
    return data


def _hooks_list(data: dict[str, Any], path: Path) -> list[Any] | None:
    hooks = data.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise UsageError(f"{path}: 'hooks' is not an object; it was left as it is")
    entries = hooks.get(EVENT)
    if entries is None:
        return None
    if not isinstance(entries, list):
        raise UsageError(f"{path}: 'hooks.{EVENT}' is not a list; it was left as it is")
    return entries


def _is_guard(hook: Any) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and GUARD_MARK in hook["command"]


def _save(path: Path, data: dict[str, Any]) -> Path | None:
    """Back the file up (when there is one), then replace it atomically. The backup's path, if any."""
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if path.exists():
        backup = path.with_name(f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        shutil.copy2(path, backup)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        if path.exists():
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return backup


def install(path: Path, command: str) -> str:
    """Add the guard hook for every tool (matcher ``*``). Idempotent: an identical entry is left alone,
    an older guard entry (another interpreter or root) is replaced in place."""
    data = _load(path)
    entries = _hooks_list(data, path)
    hook = {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}
    if entries is not None:
        for entry in entries:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            if not isinstance(inner, list):
                continue
            for i, existing in enumerate(inner):
                if _is_guard(existing):
                    if existing == hook and entry.get("matcher") in ("*", "", None):
                        return f"already installed in {path}"
                    inner[i] = hook
                    entry["matcher"] = "*"
                    backup = _save(path, data)
                    return f"updated the guard hook in {path}" + (f" (backup: {backup})" if backup else "")
    hooks = data.setdefault("hooks", {})
    hooks.setdefault(EVENT, []).append({"matcher": "*", "hooks": [hook]})
    backup = _save(path, data)
    return f"installed the guard hook in {path}" + (f" (backup: {backup})" if backup else "")


def uninstall(path: Path) -> str:
    """Remove the guard's hook entries and nothing else."""
    data = _load(path)
    entries = _hooks_list(data, path)
    if not entries:
        return f"no guard hook in {path}"
    removed = 0
    kept: list[Any] = []
    for entry in entries:
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        if not isinstance(inner, list):
            kept.append(entry)
            continue
        rest = [h for h in inner if not _is_guard(h)]
        removed += len(inner) - len(rest)
        if rest:
            kept.append({**entry, "hooks": rest})
        elif len(rest) == len(inner):
            kept.append(entry)
    if not removed:
        return f"no guard hook in {path}"
    hooks = data["hooks"]
    if kept:
        hooks[EVENT] = kept
    else:
        del hooks[EVENT]
        if not hooks:
            del data["hooks"]
    backup = _save(path, data)
    return f"removed the guard hook from {path}" + (f" (backup: {backup})" if backup else "")
