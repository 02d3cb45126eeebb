"""The two big agent loops: OpenAI chat-completions tool_calls and Anthropic tool_use blocks.

Both accept the SDKs' own objects or plain dicts of the same shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.dispatch.batch import BatchCall, parse_arguments
from engine.dispatch.results import ToolResult

__all__ = ["anthropic_tool_results", "openai_tool_messages", "parse_arguments"]

RunBatch = Callable[[Sequence[BatchCall]], list[ToolResult]]


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def openai_tool_messages(tool_calls: Iterable[Any], run: RunBatch) -> list[dict[str, Any]]:
    """chat.completions ``message.tool_calls`` → the ``role: tool`` messages to append."""
    calls = list(tool_calls)
    batch = []
    for tc in calls:
        function = _get(tc, "function")
        batch.append(BatchCall(str(_get(function, "name")), _get(function, "arguments"), _get(tc, "id")))
    results = run(batch)
    return [
        {"role": "tool", "tool_call_id": call.tool_call_id, "content": result.output}
        for call, result in zip(batch, results, strict=True)
    ]


def _anthropic_content(result: ToolResult) -> str | list[dict[str, Any]]:
    if result.content is None:
        return result.output
    blocks: list[dict[str, Any]] = []
    for part in result.content:
        kind = part.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": str(part.get("text", ""))})
        elif kind == "image" and part.get("data"):
            media = part.get("mimeType") or part.get("mime_type") or part.get("media_type") or "image/png"
            blocks.append({"type": "image", "source": {"type": "base64", "media_type": media, "data": part["data"]}})
        else:
            blocks.append({"type": "text", "text": f"[{kind} omitted]"})
    return blocks


def anthropic_tool_results(blocks: Iterable[Any], run: RunBatch) -> list[dict[str, Any]]:
    """``tool_use`` content blocks → ``tool_result`` blocks for the next user message."""
    uses = [b for b in blocks if _get(b, "type") == "tool_use"]
    batch = [BatchCall(str(_get(b, "name")), _get(b, "input"), _get(b, "id")) for b in uses]
    results = run(batch)
    out = []
    for call, result in zip(batch, results, strict=True):
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": call.tool_call_id,
            "content": _anthropic_content(result),
        }
        if not result.ok:
            block["is_error"] = True
        out.append(block)
    return out
