"""Appending approved pattern keys to the project config, keeping the user's formatting.

The config is edited as text at the exact positions the YAML parser reports,
so comments and layout survive; the result is parsed again and checked before it
replaces the file (temp file + rename, under a file lock, so two processes
approving at once never lose each other's entries).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from engine.errors import HermesError
from engine.source.yamlfile import parse_bytes
from engine.state_files import locked


class AllowlistError(HermesError):
    pass


# Entries that may be written unquoted (if YAML also reads them back as the same string).
_PLAIN = re.compile(r"[A-Za-z_./~][A-Za-z0-9_./~+=@%^-]*(?: [A-Za-z0-9_./~+=@%^-]+)*")


def _child(node: Node | None, key: str) -> tuple[Node | None, Node | None]:
    if not isinstance(node, MappingNode):
        return None, None
    for k, v in node.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return k, v
    return None, None


def _current(data: Any) -> list[str]:
    approvals = data.get("approvals") if isinstance(data, dict) else None
    listed = approvals.get("command_allowlist") if isinstance(approvals, dict) else None
    return [str(x) for x in listed] if isinstance(listed, list) else []


def _scalar(entry: str) -> str:
    """``entry`` as YAML that reads back as exactly that string, in a block or a flow list."""
    if _PLAIN.fullmatch(entry) is not None:
        try:
            if yaml.safe_load(f"[{entry}]") == [entry] and yaml.safe_load(f"- {entry}") == [entry]:
                return entry
        except yaml.YAMLError:
            pass
    return json.dumps(entry, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _edit(text: str, entries: list[str]) -> str:
    keys = [_scalar(e) for e in entries]
    parsed = parse_bytes(text.encode("utf-8"), "hermes-engine.yaml")
    if parsed.problems:
        raise AllowlistError(f"cannot edit hermes-engine.yaml: {parsed.problems[0].format()}")
    root = parsed.documents[0].node if parsed.documents else None
    if root is None or (isinstance(root, ScalarNode) and root.value == ""):
        return (
            text.rstrip("\n")
            + ("\n" if text.strip() else "")
            + "approvals:\n  command_allowlist:\n"
            + "".join(f"    - {k}\n" for k in keys)
        )
    if not isinstance(root, MappingNode):
        raise AllowlistError("hermes-engine.yaml is not a mapping")
    _, approvals = _child(root, "approvals")
    if approvals is None:
        tail = "" if text.endswith("\n") else "\n"
        return text + tail + "approvals:\n  command_allowlist:\n" + "".join(f"    - {k}\n" for k in keys)
    if not isinstance(approvals, MappingNode):
        raise AllowlistError("approvals: in hermes-engine.yaml is not a mapping")
    _, listed = _child(approvals, "command_allowlist")
    if listed is None:
        if approvals.flow_style or not approvals.value:
            start, end = approvals.start_mark.index, approvals.end_mark.index
            inner = text[start:end].strip().lstrip("{").rstrip("}").strip()
            joined = ", ".join(keys)
            entry = f"command_allowlist: [{joined}]"
            return text[:start] + "{" + (f"{inner}, " if inner else "") + entry + "}" + text[end:]
        first_key = approvals.value[0][0]
        indent = " " * first_key.start_mark.column
        line_start = text.rfind("\n", 0, first_key.start_mark.index) + 1
        block = f"{indent}command_allowlist:\n" + "".join(f"{indent}  - {k}\n" for k in keys)
        return text[:line_start] + block + text[line_start:]
    if not isinstance(listed, SequenceNode):
        raise AllowlistError("approvals.command_allowlist in hermes-engine.yaml is not a list")
    if listed.flow_style or not listed.value:
        start, end = listed.start_mark.index, listed.end_mark.index
        items = [text[i.start_mark.index : i.end_mark.index] for i in listed.value] + keys
        return text[:start] + "[" + ", ".join(items) + "]" + text[end:]
    last = listed.value[-1]
    indent = " " * (last.start_mark.column - 2)
    insert_at = text.find("\n", last.end_mark.index)
    insert_at = len(text) if insert_at < 0 else insert_at + 1
    prefix = "\n" if insert_at == len(text) and not text.endswith("\n") else ""
    return text[:insert_at] + prefix + "".join(f"{indent}- {k}\n" for k in keys) + text[insert_at:]


def append_allowlist(config_path: Path, keys: Iterable[str]) -> list[str]:
    """Add ``keys`` to approvals.command_allowlist; returns the keys actually added.

    Raises:
        AllowlistError: the config cannot be edited safely (it is left untouched).
    """
    wanted = list(dict.fromkeys(keys))
    config_path.parent.mkdir(parents=True, exist_ok=True)
    with locked(Path(str(config_path) + ".lock"), timeout=10):
        raw = config_path.read_bytes() if config_path.exists() else b""
        text = config_path.read_text(encoding="utf-8") if raw else ""
        before = parse_bytes(text.encode("utf-8"), config_path.name)
        before_data = before.documents[0].data if before.documents else {}
        existing = _current(before_data or {})
        added = [k for k in wanted if k not in existing]
        if not added:
            return []
        updated = _edit(text, added)
        after = parse_bytes(updated.encode("utf-8"), config_path.name)
        after_data = after.documents[0].data if after.documents else {}
        if after.problems or _current(after_data) != existing + added:
            raise AllowlistError(
                "editing hermes-engine.yaml would not give the expected allowlist; it was left as it was"
            )
        rest_before = {k: v for k, v in (before_data or {}).items() if k != "approvals"}
        rest_after = {k: v for k, v in after_data.items() if k != "approvals"}
        if rest_before != rest_after:
            raise AllowlistError("editing hermes-engine.yaml would change other settings; it was left as it was")
        fd, tmp = tempfile.mkstemp(prefix=".hermes-engine.", suffix=".tmp", dir=config_path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(updated)
            handle.flush()
            os.fsync(handle.fileno())
        if config_path.exists():
            os.chmod(tmp, config_path.stat().st_mode & 0o7777)
        os.replace(tmp, config_path)
        # The person who answered "always" changed the config, not a tool: keep it approved.
        from engine.compile.approved import reapprove  # noqa: PLC0415

        reapprove(config_path, raw, updated.encode("utf-8"))
    return added
