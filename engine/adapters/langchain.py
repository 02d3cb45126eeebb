"""The engine's tools as LangChain ``BaseTool``s (``langchain_tools``; needs langchain-core).

A tool hands the arguments to the engine untouched: the engine validates them against the full
schema (LangChain's own validation is not used, so nothing is checked twice or differently), and
arguments a host passes as text or some other non-mapping are read like the model's raw JSON.
A failed call raises ``ToolException`` inside LangChain's ``run``, which its ``handle_tool_error``
turns into a ``ToolMessage`` with ``status="error"``; nothing else escapes to the host's loop.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from engine.adapters._common import missing, offered
from engine.dispatch.adapters import content_blocks, media_type
from engine.dispatch.batch import BatchCall
from engine.dispatch.results import ToolResult

try:
    from langchain_core.messages import ToolCall
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool, ToolException
    from pydantic import ConfigDict, Field
except ImportError as exc:  # pragma: no cover - the message is what matters
    raise missing("langchain-core", "langchain", exc) from exc

if TYPE_CHECKING:
    from engine.engine import Engine

__all__ = ["HermesTool", "build"]

# The id of the tool call being run, set by invoke/ainvoke for the engine's metadata and audit.
_CALL_ID: ContextVar[str | None] = ContextVar("hermes_langchain_tool_call_id", default=None)


class _Unparsed(dict[str, Any]):
    """Arguments sent as something other than a mapping, carried through LangChain untouched
    (its ``run`` copies a tool call's args with ``.copy()``) for the engine to read or refuse."""

    __slots__ = ("raw",)

    def __init__(self, raw: Any) -> None:
        super().__init__()
        self.raw = raw

    def copy(self) -> _Unparsed:
        return self


def _readable(value: Any) -> tuple[Any, str | None]:
    """(input, tool call id): a tool call whose ``args`` is not a mapping made one LangChain can
    pass along; the id only from a tool call (a plain argument named "id" is not one)."""
    if value.__class__ is dict and value.get("type") == "tool_call":
        args = value.get("args")
        call_id = value.get("id")
        if args.__class__ is not dict:
            value = {**value, "args": _Unparsed(args)}
        return value, None if call_id is None else str(call_id)
    return value, None


class HermesTool(BaseTool):
    """One engine tool. Build them with :func:`engine.adapters.langchain_tools`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    engine: Any = Field(exclude=True, repr=False)
    session_id: str | None = None
    handle_tool_error: Any = True

    def invoke(
        self, input: str | dict[str, Any] | ToolCall, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        input, call_id = _readable(input)
        token = _CALL_ID.set(call_id)
        try:
            return super().invoke(input, config, **kwargs)
        finally:
            _CALL_ID.reset(token)

    async def ainvoke(
        self, input: str | dict[str, Any] | ToolCall, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        input, call_id = _readable(input)
        token = _CALL_ID.set(call_id)
        try:
            return await super().ainvoke(input, config, **kwargs)
        finally:
            _CALL_ID.reset(token)

    def _to_args_and_kwargs(self, tool_input: Any, tool_call_id: str | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # One positional value: an argument named like a keyword of _run ("self", "run_manager",
        # "config") must reach the engine as an argument, not collide with the signature.
        return (tool_input,), {}

    def _run(self, arguments: Any) -> Any:
        call_id = _CALL_ID.get()
        if arguments.__class__ is dict:
            result = self.engine.call(self.name, arguments, session_id=self.session_id, tool_call_id=call_id)
        else:
            raw = arguments.raw if isinstance(arguments, _Unparsed) else arguments
            result = self.engine._call_raw(BatchCall(self.name, raw, call_id), self.session_id, None)
        return _content(result)

    async def _arun(self, arguments: Any) -> Any:
        call_id = _CALL_ID.get()
        if arguments.__class__ is dict:
            result = await self.engine.acall(self.name, arguments, session_id=self.session_id, tool_call_id=call_id)
        else:
            raw = arguments.raw if isinstance(arguments, _Unparsed) else arguments
            result = await self.engine._acall_raw(BatchCall(self.name, raw, call_id), self.session_id, None)
        return _content(result)


def _content(result: ToolResult) -> Any:
    """What the ToolMessage carries: the text, content blocks for a multimodal result, or the
    error text raised as ToolException (LangChain answers it with status="error")."""
    if not result.ok:
        raise ToolException(result.output)
    if result.content is None:
        return result.output
    return content_blocks(
        result.content,
        lambda text: {"type": "text", "text": text},
        # LangChain's standard image block (langchain_core.messages.content.ImageContentBlock).
        lambda part: {"type": "image", "base64": str(part["data"]), "mime_type": media_type(part)},
    )


def build(
    engine: Engine, enabled: Iterable[str] | None, disabled: Iterable[str] | None, session_id: str | None
) -> list[BaseTool]:
    return [
        HermesTool(
            name=tool.name,
            description=tool.description,
            args_schema=tool.parameters,
            engine=engine,
            session_id=session_id,
        )
        for tool in offered(engine, enabled, disabled, session_id)
    ]
