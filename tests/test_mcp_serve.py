"""`hermes-engine serve` against the official MCP client (stdio and streamable HTTP)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from click.testing import CliRunner
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from engine.cli import cli
from tests.mcp_project import write_served_project

REPO = Path(__file__).resolve().parent.parent
BOUND = 30  # seconds any single wait may take before the test fails


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_served_project(tmp_path / "project")


def _serve_args(root: Path, *extra: str) -> list[str]:
    return ["-m", "engine", "serve", "--root", str(root), *extra]


@contextlib.asynccontextmanager
async def stdio_session(root: Path, *extra: str, **callbacks: Any) -> AsyncIterator[ClientSession]:
    # The test's own state and config dirs (conftest): the SDK passes only a default set of variables.
    env = {k: os.environ[k] for k in ("XDG_STATE_HOME", "XDG_CONFIG_HOME") if k in os.environ}
    params = StdioServerParameters(command=sys.executable, args=_serve_args(root, *extra), cwd=str(REPO), env=env)
    with anyio.fail_after(BOUND):
        async with stdio_client(params) as (read, write), ClientSession(read, write, **callbacks) as session:
            await session.initialize()
            yield session


def run(scenario: Callable[[], Any]) -> Any:
    return asyncio.run(scenario())


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


# -- listing -----------------------------------------------------------------------------


def test_tools_list_carries_titles_output_schemas_and_annotation_hints(project: Path) -> None:
    async def scenario() -> dict[str, types.Tool]:
        async with stdio_session(project) as session:
            assert session.server_capabilities is not None
            assert session.server_capabilities.tools is not None
            assert session.server_capabilities.tools.list_changed is True
            return {t.name: t for t in (await session.list_tools()).tools}

    tools = run(scenario)
    assert {"echo", "weather", "picture", "risky"} <= set(tools)
    assert tools["echo"].title == "Echo"
    assert tools["echo"].annotations is not None
    assert tools["echo"].annotations.read_only_hint is True
    assert tools["echo"].annotations.idempotent_hint is True
    assert tools["weather"].output_schema is not None
    assert tools["weather"].output_schema["required"] == ["city", "celsius"]
    assert tools["echo"].input_schema["required"] == ["text"]


def test_disabled_toolset_is_neither_listed_nor_callable(project: Path) -> None:
    marker = project / "ran"

    async def scenario() -> tuple[set[str], types.CallToolResult]:
        async with stdio_session(project, "--disable", "pics") as session:
            names = {t.name for t in (await session.list_tools()).tools}
            return names, await session.call_tool("picture", {})

    names, result = run(scenario)
    assert "picture" not in names and "echo" in names
    assert result.is_error
    assert "unknown tool 'picture'" in text_of(result)
    assert not marker.exists()


# -- calls -------------------------------------------------------------------------------


def test_calls_return_text_structured_content_images_and_errors(project: Path) -> None:
    async def scenario() -> dict[str, types.CallToolResult]:
        async with stdio_session(project) as session:
            return {
                "echo": await session.call_tool("echo", {"text": "hi"}),
                "weather": await session.call_tool("weather", {"city": "Oslo"}),
                "wrong_shape": await session.call_tool("wrong_shape", {"city": "Oslo"}),
                "fail": await session.call_tool("fail", {}),
                "picture": await session.call_tool("picture", {}),
                "invalid": await session.call_tool("echo", {"text": 5, "extra": 1}),
            }

    results = run(scenario)
    assert not results["echo"].is_error and text_of(results["echo"]) == "hi"
    assert results["weather"].structured_content == {"city": "Oslo", "celsius": 21}
    assert results["wrong_shape"].is_error and results["wrong_shape"].structured_content is None
    assert "/celsius" in text_of(results["wrong_shape"])
    assert results["fail"].is_error and "the thing is broken" in text_of(results["fail"])
    image = [b for b in results["picture"].content if isinstance(b, types.ImageContent)]
    assert len(image) == 1 and image[0].mime_type == "image/png"
    assert results["invalid"].is_error and "invalid_arguments" in text_of(results["invalid"])


def test_progress_reaches_the_client_before_the_result(project: Path) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def scenario() -> types.CallToolResult:
        async with stdio_session(project) as session:
            return await session.call_tool("counted", {"steps": 3}, progress_callback=progress)

    result = run(scenario)
    assert text_of(result) == "3 steps"
    assert seen == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]


def test_a_client_cancellation_cancels_the_async_handler(project: Path) -> None:
    marker = project / "marker"

    async def scenario() -> None:
        async with stdio_session(project) as session:
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    await session.call_tool("wait_forever", {"marker": str(marker)})

                group.start_soon(call)
                await _wait_until(marker.exists)  # the handler writes it when it starts
                group.cancel_scope.cancel()  # the SDK sends notifications/cancelled
            # A later request is answered after the cancellation was handled on the server.
            await session.call_tool("echo", {"text": "barrier"})

    run(scenario)
    assert marker.read_text() == "cancelled"


def test_a_sync_handler_is_told_of_the_cancellation(project: Path) -> None:
    marker = project / "marker"

    async def scenario() -> None:
        async with stdio_session(project) as session:
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    await session.call_tool("until_cancelled", {"marker": str(marker)})

                group.start_soon(call)
                await _wait_until(marker.exists)
                group.cancel_scope.cancel()
            await _wait_until(lambda: marker.read_text() != "started")

    run(scenario)
    assert marker.read_text() == "saw the cancellation"


async def _wait_until(condition: Callable[[], bool]) -> None:
    """Poll a condition another process makes true, failing the test after BOUND seconds."""
    with anyio.fail_after(BOUND):
        while not condition():
            await anyio.sleep(0.01)


# -- approvals -----------------------------------------------------------------------------


def _answer(decision: str | None, asked: list[str]) -> Any:
    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if decision is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"decision": decision})

    return elicit


def test_elicitation_approve_runs_the_tool_and_deny_does_not(project: Path) -> None:
    approved, denied = project / "approved", project / "denied"
    asked: list[str] = []

    async def scenario() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with stdio_session(project, elicitation_callback=_answer("once", asked)) as session:
            ok = await session.call_tool("risky", {"marker": str(approved)})
        async with stdio_session(project, elicitation_callback=_answer("deny", asked)) as session:
            refused = await session.call_tool("risky", {"marker": str(denied)})
        return ok, refused

    ok, refused = run(scenario)
    assert not ok.is_error and approved.read_text() == "ran"
    assert refused.is_error and "denied" in text_of(refused)
    assert not denied.exists()
    assert len(asked) == 2 and "risky writes a file" in asked[0]


def test_declined_elicitation_is_a_denial(project: Path) -> None:
    target = project / "declined"

    async def scenario() -> types.CallToolResult:
        async with stdio_session(project, elicitation_callback=_answer(None, [])) as session:
            return await session.call_tool("risky", {"marker": str(target)})

    assert run(scenario).is_error
    assert not target.exists()


def test_session_answer_covers_later_calls_of_the_same_session_only(project: Path) -> None:
    asked: list[str] = []
    first, second, other = project / "first", project / "second", project / "other"

    async def scenario() -> None:
        async with stdio_session(project, elicitation_callback=_answer("session", asked)) as session:
            await session.call_tool("risky", {"marker": str(first)})
            await session.call_tool("risky", {"marker": str(second)})
        async with stdio_session(project, elicitation_callback=_answer("deny", asked)) as session:
            await session.call_tool("risky", {"marker": str(other)})

    run(scenario)
    assert first.exists() and second.exists()
    assert len(asked) == 2  # once for the first session, once for the new one
    assert not other.exists()


def test_without_elicitation_the_call_is_refused_with_a_pending_approval(project: Path) -> None:
    target = project / "never"

    async def scenario() -> types.CallToolResult:
        async with stdio_session(project) as session:
            return await session.call_tool("risky", {"marker": str(target)})

    result = run(scenario)
    assert result.is_error and "pending_approval" in text_of(result)
    assert not target.exists()


# -- reload --------------------------------------------------------------------------------

NEW_TOOL = """
---
kind: Tool
name: added_later
toolset: t
description: Appeared after a save.
handler: mcp_handlers:echo
parameters:
  type: object
  properties: {text: {type: string}}
  required: [text]
"""


def test_a_manifest_save_sends_list_changed_and_the_new_list(project: Path) -> None:
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async def scenario() -> tuple[set[str], str]:
        async with stdio_session(project, message_handler=on_message) as session:
            await session.list_tools()
            path = project / "manifests" / "m.yaml"
            path.write_text(path.read_text() + NEW_TOOL)
            approve_engine_files(project)  # a save is served once someone approves it
            with anyio.fail_after(BOUND):
                await changed.wait()
            names = {t.name for t in (await session.list_tools()).tools}
            return names, text_of(await session.call_tool("added_later", {"text": "new"}))

    names, output = run(scenario)
    assert "added_later" in names
    assert output == "new"


# -- streamable HTTP -------------------------------------------------------------------------


def approve_engine_files(root: Path) -> None:
    """`hermes-engine trust --yes`: the running server reloads what it then approves."""
    result = CliRunner().invoke(cli, ["trust", "--root", str(root), "--yes"])
    assert result.exit_code == 0, result.output


@contextlib.contextmanager
def http_server(root: Path, *extra: str, env: dict[str, str] | None = None) -> Any:
    """`serve --transport http --port 0`; yields the URL it prints once listening."""
    environ = {k: v for k, v in os.environ.items() if k != "HERMES_ENGINE_MCP_TOKEN"}
    environ.update(env or {})
    process = subprocess.Popen(
        [sys.executable, *_serve_args(root, "--transport", "http", "--port", "0", *extra)],
        cwd=REPO,
        env=environ,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "listening on" in line, f"serve did not start: {line}{process.stderr.read() if process.poll() else ''}"
        # Keep reading its stderr so a chatty server never blocks on a full pipe.
        drain = threading.Thread(target=process.stderr.read, daemon=True)
        drain.start()
        yield line.rsplit(" ", 1)[1].strip()
    finally:
        process.terminate()
        try:
            process.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


@contextlib.asynccontextmanager
async def http_session(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    with anyio.fail_after(BOUND):
        async with (
            httpx2.AsyncClient(headers=headers or {}) as client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


TOKEN = "a-long-random-test-token-0123456789"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
CALL_RISKY = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def test_http_session_lists_and_calls(project: Path) -> None:
    async def scenario(url: str) -> tuple[set[str], types.CallToolResult]:
        async with http_session(url) as session:
            names = {t.name for t in (await session.list_tools()).tools}
            return names, await session.call_tool("weather", {"city": "Rome"})

    with http_server(project) as url:
        names, result = asyncio.run(scenario(url))
    assert "echo" in names
    assert result.structured_content == {"city": "Rome", "celsius": 21}


def test_http_stateless_mode_answers_each_request_on_its_own(project: Path) -> None:
    async def scenario(url: str) -> list[str]:
        async with http_session(url) as session:
            return [text_of(await session.call_tool("echo", {"text": str(i)})) for i in range(3)]

    with http_server(project, "--stateless") as url:
        assert asyncio.run(scenario(url)) == ["0", "1", "2"]


def test_http_list_changed_reaches_a_connected_client(project: Path) -> None:
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async def scenario(url: str) -> set[str]:
        with anyio.fail_after(BOUND):
            async with (
                httpx2.AsyncClient() as client,
                streamable_http_client(url, http_client=client) as (
                    read,
                    write,
                ),
                ClientSession(read, write, message_handler=on_message) as session,
            ):
                await session.initialize()
                await session.list_tools()
                path = project / "manifests" / "m.yaml"
                path.write_text(path.read_text() + NEW_TOOL)
                approve_engine_files(project)  # a save is served once someone approves it
                await changed.wait()
                return {t.name for t in (await session.list_tools()).tools}

    with http_server(project) as url:
        assert "added_later" in asyncio.run(scenario(url))


def test_http_without_the_token_is_401_and_runs_nothing(project: Path) -> None:
    marker = project / "ran"
    risky = {**CALL_RISKY, "params": {"name": "risky", "arguments": {"marker": str(marker)}}}
    with http_server(project, env={"HERMES_ENGINE_MCP_TOKEN": TOKEN}) as url:
        with httpx2.Client(timeout=BOUND) as client:
            anonymous = client.post(url, json=INITIALIZE, headers=ACCEPT)
            wrong = client.post(url, json=risky, headers={**ACCEPT, "authorization": "Bearer nope"})
            right = client.post(url, json=INITIALIZE, headers={**ACCEPT, "authorization": f"Bearer {TOKEN}"})

        async def scenario() -> str:
            async with http_session(url, {"authorization": f"Bearer {TOKEN}"}) as session:
                return text_of(await session.call_tool("echo", {"text": "with token"}))

        assert asyncio.run(scenario()) == "with token"
    assert anonymous.status_code == 401 and anonymous.headers["www-authenticate"] == "Bearer"
    assert wrong.status_code == 401
    assert right.status_code == 200
    assert not marker.exists()


def test_http_foreign_origin_is_refused(project: Path) -> None:
    with http_server(project) as url, httpx2.Client(timeout=BOUND) as client:
        evil = client.post(url, json=INITIALIZE, headers={**ACCEPT, "origin": "http://evil.example"})
        local = client.post(url, json=INITIALIZE, headers={**ACCEPT, "origin": "http://localhost:3000"})
    assert evil.status_code == 403
    assert local.status_code == 200


def test_serving_beyond_loopback_without_a_token_is_a_usage_error(project: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if k != "HERMES_ENGINE_MCP_TOKEN"}
    done = subprocess.run(
        [sys.executable, *_serve_args(project, "--transport", "http", "--host", "0.0.0.0", "--port", "0")],
        check=False,
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=BOUND,
    )
    assert done.returncode == 2
    assert "HERMES_ENGINE_MCP_TOKEN" in done.stderr


# -- the 2026-07-28 protocol: questions as input_required results ------------------------------


@contextlib.asynccontextmanager
async def modern_client(root: Path, **options: Any) -> AsyncIterator[Any]:
    from mcp import Client

    params = StdioServerParameters(command=sys.executable, args=_serve_args(root), cwd=str(REPO))
    with anyio.fail_after(BOUND):
        async with Client(params, **options) as client:
            assert client.session.protocol_version == "2026-07-28"
            yield client


def test_modern_client_answers_an_approval_through_input_required(project: Path) -> None:
    approved, denied = project / "approved", project / "denied"
    asked: list[str] = []

    async def scenario() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with modern_client(project, elicitation_callback=_answer("once", asked)) as client:
            ok = await client.call_tool("risky", {"marker": str(approved)})
        async with modern_client(project, elicitation_callback=_answer("deny", asked)) as client:
            refused = await client.call_tool("risky", {"marker": str(denied)})
        return ok, refused

    ok, refused = run(scenario)
    assert not ok.is_error and approved.read_text() == "ran"
    assert refused.is_error and not denied.exists()
    assert len(asked) == 2 and "risky writes a file" in asked[0]


def test_a_forged_answer_without_the_issued_state_is_a_denial(project: Path) -> None:
    target = project / "forged"
    from engine.mcp.approval import INPUT_KEY

    forged = {INPUT_KEY: types.ElicitResult(action="accept", content={"decision": "once"})}

    async def scenario() -> Any:
        async with modern_client(project) as client:
            return await client.session.call_tool(
                "risky",
                {"marker": str(target)},
                input_responses=forged,
                request_state="9999999999.0000",
                allow_input_required=True,
            )

    result = run(scenario)
    assert isinstance(result, types.CallToolResult) and result.is_error
    assert not target.exists()


def test_an_input_required_answer_counts_at_another_stateless_process_sharing_the_grants(
    project: Path, tmp_path: Path
) -> None:
    from engine.mcp.approval import INPUT_KEY

    grants = str(tmp_path / "shared-grants.sqlite")
    approved, forged = project / "approved", project / "forged"
    yes = {INPUT_KEY: types.ElicitResult(action="accept", content={"decision": "once"})}

    async def scenario(first: str, second: str, other: str) -> tuple[Any, Any, Any]:
        from mcp import Client

        async def call(url: str, marker: Path, **answer: Any) -> Any:
            with anyio.fail_after(BOUND):
                async with Client(url, elicitation_callback=_answer("deny", [])) as client:
                    assert client.session.protocol_version == "2026-07-28"
                    return await client.session.call_tool(
                        "risky", {"marker": str(marker)}, allow_input_required=True, **answer
                    )

        asked = await call(first, approved)
        assert isinstance(asked, types.InputRequiredResult) and asked.request_state
        answer = {"input_responses": yes, "request_state": asked.request_state}
        answered = await call(second, approved, **answer)
        refused = await call(other, forged, **answer)  # its own grants file: its own key
        return asked, answered, refused

    with (
        http_server(project, "--stateless", "--grants", grants) as first,
        http_server(project, "--stateless", "--grants", grants) as second,
        http_server(project, "--stateless", "--grants", str(tmp_path / "other.sqlite")) as other,
    ):
        _, answered, refused = run(lambda: scenario(first, second, other))
    assert isinstance(answered, types.CallToolResult) and not answered.is_error, answered
    assert approved.read_text() == "ran"
    assert isinstance(refused, types.CallToolResult) and refused.is_error and not forged.exists()
