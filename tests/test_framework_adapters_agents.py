"""engine.adapters.openai_agents_tools in a complete OpenAI Agents SDK run: Runner.run driven by a
scripted Model of the SDK's own interface, with an error result, an approval denial and bad input."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, FunctionTool, ModelResponse, RunConfig, Runner, Usage
from agents.models.interface import Model
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from engine.adapters import openai_agents_tools
from tests.framework_project import DANGEROUS, load

CALLS = [
    ("c1", "echo", '{"text": "hi"}'),
    ("c2", "aecho", '{"text": "there"}'),
    ("c3", "boom", '{"message": "kaput"}'),
    ("c4", "terminal", json.dumps({"command": DANGEROUS})),
    ("c5", "echo", '{"text": '),  # arguments that are not JSON
    ("c6", "echo", "[1, 2]"),  # JSON, not an object
    ("c7", "nope", "{}"),  # a tool the agent does not have
    ("c8", "chart", ""),  # no arguments at all
    ("c9", "terminal", '{"command": "echo adapter-ok"}'),
]


class Scripted(Model):
    """Asks for every call in CALLS at once, then answers "done" with what came back."""

    def __init__(self) -> None:
        self.offered: list[Any] = []
        self.outputs: dict[str, Any] = {}

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
        self.offered = list(tools)
        outputs = [i for i in input if isinstance(i, dict) and i.get("type") == "function_call_output"]
        if not outputs:
            calls = [
                ResponseFunctionToolCall(
                    type="function_call", call_id=cid, name=name, arguments=args, id=f"fc_{cid}", status="completed"
                )
                for cid, name, args in CALLS
            ]
            return ModelResponse(output=list(calls), usage=Usage(), response_id=None)
        self.outputs = {o["call_id"]: o["output"] for o in outputs}
        text = ResponseOutputText(type="output_text", text="done", annotations=[])
        message = ResponseOutputMessage(id="m1", role="assistant", status="completed", type="message", content=[text])
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def error_type(output: Any) -> str:
    return str(json.loads(output)["error_type"])


def test_runner_run_drives_the_engine_tools(
    write_project: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, asked = load(write_project, tmp_path, monkeypatch)
    seen: list[str | None] = []
    # A hook receives the keywords it declares: this one asks for the tool call id.
    engine.add_hook("pre_tool_call", lambda tool_call_id: seen.append(tool_call_id))  # noqa: PLW0108
    tools = openai_agents_tools(engine, enabled=["demo", "terminal"], session_id="s1")
    assert all(isinstance(t, FunctionTool) for t in tools)
    model = Scripted()
    agent = Agent(name="a", instructions="use the tools", model=model, tools=list(tools))
    # The SDK answers a name the agent does not have only when told to; the rest is the adapter's.
    config = RunConfig(tracing_disabled=True, tool_not_found_behavior="return_error_to_model")
    result = asyncio.run(Runner.run(agent, "go", run_config=config))
    assert result.final_output == "done"

    out = model.outputs
    assert set(out) == {cid for cid, _, _ in CALLS}
    assert (out["c1"], out["c2"]) == ("hi", "async there")
    assert error_type(out["c3"]) == "handler_error" and "kaput" in out["c3"]
    # The approval denial: asked, refused, never run.
    assert error_type(out["c4"]) == "denied"
    assert any("git push --force" in command for command in asked)
    assert not (engine.workdir / "ran").exists()
    assert error_type(out["c5"]) == "invalid_arguments" and "not valid JSON" in out["c5"]
    assert error_type(out["c6"]) == "invalid_arguments"
    assert "nope" in str(out["c7"])
    assert out["c8"][0]["text"] == "a chart"
    assert out["c8"][1]["image_url"] == "data:image/png;base64,aGVsbG8="
    assert "adapter-ok" in out["c9"]
    # Every call the adapter answered reached the engine under its call id (c5, c6: refused before).
    assert sorted(i for i in seen if i) == ["c1", "c2", "c3", "c4", "c8", "c9"]

    # The model was offered the engine's own definitions.
    expected = {d["function"]["name"]: d["function"] for d in engine.definitions(enabled=["demo", "terminal"])}
    offered = {t.name: t for t in model.offered}
    assert set(offered) == set(expected)
    for name, tool in offered.items():
        assert tool.description == expected[name]["description"]
        assert tool.params_json_schema == expected[name]["parameters"]
        assert tool.strict_json_schema == bool(expected[name].get("strict", False))


def test_a_tool_gone_since_the_tools_were_built_answers_unknown_tool(
    write_project: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = load(write_project, tmp_path, monkeypatch)
    tools = {t.name: t for t in openai_agents_tools(engine, enabled=["demo"])}
    manifest = engine.root / "manifests" / "demo.yaml"
    manifest.write_text("---\n".join(d for d in manifest.read_text().split("---\n") if "name: boom" not in d))
    engine.reload([manifest], approve=True)  # the test removed it, not a tool

    from agents.tool_context import ToolContext

    def invoke(name: str, arguments: str) -> Any:
        ctx = ToolContext(context=None, tool_name=name, tool_call_id="g", tool_arguments=arguments)
        return asyncio.run(tools[name].on_invoke_tool(ctx, arguments))

    assert error_type(invoke("boom", '{"message": "x"}')) == "unknown_tool"
    assert invoke("echo", '{"text": "still"}') == "still"


def test_the_tools_own_their_schemas(
    write_project: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A framework may rewrite a tool's schema in place; the engine's shared definitions stay as they were."""
    engine, _ = load(write_project, tmp_path, monkeypatch)
    before = json.dumps(engine.definitions(enabled=["demo"]), sort_keys=True)
    for tool in openai_agents_tools(engine, enabled=["demo"]):
        tool.params_json_schema["properties"] = {"changed": {"type": "string"}}
        tool.params_json_schema.setdefault("required", []).append("changed")
    assert json.dumps(engine.definitions(enabled=["demo"]), sort_keys=True) == before
