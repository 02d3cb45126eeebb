"""engine.adapters.langchain_tools in complete LangChain loops: langgraph's prebuilt ToolNode driven
by LangChain's own GenericFakeChatModel (sync and async), bad input from a hand-written loop, and
the lazy import of the frameworks."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from pydantic import Field

from engine import Engine
from engine.adapters import langchain_tools
from tests.framework_project import DANGEROUS, load

REPO = Path(__file__).resolve().parent.parent


class Scripted(GenericFakeChatModel):
    """LangChain's fake chat model, with bind_tools recording what a real model would be sent."""

    bound: list[dict[str, Any]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Scripted:  # type: ignore[override]
        self.bound.extend(convert_to_openai_tool(t) for t in tools)
        return self


def turns(*messages: AIMessage) -> Iterator[AIMessage]:
    return iter(messages)


def call(name: str, args: Any, call_id: str) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args, "id": call_id}


FIRST_TURN = AIMessage(
    content="",
    tool_calls=[
        call("echo", {"text": "hi"}, "c1"),
        call("aecho", {"text": "there"}, "c2"),
        call("boom", {"message": "kaput"}, "c3"),
        call("terminal", {"command": DANGEROUS}, "c4"),
        call("nope", {}, "c5"),
        call("", {}, "c6"),
        call("chart", {}, "c7"),
        call("terminal", {"command": "echo adapter-ok"}, "c8"),
    ],
)


def graph(model: Scripted, tools: list[Any]) -> Any:
    """The prebuilt agent loop: model → ToolNode → model until no tool calls. ToolNode's own
    error handling is off, so a tool that raised would fail the run."""
    bound = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, list[AnyMessage]]:
        return {"messages": [bound.invoke(state["messages"])]}

    async def aagent(state: MessagesState) -> dict[str, list[AnyMessage]]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent, afunc=aagent)  # type: ignore[call-overload]
    builder.add_node("tools", ToolNode(tools, handle_tool_errors=False))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile()


def by_id(messages: list[Any]) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}


def error_type(message: ToolMessage) -> str:
    assert message.status == "error", message
    return str(json.loads(str(message.content))["error_type"])


def check_loop(engine: Engine, asked: list[str], messages: list[Any], seen_ids: list[str | None]) -> None:
    assert messages[-1].content == "done"
    results = by_id(messages)
    assert set(results) == {f"c{i}" for i in range(1, 9)}
    assert (results["c1"].content, results["c1"].status) == ("hi", "success")
    assert results["c2"].content == "async there"
    assert error_type(results["c3"]) == "handler_error"
    assert "kaput" in str(results["c3"].content)
    # The approval denial: asked, refused, and the command never ran.
    assert error_type(results["c4"]) == "denied"
    assert any("git push --force" in command for command in asked)
    assert not (engine.workdir / "ran").exists()
    # Names the engine does not have are answered by the loop itself; the run goes on.
    assert results["c5"].status == "error" and results["c6"].status == "error"
    assert results["c7"].content == [
        {"type": "text", "text": "a chart"},
        {"type": "image", "base64": "aGVsbG8=", "mime_type": "image/png"},
    ]
    assert "adapter-ok" in str(results["c8"].content) and results["c8"].status == "success"
    # Each call reached the engine under its tool call id.
    assert sorted(i for i in seen_ids if i) == ["c1", "c2", "c3", "c4", "c7", "c8"]


@pytest.fixture
def loop_engine(
    write_project: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Engine, list[str], list[str | None]]:
    engine, asked = load(write_project, tmp_path, monkeypatch)
    seen: list[str | None] = []
    # A hook receives the keywords it declares: this one asks for the tool call id.
    engine.add_hook("pre_tool_call", lambda tool_call_id: seen.append(tool_call_id))  # noqa: PLW0108
    return engine, asked, seen


def test_a_langgraph_agent_loop_runs_the_engine_tools(loop_engine: tuple[Engine, list[str], list[str | None]]) -> None:
    engine, asked, seen = loop_engine
    tools = langchain_tools(engine, enabled=["demo", "terminal"])
    model = Scripted(messages=turns(FIRST_TURN, AIMessage(content="done")))
    out = graph(model, tools).invoke({"messages": [HumanMessage("go")]})
    check_loop(engine, asked, out["messages"], seen)
    # What the model was offered is the engine's own openai definitions.
    expected = {d["function"]["name"]: d["function"] for d in engine.definitions(enabled=["demo", "terminal"])}
    assert {b["function"]["name"] for b in model.bound} == set(expected)
    for bound in model.bound:
        function = bound["function"]
        assert function["description"] == expected[function["name"]]["description"]
        assert function["parameters"]["properties"] == expected[function["name"]]["parameters"].get("properties", {})


def test_the_same_loop_async(loop_engine: tuple[Engine, list[str], list[str | None]]) -> None:
    engine, asked, seen = loop_engine
    tools = langchain_tools(engine, enabled=["demo", "terminal"], session_id="s-async")
    model = Scripted(messages=turns(FIRST_TURN, AIMessage(content="done")))
    out = asyncio.run(graph(model, tools).ainvoke({"messages": [HumanMessage("go")]}))
    check_loop(engine, asked, out["messages"], seen)


def test_bad_input_from_a_hand_written_loop_is_an_error_message_and_the_others_run(
    write_project: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = load(write_project, tmp_path, monkeypatch)
    tools = {t.name: t for t in langchain_tools(engine, enabled=["demo"])}
    calls = [
        call("echo", '{"text": ', "b1"),  # not JSON
        call("echo", '{"text": "from text"}', "b2"),  # JSON text is read like the model's raw arguments
        call("echo", ["a"], "b3"),  # not an object
        call("echo", {"self": 1, "config": 2, "run_manager": 3}, "b4"),  # _run's keyword names
        call("echo", None, "b5"),  # no arguments: the required one is missing
        call("echo", {"text": 5}, "b6"),  # a number where text is wanted
        call("echo", {"text": "last"}, "b7"),
    ]
    out = [tools[c["name"]].invoke(c) for c in calls]
    assert [m.tool_call_id for m in out] == [c["id"] for c in calls]
    assert [m.status for m in out] == ["error", "success", "error", "error", "error", "error", "success"]
    assert [error_type(out[i]) for i in (0, 2, 3, 4, 5)] == ["invalid_arguments"] * 5
    assert "not valid JSON" in str(out[0].content)
    assert (out[1].content, out[6].content) == ("from text", "last")

    async def run_async() -> list[Any]:
        arguments = ['{"text"', {"text": "ok"}]
        return [await tools["aecho"].ainvoke(call("aecho", a, f"a{i}")) for i, a in enumerate(arguments)]

    first, second = asyncio.run(run_async())
    assert error_type(first) == "invalid_arguments"
    assert second.content == "async ok"
    # Invoked without a tool call (a plain dict, or JSON text): the content itself, and no call id.
    seen: list[str | None] = []
    engine.add_hook("pre_tool_call", lambda tool_call_id: seen.append(tool_call_id))  # noqa: PLW0108
    assert tools["echo"].invoke({"text": "plain"}) == "plain"
    assert seen == [None]
    assert tools["echo"].invoke('{"text": "raw"}') == "raw"


def test_a_tool_gone_since_the_tools_were_built_answers_unknown_tool(
    write_project: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = load(write_project, tmp_path, monkeypatch)
    tools = {t.name: t for t in langchain_tools(engine, enabled=["demo"])}
    manifest = engine.root / "manifests" / "demo.yaml"
    documents = manifest.read_text().split("---\n")
    manifest.write_text("---\n".join(d for d in documents if "name: boom" not in d))
    engine.reload([manifest], approve=True)  # the test removed it, not a tool
    assert "boom" not in engine.tools
    gone = tools["boom"].invoke(call("boom", {"message": "x"}, "g1"))
    assert error_type(gone) == "unknown_tool"
    assert tools["echo"].invoke(call("echo", {"text": "still"}, "g2")).content == "still"


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], check=False, cwd=REPO, capture_output=True, text=True, timeout=60
    )


def test_importing_the_engine_imports_no_framework(tmp_path: Path) -> None:
    code = (
        "import sys, engine, engine.adapters\n"
        "from engine import Engine\n"
        "e = Engine.load(sys.argv[1]); e.definitions(); e.call('read_file', {'path': 'README.md', 'limit': 1})\n"
        "print(sorted(m for m in ('langchain_core', 'langgraph', 'agents', 'openai', 'pydantic_core')"
        " if m in sys.modules))\n"
    )
    done = _python(code, str(REPO))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("module", "adapter", "extra"),
    [("langchain_core", "langchain_tools", "langchain"), ("agents", "openai_agents_tools", "agents")],
)
def test_a_missing_framework_is_an_import_error_naming_the_extra(module: str, adapter: str, extra: str) -> None:
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from engine import Engine\n"
        f"from engine.adapters import {adapter}\n"
        "e = Engine.load(sys.argv[1])\n"
        "try:\n"
        f"    {adapter}(e)\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = _python(code, str(REPO))
    assert done.returncode == 0, done.stderr
    assert f"pip install 'hermes-engine[{extra}]'" in done.stdout
