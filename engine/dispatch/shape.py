"""Handler return values → the text the model sees, and the size cap with spill files."""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

MULTIMODAL_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link", "image_url", "file"})


class BadResult(Exception):
    pass


def _is_multimodal(value: list[Any]) -> bool:
    return bool(value) and all(isinstance(p, dict) and p.get("type") in MULTIMODAL_TYPES for p in value)


def _describe_part(part: dict[str, Any]) -> str:
    if part["type"] == "text":
        return str(part.get("text", ""))
    mime = part.get("mimeType") or part.get("mime_type") or part.get("media_type") or ""
    return f"[{part['type']}{': ' + mime if mime else ''}]"


def shape(value: Any) -> tuple[str, list[dict[str, Any]] | None]:
    """(output text, multimodal parts or None).

    Raises:
        BadResult: the handler returned something outside the result contract.
    """
    if isinstance(value, str):
        return value, None
    if isinstance(value, list) and _is_multimodal(value):
        return "\n".join(_describe_part(p) for p in value), value
    if isinstance(value, (dict, list)):
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False), None
        except (TypeError, ValueError) as exc:
            raise BadResult(f"the handler returned a {type(value).__name__} that is not JSON: {exc}") from None
    raise BadResult(
        f"the handler returned {type(value).__name__}; a handler must return str, dict, list "
        "or a list of multimodal content parts"
    )


def spill(output: str, cap: int, state_dir: Path, tool: str) -> tuple[str, str]:
    """Write the full ``output`` under the state dir; return (preview, path)."""
    folder = state_dir / "results"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"{tool}-{stamp}-{secrets.token_hex(4)}.txt"
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(output)
    os.replace(tmp, path)
    footer = (
        f"\n\n[result truncated: {len(output)} characters in all; the full result is saved at {path} "
        "(read it in parts with read_file offset/limit)]"
    )
    keep = max(cap - len(footer), min(cap, 200))
    return output[:keep] + footer, str(path)
