"""What a call returns: a ToolResult, success or a typed, sanitised error."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_ERROR_CHARS = 2000

# Text a handler's exception must never smuggle into the model's context:
# chat-template role tags and special tokens, code fences, CDATA wrappers.
_ROLE_TAGS = re.compile(
    r"</?\s*(tool_call|tool_calls|tool_response|tool_result|function_call|function_calls|function_results|"
    r"invoke|parameter|antml:[a-z_]+|system|assistant|user|human|im_start|im_end|thinking)\b[^>]*>",
    re.IGNORECASE,
)
_SPECIAL_TOKENS = re.compile(r"<\|[^|>\n]{1,40}\|>")
_FENCES = re.compile(r"```[A-Za-z0-9_+-]*")
_CDATA = re.compile(r"<!\[CDATA\[|\]\]>")


def sanitize(message: str, limit: int = MAX_ERROR_CHARS) -> str:
    text = _CDATA.sub("", message)
    text = _ROLE_TAGS.sub("", text)
    text = _SPECIAL_TOKENS.sub("", text)
    text = _FENCES.sub("", text)
    text = text.strip()
    if len(text) > limit:
        text = text[: limit - 20].rstrip() + " …[error truncated]"
    return text or "(no message)"


@dataclass(frozen=True, slots=True)
class ToolError:
    type: str
    message: str
    recoverable: bool

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message, "recoverable": self.recoverable}


@dataclass(slots=True)
class ResultMetadata:
    duration_ms: float
    generation: int
    truncated: bool = False
    spilled_to: str | None = None
    tool: str | None = None
    tool_call_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "duration_ms": self.duration_ms,
            "generation": self.generation,
            "truncated": self.truncated,
            "spilled_to": self.spilled_to,
            "tool": self.tool,
            "tool_call_id": self.tool_call_id,
        }


@dataclass(slots=True)
class ToolResult:
    """The outcome of one call. ``output`` is exactly what the model should see."""

    ok: bool
    output: str
    error: ToolError | None
    metadata: ResultMetadata
    # A multimodal result's parts ({"type": "text"|"image"|..., ...}); output holds its text.
    content: list[dict[str, Any]] | None = None
    # Set when a call was refused for want of approval; a host may surface it.
    pending_approval: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ok": self.ok,
            "output": self.output,
            "error": self.error.as_dict() if self.error else None,
            "metadata": self.metadata.as_dict(),
        }
        if self.content is not None:
            out["content"] = self.content
        if self.pending_approval is not None:
            out["pending_approval"] = self.pending_approval
        return out


def error_output(error: ToolError) -> str:
    """The text the model sees for a failed call."""
    return json.dumps(
        {"error": error.message, "error_type": error.type, "recoverable": error.recoverable},
        ensure_ascii=False,
    )


def failure(
    type: str,
    message: str,
    *,
    recoverable: bool,
    generation: int,
    started: float,
    now: float,
    tool: str | None = None,
    tool_call_id: str | None = None,
    pending: dict[str, Any] | None = None,
) -> ToolResult:
    error = ToolError(type, sanitize(message), recoverable)
    meta = ResultMetadata(round((now - started) * 1000, 3), generation, tool=tool, tool_call_id=tool_call_id)
    return ToolResult(False, error_output(error), error, meta, pending_approval=pending)
