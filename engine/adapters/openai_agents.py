"""The engine's tools as OpenAI Agents SDK ``FunctionTool``s (``openai_agents_tools``; needs openai-agents).

The SDK hands ``on_invoke_tool`` the model's raw JSON text; the engine reads it (text that is not a
JSON object is an ``invalid_arguments`` result) and runs the call with ``Engine.acall``: async
handlers on the SDK's loop, sync ones on a worker thread, so a slow tool never blocks the loop.
A failed call returns the engine's error text, which the SDK sends to the model as the output.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from engine.adapters._common import missing, offered
from engine.dispatch.adapters import image_data_url
from engine.dispatch.batch import BatchCall, parse_arguments
from engine.dispatch.results import ToolResult

try:
    from agents import FunctionTool
    from agents.tool import ToolOutputImage, ToolOutputText
    from agents.tool_context import ToolContext
except ImportError as exc:  # pragma: no cover - the message is what matters
    raise missing("openai-agents", "agents", exc) from exc

if TYPE_CHECKING:
    from engine.engine import Engine

__all__ = ["build"]


def _output(result: ToolResult) -> Any:
    """What the SDK sends back: the text (an error's too), or text and image outputs."""
    if result.content is None or not result.ok:
        return result.output
    parts: list[ToolOutputText | ToolOutputImage] = []
    for part in result.content:
        kind = part.get("type")
        if kind == "text":
            parts.append(ToolOutputText(text=str(part.get("text", ""))))
        elif kind == "image" and part.get("data"):
            parts.append(ToolOutputImage(image_url=image_data_url(part)))
        else:
            parts.append(ToolOutputText(text=f"[{kind} omitted]"))
    return parts


def _invoker(engine: Engine, name: str, session_id: str | None) -> Callable[[ToolContext[Any], str], Awaitable[Any]]:
    # Bound once here: the call path is a JSON parse, one dispatch and the output, nothing else
    # (bench/bench_adapters.py holds it to <= 5 us above Engine.acall).
    acall = engine._dispatcher.acall
    acall_raw = engine._acall_raw

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        call_id = getattr(ctx, "tool_call_id", None)
        try:
            args, problem = parse_arguments(arguments)
        except Exception:  # what the engine's own reading reports (bytes that will not decode...)
            problem = "unreadable"
        if problem is None:
            return _output(await acall(name, args, session_id, None, call_id))
        # Arguments that are not one JSON object: the engine's error result for them.
        return _output(await acall_raw(BatchCall(name, arguments, call_id), session_id, None))

    return on_invoke_tool


def build(
    engine: Engine, enabled: Iterable[str] | None, disabled: Iterable[str] | None, session_id: str | None
) -> list[FunctionTool]:
    return [
        FunctionTool(
            name=tool.name,
            description=tool.description,
            params_json_schema=tool.parameters,
            on_invoke_tool=_invoker(engine, tool.name, session_id),
            # Strict only where the engine emitted the tool as strict; the engine reads the
            # nulls strict mode sends for optional fields (see definitions(strict=...)).
            strict_json_schema=tool.strict,
        )
        for tool in offered(engine, enabled, disabled, session_id)
    ]
