"""Tools from another source (an MCP server's listing): deferred last, refreshed with the generation."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from pathlib import Path
from types import MappingProxyType

import jsonschema_rs

from engine.compile.binding import describe
from engine.registry.sources import Contribution
from engine.registry.specs import ManifestSpec, Source, ToolsetSpec, ToolSpec
from engine.toolsearch.catalog import Sessions
from tests.catalog_project import catalog_engine

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def forecast(city: str) -> str:
    return f"sunny in {city}"


class FakeServer:
    """Lists tools the way the MCP client contributes them: one toolset, no manifest file."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def contribute(
        self, manifests: Sequence[ManifestSpec], tools: Collection[str], toolsets: Collection[str]
    ) -> Contribution:
        source = Source("fake (mcp)", 0)
        specs = {
            name: ToolSpec(
                name=name,
                toolset="mcp-fake",
                description=f"Tell the {name.rsplit('__', 1)[-1].replace('_', ' ')} for a city.",
                parameters=SCHEMA,
                source=source,
                check_path="mcp:fake",
                handler=describe("fake", forecast),
            )
            for name in self.names
        }
        toolset = ToolsetSpec("mcp-fake", "Tools of the fake MCP server.", source, members=frozenset(self.names))
        return Contribution(
            tools=MappingProxyType(specs),
            validators=MappingProxyType({n: jsonschema_rs.validator_for(SCHEMA) for n in self.names}),
            toolsets=MappingProxyType({"mcp-fake": toolset}),
        )


def test_server_tools_are_deferred_first_and_a_refresh_rebuilds_the_index(tmp_path: Path) -> None:
    engine = catalog_engine(tmp_path)
    server = FakeServer(["mcp__fake__ski_forecast"])
    engine.add_tool_source(server)
    assert engine.reload().ok
    listed = [d["name"] for d in engine.definitions("anthropic", budget_tokens=60_000)]
    # The server's tool ranks after every local tool: it is listed last, or left out.
    assert listed[-3:] == ["tool_search", "tool_describe", "tool_call"]
    assert "mcp__fake__ski_forecast" not in listed[:-4]
    tight = [d["name"] for d in engine.definitions("anthropic", budget_tokens=2_000)]
    assert "mcp__fake__ski_forecast" not in tight

    def search(query: str) -> list[str]:
        result = engine.call("tool_search", {"query": query}, session_id="s")
        return [t["name"] for t in json.loads(result.output)["tools"]]

    assert search("ski forecast for a city")[0] == "mcp__fake__ski_forecast"
    call = {"name": "mcp__fake__ski_forecast", "arguments": {"city": "Chamonix"}}
    assert engine.call("tool_call", call, session_id="s").output == "sunny in Chamonix"

    server.names = ["mcp__fake__surf_forecast"]  # the server sent list_changed: the next generation
    assert engine.reload().ok
    assert search("surf forecast for a city")[0] == "mcp__fake__surf_forecast"
    result = engine.call("tool_call", call, session_id="s")
    assert result.error is not None and result.error.type == "tool_removed"


def test_sessions_are_bounded_and_forget_the_least_recent() -> None:
    sessions = Sessions(max_sessions=3)
    for i in range(10):
        sessions.add(f"s{i}", [f"tool{i}"], limit=5)
    assert sessions.catalog("s9") == ["tool9"]
    assert sessions.catalog("s0") == []
    assert len([i for i in range(10) if sessions.catalog(f"s{i}")]) == 3
