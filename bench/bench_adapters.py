"""The framework adapters' cost per call, next to the engine and to each framework's native tool.

    pip install -e '.[dev,bench]' && python -m bench.bench_adapters

For each framework, four paths run the same one-line echo (sync, then async), their batches
interleaved round by round so all of them see the same load:

- plain: the function itself;
- engine: ``Engine.call`` (sync) or ``await Engine.acall`` (async) on the engine's echo tool;
- native: the framework's own tool of the same function (LangChain ``@tool``, Agents SDK
  ``@function_tool``), invoked as the framework invokes tools;
- adapter: the engine's tool from ``engine.adapters``, invoked the same way.

"glue" is the adapter's own method called directly (``BaseTool._run`` / ``_arun``, the Agents SDK's
``FunctionTool.on_invoke_tool``) minus the engine call, per round, median over rounds: the adapter's
cost above ``Engine.call`` (target <= 5 us). "overhead above the engine" is the same seen through the
framework: per round, (adapter - native) - (engine - plain), what the adapter adds beyond the engine
call and beyond what the framework adds to any tool.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bench.bench_dispatch import ARGS, project
from bench.common import table

ROUNDS = 15
RAW = json.dumps(ARGS)
TOOL_CALL = {"type": "tool_call", "name": "echo", "args": ARGS, "id": "call_1"}
ATOOL_CALL = {"type": "tool_call", "name": "aecho", "args": ARGS, "id": "call_1"}
TARGET_US = 5.0


def echo(text: str) -> str:
    """Echo the text back."""
    return text


async def aecho(text: str) -> str:
    """Echo the text back."""
    return text


Batch = Callable[[], None]


def sync_batch(fn: Callable[[], object], number: int) -> Batch:
    def run() -> None:
        for _ in range(number):
            fn()

    return run


def async_batch(loop: asyncio.AbstractEventLoop, factory: Callable[[], Awaitable[object]], number: int) -> Batch:
    """`number` awaits inside one running loop (its start-up is charged to nobody)."""

    async def batch() -> None:
        for _ in range(number):
            await factory()

    def run() -> None:
        loop.run_until_complete(batch())

    return run


def interleaved(paths: dict[str, Batch], number: int) -> dict[str, list[float]]:
    """Seconds per call of each path in each round; every round runs every path's batch once."""
    samples: dict[str, list[float]] = {name: [] for name in paths}
    for batch in paths.values():  # warm-up
        batch()
    for _ in range(ROUNDS):
        for name, batch in paths.items():
            started = time.perf_counter()
            batch()
            samples[name].append((time.perf_counter() - started) / number)
    return samples


def overhead(samples: dict[str, list[float]], adapter: str, native: str, engine: str, plain: str) -> float:
    return statistics.median(
        (a - n) - (e - p)
        for a, n, e, p in zip(samples[adapter], samples[native], samples[engine], samples[plain], strict=True)
    )


def us(value: float) -> str:
    return f"{value * 1e6:.2f}"


def section(
    title: str, samples: dict[str, list[float]], names: tuple[str, str, str, str], glue: str | None
) -> tuple[list[tuple[str, ...]], float]:
    """Rows for one framework and mode; names = (plain, engine, native, adapter)."""
    plain, engine, native, adapter = names
    native_med = statistics.median(samples[native])
    rows: list[tuple[str, ...]] = []
    for name in (*names, *((glue,) if glue and glue not in names else ())):
        med = statistics.median(samples[name])
        rows.append((f"{title}: {name}", us(med), us(min(samples[name])), f"{med / native_med:.2f}x", ""))
    extra = overhead(samples, adapter, native, engine, plain)
    rows.append((f"{title}: overhead above the engine", us(extra), "", "", f"<= {TARGET_US:g} us"))
    if glue:
        direct = statistics.median(g - e for g, e in zip(samples[glue], samples[engine], strict=True))
        rows.append((f"{title}: glue ({glue} - {engine})", us(direct), "", "", f"<= {TARGET_US:g} us"))
    return rows, extra


def langchain(engine: Any) -> list[tuple[str, ...]] | str:
    try:
        from langchain_core.tools import tool
    except ImportError as exc:
        return f"not installed ({exc.name})"
    from engine.adapters import langchain_tools

    ours = {t.name: t for t in langchain_tools(engine)}
    native, anative = tool(echo), tool(aecho)
    assert ours["echo"].invoke(TOOL_CALL).content == native.invoke(TOOL_CALL).content == "hello"
    number = 2000
    loop = asyncio.new_event_loop()
    sync = interleaved(
        {
            "plain echo()": sync_batch(lambda: echo(**ARGS), number),
            "Engine.call": sync_batch(lambda: engine.call("echo", ARGS), number),
            "@tool .invoke(tool_call)": sync_batch(lambda: native.invoke(TOOL_CALL), number),
            "adapter .invoke(tool_call)": sync_batch(lambda: ours["echo"].invoke(TOOL_CALL), number),
            "adapter ._run(args)": sync_batch(lambda: ours["echo"]._run(ARGS), number),
        },
        number,
    )
    asyn = interleaved(
        {
            "await aecho()": async_batch(loop, lambda: aecho(**ARGS), number),
            "await Engine.acall": async_batch(loop, lambda: engine.acall("aecho", ARGS), number),
            "@tool .ainvoke(tool_call)": async_batch(loop, lambda: anative.ainvoke(ATOOL_CALL), number),
            "adapter .ainvoke(tool_call)": async_batch(loop, lambda: ours["aecho"].ainvoke(ATOOL_CALL), number),
            "adapter ._arun(args)": async_batch(loop, lambda: ours["aecho"]._arun(ARGS), number),
        },
        number,
    )
    loop.close()
    rows, _ = section("LangChain sync", sync, tuple(list(sync)[:4]), "adapter ._run(args)")  # type: ignore[arg-type]
    more, _ = section("LangChain async", asyn, tuple(list(asyn)[:4]), "adapter ._arun(args)")  # type: ignore[arg-type]
    return rows + more


def agents(engine: Any) -> list[tuple[str, ...]] | str:
    try:
        from agents import function_tool
        from agents.tool_context import ToolContext
    except ImportError as exc:
        return f"not installed ({exc.name})"
    from engine.adapters import openai_agents_tools

    ours = {t.name: t for t in openai_agents_tools(engine)}
    native, anative = function_tool(echo), function_tool(aecho)
    ctx = ToolContext(context=None, tool_name="echo", tool_call_id="call_1", tool_arguments=RAW)
    loop = asyncio.new_event_loop()
    assert loop.run_until_complete(ours["echo"].on_invoke_tool(ctx, RAW)) == "hello"
    assert loop.run_until_complete(native.on_invoke_tool(ctx, RAW)) == "hello"
    number = 1000
    asyn = interleaved(
        {
            "await aecho()": async_batch(loop, lambda: aecho(**ARGS), number),
            "await Engine.acall": async_batch(loop, lambda: engine.acall("aecho", ARGS), number),
            "@function_tool on_invoke_tool": async_batch(loop, lambda: anative.on_invoke_tool(ctx, RAW), number),
            "adapter on_invoke_tool": async_batch(loop, lambda: ours["aecho"].on_invoke_tool(ctx, RAW), number),
        },
        number,
    )
    # A sync function: the SDK runs it with asyncio.to_thread, the engine on a worker thread.
    sync = interleaved(
        {
            "await to_thread(echo)": async_batch(loop, lambda: asyncio.to_thread(echo, **ARGS), number // 4),
            "await Engine.acall": async_batch(loop, lambda: engine.acall("echo", ARGS), number // 4),
            "@function_tool on_invoke_tool": async_batch(loop, lambda: native.on_invoke_tool(ctx, RAW), number // 4),
            "adapter on_invoke_tool": async_batch(loop, lambda: ours["echo"].on_invoke_tool(ctx, RAW), number // 4),
        },
        number // 4,
    )
    loop.close()
    # on_invoke_tool is the adapter's own method: its glue is the whole adapter path.
    rows, _ = section("Agents SDK async fn", asyn, tuple(asyn), "adapter on_invoke_tool")  # type: ignore[arg-type]
    more, _ = section("Agents SDK sync fn", sync, tuple(sync), "adapter on_invoke_tool")  # type: ignore[arg-type]
    return rows + more


def main() -> None:
    from engine import Engine

    engine = Engine.load(project())
    rows: list[tuple[str, ...]] = []
    for name, measured in (("LangChain", langchain(engine)), ("OpenAI Agents SDK", agents(engine))):
        if isinstance(measured, str):
            rows.append((name, measured, "", "", ""))
        else:
            rows.extend(measured)
    print(
        table(
            "adapters: one echo call (us per call; ratio = time / the framework's native tool)",
            rows,
            ("path", "median us", "min us", "vs native", "target"),
        )
    )


if __name__ == "__main__":
    main()
