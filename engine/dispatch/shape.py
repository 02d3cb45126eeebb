"""Handler return values → the text the model sees, and the size cap with spill files."""

from __future__ import annotations

import contextlib
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
    return bool(value) and all(
        isinstance(p, dict) and isinstance(p.get("type"), str) and p["type"] in MULTIMODAL_TYPES for p in value
    )


def _describe_part(part: dict[str, Any]) -> str:
    if part["type"] == "text":
        text = part.get("text", "")
        if not isinstance(text, str):
            raise BadResult(f"a text content part must hold a string, not {type(text).__name__}")
        return text
    mime = next((m for k in ("mimeType", "mime_type", "media_type") if isinstance(m := part.get(k), str) and m), "")
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
        except RecursionError:
            raise BadResult(f"the handler returned a {type(value).__name__} nested too deeply to serialise") from None
        except (TypeError, ValueError) as exc:
            raise BadResult(f"the handler returned a {type(value).__name__} that is not JSON: {exc}") from None
    raise BadResult(
        f"the handler returned {type(value).__name__}; a handler must return str, dict, list "
        "or a list of multimodal content parts"
    )


def spill(output: str, cap: int, state_dir: Path, tool: str) -> tuple[str, str | None]:
    """Write the full ``output`` under the state dir; return (preview, path).

    When the state dir cannot take the file, the preview says so and the path is None:
    the call already ran, so its result is still returned, cut to the cap.
    """
    try:
        path: Path | None = _write_spill(output, state_dir, tool)
        footer = (
            f"\n\n[result truncated: {len(output)} characters in all; the full result is saved at {path} "
            "(read it in parts with read_file offset/limit)]"
        )
    except (OSError, ValueError) as exc:
        path = None
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        footer = (
            f"\n\n[result truncated: {len(output)} characters in all; the rest could not be saved "
            f"under the state dir ({reason})]"
        )
    keep = max(cap - len(footer), min(cap, 200))
    return output[:keep] + footer, None if path is None else str(path)


def _write_spill(output: str, state_dir: Path, tool: str) -> Path:
    folder = state_dir / "results"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"{tool}-{stamp}-{secrets.token_hex(4)}.txt"
    tmp = path.with_suffix(".tmp")
    try:
        with open(tmp, "w", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(output)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    return path
