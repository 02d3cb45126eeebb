"""The big agent loops: OpenAI chat-completions ``tool_calls``, OpenAI Responses ``function_call``
items and Anthropic ``tool_use`` blocks.

Each accepts the SDKs' own objects or plain dicts of the same shape, and answers every call it
was given, in order: a call without a name, with arguments that are not JSON or naming no known
tool gets an error item of its own and the others run. Nothing here raises to the host's loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.dispatch.batch import BatchCall, parse_arguments
from engine.dispatch.results import ToolResult

__all__ = ["anthropic_tool_results", "openai_response_outputs", "openai_tool_messages", "parse_arguments"]

RunBatch = Callable[[Sequence[BatchCall]], list[ToolResult]]


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    try:
        return getattr(obj, key, default)
    except Exception:  # a property that raises: the field is as good as absent
        return default


def _items(items: Any) -> list[Any]:
    """The host's list of calls; None is no call, a lone call (a mapping or an SDK object) is one."""
    if items is None:
        return []
    if isinstance(items, (Mapping, str, bytes, bytearray)) or not isinstance(items, Iterable):
        return [items]
    try:
        return list(items)
    except Exception:  # an iterator that fails part-way: what it gave is all there is
        return []


def _name(value: Any) -> str:
    """A tool name as sent; a missing one is "" (the engine answers "no tool name given")."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _call_id(value: Any) -> str | None:
    return None if value is None else str(value)


def _openai_call(item: Any) -> BatchCall:
    """A chat-completions tool call ({"id", "function": {"name", "arguments"}}), or a Responses
    ``function_call`` item ({"call_id", "name", "arguments"}) sent to the chat adapter."""
    function = _get(item, "function")
    if function is None and _get(item, "type") == "function_call":
        return BatchCall(_name(_get(item, "name")), _get(item, "arguments"), _call_id(_get(item, "call_id")))
    return BatchCall(_name(_get(function, "name")), _get(function, "arguments"), _call_id(_get(item, "id")))


def openai_tool_messages(tool_calls: Iterable[Any] | None, run: RunBatch) -> list[dict[str, Any]]:
    """chat.completions ``message.tool_calls`` → the ``role: tool`` messages to append."""
    batch = [_openai_call(tc) for tc in _items(tool_calls)]
    results = run(batch) if batch else []
    return [
        {"role": "tool", "tool_call_id": call.tool_call_id, "content": result.output}
        for call, result in zip(batch, results, strict=True)
    ]


def content_blocks(
    content: Iterable[Mapping[str, Any]],
    text: Callable[[str], dict[str, Any]],
    image: Callable[[Mapping[str, Any]], dict[str, Any]],
) -> list[dict[str, Any]]:
    """A multimodal result's parts in a provider's block shapes: ``text`` builds a text block,
    ``image`` an image block; any other part is named as omitted, in a text block."""
    blocks: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind == "text":
            blocks.append(text(str(part.get("text", ""))))
        elif kind == "image" and part.get("data"):
            blocks.append(image(part))
        else:
            blocks.append(text(f"[{kind} omitted]"))
    return blocks


def _response_output(result: ToolResult) -> str | list[dict[str, Any]]:
    """The ``output`` of a ``function_call_output``: text, or input_text/input_image parts."""
    if result.content is None:
        return result.output
    return content_blocks(
        result.content,
        lambda text: {"type": "input_text", "text": text},
        lambda part: {"type": "input_image", "image_url": image_data_url(part)},
    )


def openai_response_outputs(items: Iterable[Any] | None, run: RunBatch) -> list[dict[str, Any]]:
    """Responses API ``response.output`` → the ``function_call_output`` items for the next input.

    Items that are not ``function_call`` (messages, reasoning, built-in tool calls) are skipped;
    each function call gets one output item, in order, with its ``call_id``.
    """
    calls = [item for item in _items(items) if _get(item, "type") == "function_call"]
    batch = [BatchCall(_name(_get(c, "name")), _get(c, "arguments"), _call_id(_get(c, "call_id"))) for c in calls]
    results = run(batch) if batch else []
    return [
        {"type": "function_call_output", "call_id": call.tool_call_id, "output": _response_output(result)}
        for call, result in zip(batch, results, strict=True)
    ]


def media_type(part: Mapping[str, Any]) -> str:
    """The media type of a multimodal result's image part (MCP spells it mimeType)."""
    return str(part.get("mimeType") or part.get("mime_type") or part.get("media_type") or "image/png")


def image_data_url(part: Mapping[str, Any]) -> str:
    """A multimodal result's image part as a data URL."""
    return f"data:{media_type(part)};base64,{part['data']}"


def _anthropic_content(result: ToolResult) -> str | list[dict[str, Any]]:
    if result.content is None:
        return result.output
    return content_blocks(
        result.content,
        lambda text: {"type": "text", "text": text},
        lambda part: {
            "type": "image",
            "source": {"type": "base64", "media_type": media_type(part), "data": part["data"]},
        },
    )


def anthropic_tool_results(blocks: Iterable[Any] | None, run: RunBatch) -> list[dict[str, Any]]:
    """``tool_use`` content blocks → ``tool_result`` blocks for the next user message."""
    uses = [b for b in _items(blocks) if _get(b, "type") == "tool_use"]
    batch = [BatchCall(_name(_get(b, "name")), _get(b, "input"), _call_id(_get(b, "id"))) for b in uses]
    results = run(batch) if batch else []
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
