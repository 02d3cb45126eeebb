"""Framework adapters: the engine's tools as LangChain tools or OpenAI Agents SDK tools.

Each framework is an optional extra, imported only when its adapter is first called, so
``import engine`` (and ``import engine.adapters``) never imports LangChain or the Agents SDK::

    pip install 'hermes-engine[langchain]'   # langchain_tools
    pip install 'hermes-engine[agents]'      # openai_agents_tools

The tools are what :meth:`engine.Engine.definitions` offers at the moment they are built
(available tools of the selected toolsets, rendered descriptions); every call goes through
the engine's pipeline (validation, hooks, the policy and approvals, timeouts, the size cap).
A failed call is an error result the model sees, never an exception in the host's loop.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents import FunctionTool
    from langchain_core.tools import BaseTool

    from engine.engine import Engine

__all__ = ["langchain_tools", "openai_agents_tools"]


def langchain_tools(
    engine: Engine,
    *,
    enabled: Iterable[str] | None = None,
    disabled: Iterable[str] | None = None,
    session_id: str | None = None,
) -> list[BaseTool]:
    """The engine's tools as LangChain ``BaseTool``s (sync ``invoke`` and async ``ainvoke``).

    ``enabled``/``disabled`` select toolsets as in :meth:`Engine.definitions`; ``session_id`` is
    passed to every call. A failed call answers a ``ToolMessage`` with ``status="error"`` (when the
    tool is invoked with a tool call) carrying the engine's error text.

    Raises:
        ImportError: langchain-core is not installed (``pip install 'hermes-engine[langchain]'``).
        UsageError: an unknown toolset name.
    """
    from engine.adapters.langchain import build  # noqa: PLC0415

    return build(engine, enabled, disabled, session_id)


def openai_agents_tools(
    engine: Engine,
    *,
    enabled: Iterable[str] | None = None,
    disabled: Iterable[str] | None = None,
    session_id: str | None = None,
) -> list[FunctionTool]:
    """The engine's tools as OpenAI Agents SDK ``FunctionTool``s, for ``Agent(tools=...)``.

    A failed call returns the engine's error text to the model (the SDK's way of reporting a
    tool error); arguments that are not JSON are such an error, not an exception.

    Raises:
        ImportError: openai-agents is not installed (``pip install 'hermes-engine[agents]'``).
        UsageError: an unknown toolset name.
    """
    from engine.adapters.openai_agents import build  # noqa: PLC0415

    return build(engine, enabled, disabled, session_id)
