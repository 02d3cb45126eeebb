"""Tool search through `hermes-engine serve`: the meta-tools over MCP, approvals on the inner call."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.conftest import REPO
from tests.mcp_project import write_served_project

BOUND = 30  # seconds any single wait may take before the test fails


@contextlib.asynccontextmanager
async def session_with(root: Path, *extra: str, **callbacks: Any) -> AsyncIterator[ClientSession]:
    args = ["-m", "engine", "serve", "--root", str(root), *extra]
    params = StdioServerParameters(command=sys.executable, args=args, cwd=str(REPO))
    with anyio.fail_after(BOUND):
        async with stdio_client(params) as (read, write), ClientSession(read, write, **callbacks) as session:
            await session.initialize()
            yield session


def answering(decision: str, asked: list[str]) -> Any:
    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decision})

    return elicit


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def project(tmp_path: Path) -> Path:
    root = write_served_project(tmp_path / "project")
    config = root / "hermes-engine.yaml"
    config.write_text(config.read_text() + "tool_search: {budget_tokens: 100000, defer: [risky, picture]}\n")
    return root


def test_a_deferred_tool_is_found_and_run_over_mcp_with_its_approval_asked(tmp_path: Path) -> None:
    root = project(tmp_path)
    approved, early = root / "approved", root / "early"
    asked: list[str] = []

    async def scenario() -> tuple[set[str], types.CallToolResult, list[str], types.CallToolResult]:
        async with session_with(root, elicitation_callback=answering("once", asked)) as session:
            listed = {t.name for t in (await session.list_tools()).tools}
            too_early = await session.call_tool("tool_call", {"name": "risky", "arguments": {"marker": str(early)}})
            found = await session.call_tool("tool_search", {"query": "risky tool that writes a marker file"})
            names = [t["name"] for t in json.loads(text_of(found))["tools"]]
            ran = await session.call_tool("tool_call", {"name": "risky", "arguments": {"marker": str(approved)}})
            return listed, too_early, names, ran

    listed, too_early, names, ran = asyncio.run(scenario())
    assert {"tool_search", "tool_describe", "tool_call", "echo"} <= listed and "risky" not in listed
    assert too_early.is_error and "not_found_yet" in text_of(too_early) and not early.exists()
    assert names[0] == "risky"
    assert not ran.is_error and approved.read_text() == "ran"
    assert asked and "risky writes a file" in asked[0]


def test_over_mcp_a_denied_inner_call_does_not_run_and_disabled_toolsets_stay_out(tmp_path: Path) -> None:
    root = project(tmp_path)
    denied = root / "denied"
    asked: list[str] = []

    async def scenario() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with session_with(root, "--disable", "pics", elicitation_callback=answering("deny", asked)) as session:
            await session.call_tool("tool_search", {"query": "risky writes a file"})
            refused = await session.call_tool("tool_call", {"name": "risky", "arguments": {"marker": str(denied)}})
            hidden = await session.call_tool("tool_call", {"name": "picture", "arguments": {}})
            return refused, hidden

    refused, hidden = asyncio.run(scenario())
    assert refused.is_error and "denied" in text_of(refused) and not denied.exists()
    assert len(asked) == 1
    assert hidden.is_error and "unknown_tool" in text_of(hidden)


def test_stateless_http_serve_reaches_found_tools_across_requests_and_only_in_scope(tmp_path: Path) -> None:
    from tests.test_mcp_serve import http_server, http_session

    root = project(tmp_path)

    async def scenario(url: str) -> tuple[types.CallToolResult, types.CallToolResult]:
        async with http_session(url) as first:
            await first.call_tool("tool_search", {"query": "a picture"})
        async with http_session(url) as second:  # another request, another worker: nothing is remembered
            return await second.call_tool("tool_call", {"name": "picture", "arguments": {}}), await second.call_tool(
                "tool_call", {"name": "risky", "arguments": {"marker": str(root / "never")}}
            )

    with http_server(root, "--stateless") as url:
        picture, risky = asyncio.run(scenario(url))
    assert not picture.is_error and "a picture" in text_of(picture)
    assert risky.is_error and not (root / "never").exists()  # in scope, but its approval still holds
    with http_server(root, "--stateless", "--disable", "pics") as url:
        hidden, _ = asyncio.run(scenario(url))
    assert hidden.is_error and "unknown_tool" in text_of(hidden)
