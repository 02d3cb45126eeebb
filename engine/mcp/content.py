"""Results to and from MCP: a ToolResult as a CallToolResult (serve), and another MCP
server's CallToolResult as a handler's return value (McpServer tools)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from engine.dispatch.context import ToolFailure
from engine.dispatch.results import ToolResult

_MIME_KEYS = ("mimeType", "mime_type", "media_type")


def _mime(part: Mapping[str, Any]) -> str | None:
    for key in _MIME_KEYS:
        value = part.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _describe(part: Mapping[str, Any]) -> types.TextContent:
    mime = _mime(part)
    return types.TextContent(type="text", text=f"[{part.get('type')}{': ' + mime if mime else ''}]")


def _binary(kind: str, data: Any, mime: str | None) -> types.ImageContent | types.AudioContent | None:
    if not isinstance(data, str) or mime is None:
        return None
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    if kind == "image":
        return types.ImageContent(type="image", data=data, mime_type=mime)
    return types.AudioContent(type="audio", data=data, mime_type=mime)


def _data_url(url: Any) -> tuple[str, str] | None:
    """``data:image/png;base64,AAAA`` → (mime, data)."""
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        return None
    head, data = url[5:].split(";base64,", 1)
    return head, data


def part_to_mcp(part: Mapping[str, Any]) -> types.ContentBlock:
    """One multimodal part of a handler's result as MCP content (a description when it has no MCP form)."""
    kind = part.get("type")
    if kind == "text":
        return types.TextContent(type="text", text=str(part.get("text", "")))
    if kind in ("image", "audio"):
        return _binary(str(kind), part.get("data"), _mime(part)) or _describe(part)
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, Mapping) else image
        found = _data_url(url)
        if found is not None:
            return _binary("image", found[1], found[0]) or _describe(part)
        return types.TextContent(type="text", text=f"[image: {url}]")
    if kind in ("resource", "resource_link"):
        model: type[types.EmbeddedResource] | type[types.ResourceLink] = (
            types.EmbeddedResource if kind == "resource" else types.ResourceLink
        )
        try:
            return model.model_validate(dict(part))
        except ValidationError:
            return _describe(part)
    return _describe(part)


def to_call_result(result: ToolResult, output_validator: Any = None) -> types.CallToolResult:
    """A ToolResult as MCP sees it: ``isError`` for failures, content parts, and ``structuredContent``
    when the tool declares an output schema (``output_validator``); a result that does not match
    it is an error result."""
    if not result.ok:
        return error_result(result.output)
    if result.content:
        content = [part_to_mcp(p) for p in result.content]
    else:
        content = [types.TextContent(type="text", text=result.output)]
    if output_validator is None:
        return types.CallToolResult(content=content)
    if result.metadata.truncated:
        return error_result("the result is too large for structured output: " + result.output[-300:])
    try:
        value = json.loads(result.output)
    except ValueError:
        return error_result("the tool declares an output schema but returned text that is not JSON")
    if not isinstance(value, dict):
        return error_result("the tool declares an output schema but did not return a JSON object")
    if not output_validator.is_valid(value):
        problems = sorted(
            {
                "/" + "/".join(str(p) for p in e.instance_path) + ": " + e.message.splitlines()[0]
                for e in output_validator.iter_errors(value)
            }
        )
        return error_result("the result does not match the tool's output schema:\n" + "\n".join(problems[:20]))
    return types.CallToolResult(content=content, structured_content=value)


def error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def from_call_result(result: types.CallToolResult, server: str) -> str | list[dict[str, Any]]:
    """Another MCP server's result as a handler's return value: text, or multimodal parts.

    Raises:
        ToolFailure: the server marked the result as an error.
    """
    texts: list[str] = []
    parts: list[dict[str, Any]] = []
    only_text = True
    for block in result.content:
        if isinstance(block, types.TextContent):
            texts.append(block.text)
            parts.append({"type": "text", "text": block.text})
        else:
            only_text = False
            parts.append(block.model_dump(by_alias=True, mode="json", exclude_none=True))
    if result.is_error:
        message = "\n".join(texts) or "the server reported an error"
        raise ToolFailure(f"{server}: {message}", recoverable=True, type="mcp_error")
    if only_text:
        if not texts and result.structured_content is not None:
            return json.dumps(result.structured_content, ensure_ascii=False)
        return "\n".join(texts)
    return parts
