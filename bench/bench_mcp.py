"""MCP both ways, against the SDK itself in the same run.

    python -m bench.bench_mcp [--calls 400]

1. `hermes-engine serve` over stdio, a trivial tool, round trip through the official
   ClientSession, against the same tool on the SDK's own high-level server (MCPServer).
2. What the engine adds to a call to a local MCP server over stdio: `Engine.call` on an
   McpServer tool against `await ClientSession.call_tool` on the same server.
3. list_changed: a manifest save until a connected client receives the notification.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.common import table

REPO = Path(__file__).resolve().parent.parent
PEER = [sys.executable, str(REPO / "bench" / "mcp_peer_server.py")]
ECHO = """kind: Tool
name: echo
toolset: t
description: Say it back.
handler: bench_handlers:echo
parameters:
  type: object
  properties: {text: {type: string}}
  required: [text]
"""
EXTRA = """---
kind: Tool
name: added_{i}
toolset: t
description: Saved while a client was connected.
handler: bench_handlers:echo
parameters:
  type: object
  properties: {text: {type: string}}
  required: [text]
"""


def project(root: Path, manifests: str = ECHO) -> Path:
    (root / "manifests").mkdir(parents=True)
    (root / "toolsets").mkdir()
    (root / "bench_handlers").mkdir()
    (root / "bench_handlers" / "__init__.py").write_text("def echo(text: str) -> str:\n    return text\n")
    # integrity off: list_changed measures the serve loop reacting to a save, not a person approving it
    # (with the default, each save waits for `hermes-engine trust`; engine.compile.approved)
    (root / "hermes-engine.yaml").write_text(
        'include_builtin: false\nhandler_roots: [bench_handlers]\nintegrity: "off"\n'
    )
    (root / "toolsets" / "t.yaml").write_text("kind: Toolset\nname: t\ndescription: T.\n")
    (root / "manifests" / "m.yaml").write_text(manifests)
    return root


async def timed(call: Callable[[], Awaitable[Any]], calls: int, batches: int = 7) -> float:
    """Median seconds per call over batches (after a warm-up)."""
    for _ in range(50):
        await call()
    samples = []
    for _ in range(batches):
        started = time.perf_counter()
        for _ in range(calls):
            await call()
        samples.append((time.perf_counter() - started) / calls)
    return statistics.median(samples)


async def round_trips(commands: list[list[str]], calls: int, rounds: int = 9) -> list[list[float]]:
    """Seconds per call for each server, their batches alternating so all see the same load."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    async with contextlib.AsyncExitStack() as stack:
        sessions = []
        for command in commands:
            params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(REPO))
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            sessions.append(session)
        for session in sessions:
            await timed(lambda s=session: s.call_tool("echo", {"text": "hi"}), calls // 4, batches=1)
        samples: list[list[float]] = [[] for _ in sessions]
        for _ in range(rounds):
            for i, session in enumerate(sessions):
                started = time.perf_counter()
                for _ in range(calls):
                    await session.call_tool("echo", {"text": "hi"})
                samples[i].append((time.perf_counter() - started) / calls)
        return samples


def engine_overhead(calls: int, root: Path, rounds: int = 9) -> dict[str, float]:
    """Seconds per call: direct and through the engine, wall and CPU time of this process.

    Both talk to their own process of the same server; their batches alternate, so both
    see the same machine load. CPU time (all of this process's threads) is what the
    engine's own work costs; wall time adds waiting for the threads to be scheduled.
    """
    from mcp import ClientSession, StdioServerParameters, stdio_client

    from engine import Engine
    from engine.mcp.client import settle

    manifest = {"kind": "McpServer", "name": "peer", "transport": "stdio", "command": PEER[0], "args": PEER[1:]}
    (root / "manifests" / "peer.yaml").write_text(json.dumps(manifest))
    params = StdioServerParameters(command=PEER[0], args=PEER[1:], cwd=str(REPO))
    direct: list[tuple[float, float]] = []
    through: list[tuple[float, float]] = []

    async def run(engine: Engine) -> None:
        name = "mcp__peer__echo"

        def engine_batch() -> tuple[float, float]:  # blocks this loop: the direct session just waits
            started, cpu = time.perf_counter(), time.process_time()
            for _ in range(calls):
                engine.call(name, {"text": "hi"})
            return (time.perf_counter() - started) / calls, (time.process_time() - cpu) / calls

        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()

            async def direct_batch() -> tuple[float, float]:
                started, cpu = time.perf_counter(), time.process_time()
                for _ in range(calls):
                    await session.call_tool("echo", {"text": "hi"})
                return (time.perf_counter() - started) / calls, (time.process_time() - cpu) / calls

            await direct_batch()  # warm-up
            engine_batch()
            for _ in range(rounds):
                direct.append(await direct_batch())
                through.append(engine_batch())

    with Engine.load(root) as engine:
        assert settle(engine, 60), "the peer server did not connect"
        assert engine.call("mcp__peer__echo", {"text": "hi"}).ok
        asyncio.run(run(engine))
    return {
        "direct": statistics.median(d[0] for d in direct),
        "through": statistics.median(t[0] for t in through),
        "wall": statistics.median(t[0] - d[0] for d, t in zip(direct, through, strict=True)),
        "direct_cpu": statistics.median(d[1] for d in direct),
        "through_cpu": statistics.median(t[1] for t in through),
        "cpu": statistics.median(t[1] - d[1] for d, t in zip(direct, through, strict=True)),
    }


def handoff_floor(number: int = 5000) -> float:
    """Seconds for the hand-off an McpServer call makes (engine.mcp.calls): a callback given to
    another thread's loop, which releases the lock this thread waits on."""
    import threading

    from engine.mcp.calls import Waiter

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def once() -> None:
        waiter = Waiter()
        loop.call_soon_threadsafe(waiter.resolve)
        waiter.wait()

    for _ in range(200):
        once()
    started = time.perf_counter()
    for _ in range(number):
        once()
    elapsed = (time.perf_counter() - started) / number
    loop.call_soon_threadsafe(loop.stop)
    thread.join()
    loop.close()
    return elapsed


async def list_changed(root: Path, saves: int) -> list[float]:
    import mcp_types as types
    from mcp import ClientSession, StdioServerParameters, stdio_client

    arrived = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            arrived.set()

    serve = [sys.executable, "-m", "engine", "serve", "--root", str(root)]
    params = StdioServerParameters(command=serve[0], args=serve[1:], cwd=str(REPO))
    path = root / "manifests" / "m.yaml"
    latencies = []
    async with stdio_client(params) as (read, write), ClientSession(read, write, message_handler=on_message) as s:
        await s.initialize()
        await s.list_tools()
        for i in range(saves):
            arrived.clear()
            started = time.perf_counter()
            path.write_text(path.read_text() + EXTRA.replace("{i}", str(i)))
            await asyncio.wait_for(arrived.wait(), 10)
            latencies.append(time.perf_counter() - started)
            assert f"added_{i}" in {t.name for t in (await s.list_tools()).tools}
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--saves", type=int, default=15)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hermes-bench-mcp-"))

    serve_root = project(work / "serve")
    serve = [sys.executable, "-m", "engine", "serve", "--root", str(serve_root)]
    theirs_samples, ours_samples = asyncio.run(round_trips([PEER, serve], opts.calls // 4))
    theirs, ours = statistics.median(theirs_samples), statistics.median(ours_samples)
    ratio = statistics.median(o / t for o, t in zip(ours_samples, theirs_samples, strict=True))
    print(
        table(
            "serve over stdio: one tools/call round trip through the official ClientSession (median per call)",
            [
                ("SDK MCPServer (high-level), same echo tool", f"{theirs * 1e6:.0f} us", "1.00x"),
                ("hermes-engine serve", f"{ours * 1e6:.0f} us", f"{ratio:.2f}x (target <= 1.5x)"),
            ],
            ("server", "per call", "ratio (median of per-round ratios)"),
        )
    )
    print()
    m = engine_overhead(opts.calls // 4, project(work / "client"))
    floor = handoff_floor()
    us = 1e6
    print(
        table(
            "A call to a local MCP server over stdio (the SDK's MCPServer echo; median per call)",
            [
                (
                    "await ClientSession.call_tool (direct)",
                    f"{m['direct'] * us:.0f} us",
                    f"{m['direct_cpu'] * us:.0f} us",
                ),
                ("Engine.call('mcp__peer__echo')", f"{m['through'] * us:.0f} us", f"{m['through_cpu'] * us:.0f} us"),
                (
                    "engine overhead (median per-round difference)",
                    f"{m['wall'] * us:.0f} us",
                    f"{m['cpu'] * us:.0f} us",
                ),
                ("floor: a hand-off to the connection's loop and back", f"{floor * us:.0f} us", ""),
            ],
            ("path", "wall", "CPU (this process)"),
        )
    )
    print(
        "target: overhead <= 50 us;", f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print()
    latencies = asyncio.run(list_changed(project(work / "watch"), opts.saves))
    print(
        table(
            f"list_changed: manifest save -> notification at a connected client ({opts.saves} saves)",
            [
                ("median", f"{statistics.median(latencies) * 1e3:.0f} ms", "target <= 150 ms"),
                ("max", f"{max(latencies) * 1e3:.0f} ms", ""),
            ],
            ("", "latency", ""),
        )
    )


if __name__ == "__main__":
    main()
