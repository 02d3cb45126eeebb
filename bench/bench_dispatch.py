"""One trivial `echo` call through each engine, in one run, with ratios.

    pip install -e '.[bench]' && python -m bench.bench_dispatch

Peers (bench-only extras): the floor (dict lookup + a pre-built jsonschema-rs
validator + the call), the MCP SDK's in-process server `call_tool`, LangChain
`StructuredTool.invoke` and the OpenAI Agents SDK `FunctionTool.on_invoke_tool`.
A peer whose package is missing is reported as such, not skipped silently.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema_rs

from bench.common import per_call, table

SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
    "additionalProperties": False,
}
ARGS = {"text": "hello"}
N = 20000


def echo(text: str) -> str:
    return text


async def aecho(text: str) -> str:
    return text


def project() -> Path:
    root = Path(tempfile.mkdtemp(prefix="hermes-bench-")) / "p"
    (root / "bench_echo").mkdir(parents=True)
    (root / "bench_echo" / "__init__.py").write_text(
        "def echo(text: str) -> str:\n    return text\n\n\nasync def aecho(text: str) -> str:\n    return text\n"
    )
    (root / "toolsets").mkdir()
    (root / "toolsets" / "t.yaml").write_text("kind: Toolset\nname: t\ndescription: T.\n")
    (root / "manifests").mkdir()
    params = json.dumps(SCHEMA)
    (root / "manifests" / "m.yaml").write_text(
        f"kind: Tool\nname: echo\ntoolset: t\ndescription: Echo.\nhandler: bench_echo:echo\nparameters: {params}\n"
        f"---\nkind: Tool\nname: aecho\ntoolset: t\ndescription: Echo.\nhandler: bench_echo:aecho\nparameters: {params}\n"
    )
    (root / "hermes-engine.yaml").write_text("include_builtin: false\nhandler_roots: [bench_echo]\n")
    return root


def in_loop(factory: Callable[[], Any], number: int) -> Callable[[], None]:
    """Time an async peer at its best: `number` awaits inside one running loop per batch."""
    loop = asyncio.new_event_loop()

    async def batch() -> None:
        for _ in range(number):
            await factory()

    def run() -> None:
        loop.run_until_complete(batch())

    return run


def measure_async(factory: Callable[[], Any], number: int = N) -> tuple[float, float]:
    med, low = per_call(in_loop(factory, number), number=1, repeat=15)
    return med / number, low / number


def peers() -> list[tuple[str, tuple[float, float] | str]]:
    out: list[tuple[str, tuple[float, float] | str]] = []
    try:
        try:
            from mcp.server.mcpserver import MCPServer as Server
        except ImportError:
            from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x
        server = Server("bench")
        server.tool()(echo)
        out.append(("mcp in-process call_tool", measure_async(lambda: server.call_tool("echo", ARGS), 5000)))
    except ImportError as exc:
        out.append(("mcp in-process call_tool", f"not installed ({exc.name})"))
    try:
        from langchain_core.tools import StructuredTool

        tool = StructuredTool.from_function(func=echo, name="echo", description="Echo.")
        out.append(("LangChain StructuredTool.invoke", per_call(lambda: tool.invoke(ARGS), number=2000)))
    except ImportError as exc:
        out.append(("LangChain StructuredTool.invoke", f"not installed ({exc.name})"))
    try:
        from agents import function_tool
        from agents.tool_context import ToolContext

        ftool = function_tool(echo)
        raw = json.dumps(ARGS)

        def invoke() -> Any:
            ctx = ToolContext(context=None, tool_name="echo", tool_call_id="c1", tool_arguments=raw)
            return ftool.on_invoke_tool(ctx, raw)

        out.append(("OpenAI Agents FunctionTool.on_invoke_tool", measure_async(invoke, 5000)))
    except ImportError as exc:
        out.append(("OpenAI Agents FunctionTool.on_invoke_tool", f"not installed ({exc.name})"))
    return out


def main() -> None:
    from engine import Engine

    engine = Engine.load(project())
    assert engine.call("echo", ARGS).output == "hello"
    assert engine.call("aecho", ARGS).output == "hello"
    validator = jsonschema_rs.validator_for(SCHEMA)
    registry = {"echo": (validator, echo)}

    def floor() -> str:
        entry = registry["echo"]
        if not entry[0].is_valid(ARGS):
            raise ValueError
        return entry[1](**ARGS)

    raw = json.dumps(ARGS)
    ours = {
        "hermes Engine.call (sync echo)": per_call(lambda: engine.call("echo", ARGS), number=N),
        "hermes Engine.call (async echo)": per_call(lambda: engine.call("aecho", ARGS), number=N // 4),
        "hermes handle_function_call (JSON text)": per_call(lambda: engine.handle_function_call("echo", raw), number=N),
        "hermes await Engine.acall (async echo)": measure_async(lambda: engine.acall("aecho", ARGS)),
    }
    floor_time = per_call(floor, number=N * 5)
    measured = peers()
    sync_med = ours["hermes Engine.call (sync echo)"][0]
    fastest = min((m[0] for _, m in measured if not isinstance(m, str)), default=None)

    rows = [
        (
            "floor: dict + jsonschema-rs + call",
            f"{floor_time[0] * 1e6:.2f}",
            f"{floor_time[1] * 1e6:.2f}",
            f"{floor_time[0] / sync_med:.2f}x",
        )
    ]
    targets = {
        "hermes Engine.call (sync echo)": "<= 3 us",
        "hermes Engine.call (async echo)": "<= 10 us",
        "hermes handle_function_call (JSON text)": "<= 5 us",
    }
    for name, (med, low) in ours.items():
        rows.append((name, f"{med * 1e6:.2f}", f"{low * 1e6:.2f}", f"{med / sync_med:.2f}x", targets.get(name, "")))
    for name, result in measured:
        if isinstance(result, str):
            rows.append((name, result, "", "", ""))
        else:
            rows.append((name, f"{result[0] * 1e6:.2f}", f"{result[1] * 1e6:.2f}", f"{result[0] / sync_med:.1f}x", ""))
    rows = [r if len(r) == 5 else (*r, "") for r in rows]
    print(
        table(
            "dispatch: one echo call (us per call; ratio = time / hermes sync call)",
            rows,
            ("path", "median us", "min us", "vs hermes", "target"),
        )
    )
    if fastest is not None:
        print(f"fastest peer / hermes sync call = {fastest / sync_med:.1f}x (target >= 3x)")


if __name__ == "__main__":
    main()
