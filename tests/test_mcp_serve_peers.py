"""`serve` used by other MCP software: the MCP Inspector's CLI and the OpenAI Agents SDK."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_project import write_served_project
from tests.peers import REPO, npm_bin
from tests.test_mcp_serve import BOUND, http_server


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_served_project(tmp_path / "project")


def inspector(*args: str) -> Any:
    done = subprocess.run(
        [npm_bin("mcp-inspector"), "--cli", *args],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=BOUND * 2,
    )
    assert done.returncode == 0, f"inspector failed ({done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def test_inspector_cli_lists_and_calls_serve_over_stdio(project: Path) -> None:
    serve = [sys.executable, "-m", "engine", "serve", "--root", str(project)]
    listed = inspector(*serve, "--method", "tools/list")
    called = inspector(*serve, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=from inspector")
    names = {t["name"] for t in listed["tools"]}
    assert {"echo", "weather", "risky"} <= names
    weather = next(t for t in listed["tools"] if t["name"] == "weather")
    assert weather["outputSchema"]["required"] == ["city", "celsius"]
    assert called["isError"] is False
    assert called["content"] == [{"type": "text", "text": "from inspector"}]


def test_inspector_cli_calls_serve_over_streamable_http(project: Path) -> None:
    with http_server(project) as url:
        called = inspector(
            url, "--transport", "http", "--method", "tools/call", "--tool-name", "weather", "--tool-arg", "city=Lima"
        )
    assert called["structuredContent"] == {"city": "Lima", "celsius": 21}


def test_openai_agents_sdk_runs_an_agent_loop_through_serve(project: Path) -> None:
    from agents import Agent, ModelResponse, RunConfig, Runner, Usage
    from agents.mcp import MCPServerStdio
    from agents.models.interface import Model
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    seen: dict[str, Any] = {}

    class Scripted(Model):
        """Calls echo once, then answers with what the tool returned."""

        async def get_response(
            self,
            system_instructions: Any,
            input: Any,
            model_settings: Any,
            tools: Any,
            output_schema: Any,
            handoffs: Any,
            tracing: Any,
            **_: Any,
        ) -> ModelResponse:
            seen.setdefault("tools", sorted(t.name for t in tools))
            outputs = [i for i in input if isinstance(i, dict) and i.get("type") == "function_call_output"]
            if not outputs:
                call = ResponseFunctionToolCall(
                    type="function_call",
                    call_id="c1",
                    name="echo",
                    arguments='{"text": "through the agent"}',
                    id="fc1",
                    status="completed",
                )
                return ModelResponse(output=[call], usage=Usage(), response_id=None)
            seen["tool_output"] = outputs[0]["output"]
            text = ResponseOutputText(type="output_text", text=f"done: {outputs[0]['output']}", annotations=[])
            message = ResponseOutputMessage(
                id="m1", role="assistant", status="completed", type="message", content=[text]
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    async def scenario() -> Any:
        params = {
            "command": sys.executable,
            "args": ["-m", "engine", "serve", "--root", str(project)],
            "cwd": str(REPO),
        }
        async with MCPServerStdio(params=params, name="hermes", client_session_timeout_seconds=BOUND) as server:
            agent = Agent(name="a", instructions="use the tools", model=Scripted(), mcp_servers=[server])
            return await Runner.run(agent, "say something", run_config=RunConfig(tracing_disabled=True))

    result = asyncio.run(scenario())
    assert "echo" in seen["tools"] and "risky" in seen["tools"]
    assert "through the agent" in str(seen["tool_output"])
    assert result.final_output.startswith("done:")
