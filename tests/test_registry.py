"""Engine.load → an immutable snapshot: tools, toolsets, availability, definitions."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from google.genai import types

from engine import Engine, UsageError, ValidationFailed
from engine.cli import cli
from engine.registry.availability import AvailabilityCache
from tests.conftest import PROJECTS, REPO


@pytest.fixture
def basic() -> Engine:
    return Engine.load(PROJECTS / "good" / "basic", approve_changes=True)


def test_load_gives_generation_one_and_every_tool(basic: Engine) -> None:
    assert basic.generation == 1
    assert sorted(basic.tools) == ["add", "aecho", "down", "echo", "flagged", "keyed"]
    spec = basic.tools["echo"]
    assert spec.toolset == "text"
    assert str(spec.source) == "manifests/tools.yaml:1"
    assert spec.handler is not None and not spec.handler.is_async
    assert basic.tools["aecho"].is_async


def test_specs_and_snapshot_are_immutable(basic: Engine) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        basic.tools["echo"].name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        basic.tools["new"] = basic.tools["echo"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        basic.snapshot.generation = 5  # type: ignore[misc]


def test_toolset_resolution_follows_includes_aliases_all_and_subtracts_disabled_last(basic: Engine) -> None:
    snap = basic.snapshot
    assert snap.resolve_toolsets(["everything"]) == frozenset(basic.tools)
    assert snap.resolve_toolsets(["strings"]) == {"echo", "aecho"}
    assert snap.resolve_toolsets(None) == frozenset(basic.tools)
    assert snap.resolve_toolsets(["*"], ["math"]) == {"echo", "aecho"}
    assert snap.resolve_toolsets(["all"], ["everything"]) == frozenset()
    assert snap.resolve_toolsets([]) == frozenset()
    with pytest.raises(UsageError, match="did you mean text"):
        snap.resolve_toolsets(["txt"])


def test_requires_env_names_every_missing_variable(basic: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BASIC_TEST_KEY_A", raising=False)
    monkeypatch.delenv("BASIC_TEST_KEY_B", raising=False)
    avail = basic.availability("keyed")
    assert not avail.available
    assert avail.reason is not None and "BASIC_TEST_KEY_A" in avail.reason and "BASIC_TEST_KEY_B" in avail.reason
    monkeypatch.setenv("BASIC_TEST_KEY_A", "x")
    monkeypatch.setenv("BASIC_TEST_KEY_B", "y")
    assert not basic.availability("keyed").available  # cached until the TTL passes or an invalidation
    basic.invalidate_checks("keyed")
    assert basic.availability("keyed").available


def test_check_returning_false_or_raising_makes_a_tool_unavailable_with_the_reason(basic: Engine) -> None:
    assert basic.availability("flagged").reason == "check basic_handlers.tools:has_flag returned False"
    down = basic.availability("down")
    assert not down.available and down.reason is not None
    assert "RuntimeError: service down" in down.reason


def test_availability_cache_honours_its_ttl(basic: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    cache = AvailabilityCache(ttl=30, clock=lambda: now[0])
    spec = basic.tools["flagged"]
    monkeypatch.delenv("BASIC_FLAG", raising=False)
    assert not cache.get(spec).available
    monkeypatch.setenv("BASIC_FLAG", "1")
    now[0] += 29
    assert not cache.get(spec).available
    now[0] += 2
    assert cache.get(spec).available


def test_definitions_in_every_format_list_only_available_tools(basic: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BASIC_FLAG", raising=False)
    openai = basic.definitions("openai", strict=False)
    assert [d["function"]["name"] for d in openai] == ["add", "aecho", "echo"]
    assert openai[2] == {
        "type": "function",
        "function": {
            "name": "echo",
            "description": "Repeat the text.",
            "parameters": dict(basic.tools["echo"].parameters),
        },
    }
    responses = basic.definitions("openai-responses")
    assert responses[0]["type"] == "function" and responses[0]["name"] == "add" and "parameters" in responses[0]
    anthropic = basic.definitions("anthropic")
    assert set(anthropic[0]) == {"name", "description", "input_schema"}
    mcp = basic.definitions("mcp")
    assert set(mcp[0]) >= {"name", "description", "inputSchema"}
    gemini = basic.definitions("gemini")
    assert "additionalProperties" not in gemini[0]["parameters"]
    with pytest.raises(UsageError, match="unknown format"):
        basic.definitions("cohere")


def test_definitions_respect_enabled_and_disabled_toolsets(basic: Engine) -> None:
    names = [d["name"] for d in basic.definitions("anthropic", enabled=["text"])]
    assert names == ["aecho", "echo"]
    names = [d["name"] for d in basic.definitions("anthropic", enabled=["everything"], disabled=["strings"])]
    assert names == ["add"]


def test_warm_definitions_are_served_from_cache_until_invalidated(
    basic: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BASIC_FLAG", raising=False)
    first = basic.definitions("openai")
    assert basic.definitions("openai") is first
    monkeypatch.setenv("BASIC_FLAG", "1")
    basic.invalidate_checks()
    fresh = basic.definitions("openai")
    assert fresh is not first
    assert "flagged" in [d["function"]["name"] for d in fresh]


def test_mcp_definitions_carry_annotations(tool_project: Callable[[str, str, str], Path]) -> None:
    root = tool_project(
        "mcp_h",
        "def look(q: str) -> str:\n    return q\n",
        """
            kind: Tool
            name: look
            toolset: t
            description: Look.
            handler: mcp_h:look
            annotations: {read_only: true, open_world: false, title: Look up}
            parameters: {type: object, properties: {q: {type: string}}, required: [q]}
        """,
    )
    [definition] = Engine.load(root, approve_changes=True).definitions("mcp")
    assert definition["annotations"] == {"title": "Look up", "readOnlyHint": True, "openWorldHint": False}


def test_gemini_format_folds_nullable_types_and_const(tool_project: Callable[[str, str, str], Path]) -> None:
    root = tool_project(
        "gem_h",
        "def f(a=None, b=None):\n    return ''\n",
        """
            kind: Tool
            name: f
            toolset: t
            description: F.
            handler: gem_h:f
            parameters:
              type: object
              properties:
                a: {type: [string, "null"]}
                b: {const: fixed}
              additionalProperties: false
        """,
    )
    [definition] = Engine.load(root, approve_changes=True).definitions("gemini")
    assert definition["parameters"] == {
        "type": "object",
        "properties": {"a": {"type": "string", "nullable": True}, "b": {"enum": ["fixed"], "type": "string"}},
    }


GEMINI_HARD = """
kind: Tool
name: hard
toolset: t
description: Every JSON Schema construct Gemini's subset lacks.
handler: gem_h:f
parameters:
  $schema: https://json-schema.org/draft/2020-12/schema
  type: object
  additionalProperties: false
  properties:
    count: {type: integer, exclusiveMinimum: 0, exclusiveMaximum: 10, multipleOf: 2}
    ratio: {type: number, exclusiveMinimum: 0.5}
    level: {enum: [1, 2, 3], description: How loud.}
    flag: {const: true}
    mode: {oneOf: [{type: string, enum: [fast, slow]}, {type: "null"}]}
    either: {type: [string, integer]}
    tags: {type: array, items: {type: string, pattern: "^[a-z]+$"}, uniqueItems: true, x-ui: chips}
    nested:
      type: object
      properties: {deep: {not: {type: string}, type: [object, "null"], patternProperties: {"^x": {}}}}
"""


def _gemini_project(tool_project: Callable[[str, str, str], Path]) -> Path:
    return tool_project(
        "gem_h",
        "def f(**kwargs):\n    return ''\n",
        GEMINI_HARD,
    )


def test_gemini_definitions_are_accepted_by_the_google_genai_sdk(tool_project: Callable[[str, str, str], Path]) -> None:
    # google-genai's Schema model forbids unknown keys and types enum values as strings:
    # every definition the engine emits, builtin pack and hard cases alike, must parse.
    engine = Engine.load(_gemini_project(tool_project), approve_changes=True)
    builtin = Engine.load(REPO, approve_changes=True)
    for definition in [*engine.definitions("gemini"), *builtin.definitions("gemini")]:
        types.FunctionDeclaration.model_validate(definition)
    [hard] = engine.definitions("gemini")
    props = hard["parameters"]["properties"]
    assert props["count"] == {"type": "integer", "minimum": 1, "maximum": 9}
    assert props["ratio"] == {"type": "number", "minimum": 0.5}
    assert props["level"] == {"type": "integer", "description": "How loud. Allowed values: 1, 2, 3."}
    assert props["flag"] == {"type": "boolean", "description": "Allowed values: true."}
    assert props["mode"] == {"anyOf": [{"type": "string", "enum": ["fast", "slow"]}, {"nullable": True}]}
    assert props["either"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["tags"] == {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}
    assert props["nested"]["properties"]["deep"] == {"type": "object", "nullable": True}


def test_validate_warns_once_per_tool_about_what_the_gemini_definition_changes(
    tool_project: Callable[[str, str, str], Path], runner: CliRunner
) -> None:
    root = _gemini_project(tool_project)
    # Gemini is not a target by default (config `targets`): no warning a user cannot act on.
    result = runner.invoke(cli, ["--root", str(root), "validate", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["warnings"] == []
    result = runner.invoke(cli, ["--root", str(root), "validate", "--format", "json", "--target", "gemini"])
    assert result.exit_code == 0, result.output
    [warning] = json.loads(result.output)["warnings"]
    assert (warning["code"], warning["file"], warning["line"]) == ("gemini-incompatible", "manifests/m.yaml", 7)
    for named in (
        "$schema",
        "additionalProperties",
        "exclusiveMinimum (2x)",
        "multipleOf",
        "non-string enum",
        "const",
        "oneOf",
        "type unions",
        "uniqueItems",
        "x-ui",
        "not",
        "patternProperties",
    ):
        assert named in warning["message"], named


def test_invalid_project_raises_validation_failed_with_every_problem() -> None:
    with pytest.raises(ValidationFailed) as info:
        Engine.load(PROJECTS / "bad" / "handlers", approve_changes=True)
    expected = yaml.safe_load((PROJECTS / "bad" / "handlers" / "expected.yaml").read_text())["errors"]
    got = [(p.code, p.file, p.line) for p in info.value.errors]
    assert got == [(e["code"], e["file"], e["line"]) for e in expected]


def test_a_directory_that_is_not_a_project_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a hermes-engine project"):
        Engine.load(tmp_path, approve_changes=True)


def test_builtin_pack_loads_from_the_repository_root() -> None:
    engine = Engine.load(REPO, approve_changes=True)
    assert {
        "read_file",
        "write_file",
        "patch",
        "search_files",
        "list_dir",
        "terminal",
        "process",
        "todo",
        "memory",
        "clarify",
        "web_search",
        "web_extract",
    } <= set(engine.tools)
    assert engine.snapshot.resolve_toolsets(["coding"]) >= {"read_file", "terminal", "todo"}
    assert engine.snapshot.resolve_toolsets(["hermes-cli"]) == engine.snapshot.resolve_toolsets(["agent"])


def test_user_handlers_package_named_handlers_does_not_shadow_the_builtin_pack(
    write_project: Callable[..., Path],
) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "handler_roots: [handlers]\n",
            "handlers/__init__.py": "",
            "handlers/files.py": "def read_file(path: str) -> str:\n    return 'USER ' + path\n",
            "toolsets/mine.yaml": "kind: Toolset\nname: mine\ndescription: Mine.\n",
            "manifests/mine.yaml": """
            kind: Tool
            name: my_read
            toolset: mine
            description: The user's own read_file.
            handler: handlers.files:read_file
            parameters: {type: object, properties: {path: {type: string}}, required: [path]}
        """,
            "notes.txt": "builtin content\n",
        }
    )
    engine = Engine.load(root, config={"workdir": "."}, approve_changes=True)
    assert engine.call("my_read", {"path": "x"}).output == "USER x"
    builtin = engine.call("read_file", {"path": "notes.txt"})
    assert builtin.ok, builtin.output
    assert "builtin content" in builtin.output
    assert engine.tools["read_file"].handler is not None
    assert engine.tools["read_file"].handler.function.__module__ == "engine._pack_handlers.files"


def test_a_project_tool_may_override_a_builtin_tool_only_with_override_true(
    write_project: Callable[..., Path],
) -> None:
    files = {
        "hermes-engine.yaml": "handler_roots: [ovr_h]\n",
        "ovr_h/__init__.py": "def read_file(path: str) -> str:\n    return 'mine'\n",
        "toolsets/mine.yaml": "kind: Toolset\nname: mine\ndescription: Mine.\n",
        "manifests/mine.yaml": """
            kind: Tool
            name: read_file
            toolset: mine
            description: Replaces the builtin.
            handler: ovr_h:read_file
            parameters: {type: object, properties: {path: {type: string}}, required: [path]}
        """,
    }
    root = write_project(files)
    with pytest.raises(ValidationFailed) as info:
        Engine.load(root, approve_changes=True)
    [problem] = info.value.errors
    assert problem.code == "tool-override-required"
    assert "<builtin>/manifests/file.yaml" in problem.message
    (root / "manifests/mine.yaml").write_text(
        (root / "manifests/mine.yaml").read_text().replace("toolset: mine", "toolset: mine\noverride: true")
    )
    engine = Engine.load(root, approve_changes=True)
    assert engine.tools["read_file"].toolset == "mine"
    assert engine.call("read_file", {"path": "x"}).output == "mine"


def test_a_handler_declared_to_return_a_refused_type_is_an_error_at_load(write_project: Callable[..., Path]) -> None:
    # Postponed annotations arrive as strings, others as objects; both are judged.
    handlers = (
        "from __future__ import annotations\n\n"
        "def nothing(text: str) -> None:\n    print(text)\n\n"
        "def either(text: str) -> str | dict:\n    return text\n"
    )
    tool = (
        "kind: Tool\nname: {name}\ntoolset: main\ndescription: D.\nhandler: rh:{name}\n"
        "parameters: {{type: object, properties: {{text: {{type: string}}}}, required: [text]}}\n"
    )
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [rh]\n",
            "rh/__init__.py": handlers,
            "toolsets/main.yaml": "kind: Toolset\nname: main\ndescription: M.\n",
            "manifests/a.yaml": tool.format(name="nothing") + "---\n" + tool.format(name="either"),
        }
    )
    with pytest.raises(ValidationFailed) as raised:
        Engine.load(root, approve_changes=True)
    assert [(p.code, p.line) for p in raised.value.errors] == [("handler-signature", 5)]
    assert "declared to return None" in raised.value.errors[0].message
