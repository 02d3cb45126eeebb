"""OpenAI strict mode: definitions the SDK accepts as strict, and calls checked against the full schema.

The attacker here controls the model's arguments. The strict rewrite moves constraints the
strict subset lacks (maxLength, uniqueItems ...) into description text, and leaves a tool it
cannot express non-strict: neither may make a call that the full schema refuses reach the
handler. Undoing the rewrite (null for an optional property means "absent") must not turn a
null for a required property into a missing-but-accepted one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
import pytest
from click.testing import CliRunner
from openai import pydantic_function_tool
from openai.lib._pydantic import _ensure_strict_json_schema
from openai.types.responses import FunctionTool, FunctionToolParam
from openai.types.shared import FunctionDefinition

from engine import Engine, UsageError
from engine.cli import cli
from engine.definitions.build import StrictMemo
from engine.definitions.strict import to_strict
from tests.conftest import REPO

HANDLERS = """
from pathlib import Path

SEEN = []


def read(path: str, offset: int = 1, limit: int = 500, note: str | None = "n", opts: dict | None = None) -> str:
    SEEN.append({"path": path, "offset": offset, "limit": limit, "note": note, "opts": opts})
    return "ok"


def save(target: str, name: str, tags: list | None = None) -> str:
    Path(target).write_text(name)
    return "saved"
"""

MANIFEST = """
kind: Tool
name: read
toolset: t
description: Read.
handler: strict_h:read
parameters:
  type: object
  properties:
    path: {type: string, minLength: 1}
    offset: {type: integer, minimum: 1, default: 1}
    limit: {type: integer, maximum: 5000}
    note: {type: [string, "null"]}
    opts:
      type: object
      properties:
        depth: {type: integer}
        mode: {type: string, enum: [a, b]}
      required: [mode]
  required: [path]
---
kind: Tool
name: save
toolset: t
description: Save a name.
handler: strict_h:save
parameters:
  type: object
  properties:
    target: {type: string}
    name: {type: string, maxLength: 5, not: {const: root}}
    tags: {type: array, items: {type: string}, uniqueItems: true}
  required: [target, name]
"""


@pytest.fixture
def project(tool_project: Callable[[str, str, str], Path]) -> Path:
    return tool_project("strict_h", HANDLERS, MANIFEST)


def _seen(engine: Engine) -> list[dict[str, Any]]:
    import strict_h  # type: ignore[import-not-found]

    return strict_h.SEEN  # type: ignore[no-any-return]


def test_builtin_pack_is_strict_and_the_sdk_would_change_nothing() -> None:
    engine = Engine.load(REPO)
    chat = engine.definitions("openai")
    responses = engine.definitions("openai-responses")
    assert chat and len(chat) == len(responses)
    for definition, item in zip(chat, responses, strict=True):
        function = definition["function"]
        assert function["strict"] is True, function["name"]
        FunctionDefinition.model_validate(function)
        FunctionTool.model_validate(item)
        pydantic.TypeAdapter(FunctionToolParam).validate_python(item)
        assert item["strict"] is True and item["parameters"] == function["parameters"]
        # The SDK's own strict helper (what pydantic_function_tool runs) finds nothing to change.
        params = copy.deepcopy(function["parameters"])
        assert _ensure_strict_json_schema(params, path=(), root=params) == function["parameters"]

    # Same shape as the SDK's own strict tool definitions.
    class Probe(pydantic.BaseModel):
        x: int

    sdk = pydantic_function_tool(Probe)
    assert set(sdk) == set(chat[0]) and set(sdk["function"]) <= set(chat[0]["function"]) | {"description"}
    assert sdk["function"]["strict"] is True


def test_optional_properties_become_required_and_nullable_unsupported_keywords_become_text(project: Path) -> None:
    engine = Engine.load(project)
    [read, save] = engine.definitions("openai")
    params = read["function"]["parameters"]
    assert read["function"]["strict"] is True
    assert params["required"] == ["path", "offset", "limit", "note", "opts"] and params["additionalProperties"] is False
    assert params["properties"]["path"] == {"type": "string", "description": "(minLength: 1)"}
    assert params["properties"]["offset"] == {"type": ["integer", "null"], "minimum": 1, "description": "(default: 1)"}
    assert params["properties"]["note"] == {"type": ["string", "null"]}
    opts = params["properties"]["opts"]
    assert opts["type"] == ["object", "null"] and opts["required"] == ["depth", "mode"]
    assert opts["properties"]["depth"] == {"type": ["integer", "null"]}
    # `not` cannot be said in strict mode: that tool is offered non-strict, its schema as written.
    assert save["function"]["strict"] is False
    assert save["function"]["parameters"] == dict(engine.tools["save"].parameters)
    [_, save_item] = engine.definitions("openai-responses")
    assert save_item["strict"] is False
    FunctionTool.model_validate(save_item)
    assert "strict" not in engine.definitions("openai", strict=False)[0]["function"]
    with pytest.raises(UsageError, match=r"save \(.*not"):
        engine.definitions("openai", strict=True)


def test_null_for_an_optional_property_means_absent_so_the_default_applies(project: Path) -> None:
    engine = Engine.load(project)
    # What a model in strict mode sends: every property, null for those it leaves out.
    args = {"path": "a", "offset": None, "limit": None, "note": None, "opts": {"depth": None, "mode": "a"}}
    [message] = engine.openai_tool_messages(
        [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": json.dumps(args)}}]
    )
    assert message["content"] == "ok", message
    # offset/limit take the handler's defaults; note is nullable, so its null is a real null.
    assert _seen(engine)[-1] == {"path": "a", "offset": 1, "limit": 500, "note": None, "opts": {"mode": "a"}}


def test_null_for_a_required_property_is_still_refused(project: Path, tmp_path: Path) -> None:
    engine = Engine.load(project)
    target = tmp_path / "out.txt"
    result = engine.call("save", {"target": str(target), "name": None})
    assert not result.ok and result.error is not None and result.error.type == "invalid_arguments"
    assert not target.exists()
    result = engine.call("read", {"path": None})
    assert not result.ok and "/path" in result.output


@pytest.mark.parametrize(
    "args",
    [
        {"name": "toolong"},  # maxLength, moved into text in strict mode
        {"name": "root"},  # not, which made the tool non-strict
        {"name": "ok", "tags": ["x", "x"]},  # uniqueItems, moved into text
    ],
)
def test_constraints_the_strict_schema_cannot_carry_are_still_enforced(
    project: Path, tmp_path: Path, args: dict[str, Any]
) -> None:
    engine = Engine.load(project)
    target = tmp_path / "out.txt"
    result = engine.call("save", {"target": str(target), **args})
    assert not result.ok and result.error is not None and result.error.type == "invalid_arguments", result.output
    assert not target.exists()  # the handler never ran
    ok = engine.call("save", {"target": str(target), "name": "fine", "tags": None})
    assert ok.ok, ok.output
    assert target.read_text() == "fine"


def test_a_strict_rewrite_never_loosens_the_validation_schema() -> None:
    """The rewrite returns new objects: the full schema the validator was built from is untouched."""
    schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^[0-9]+$", "maxLength": 3, "enum": ["1", "22"]}},
    }
    before = copy.deepcopy(schema)
    rewritten = to_strict(schema).schema
    assert rewritten is not None and schema == before
    code = rewritten["properties"]["code"]
    assert code["pattern"] == "^[0-9]+$" and code["enum"] == ["1", "22", None] and "maxLength" not in code


KEY = {"type": "string"}


@pytest.mark.parametrize(
    ("parameters", "pointer", "said"),
    [
        ({"type": "object", "properties": {"m": {"type": "object"}}}, ("properties", "m"), "no properties"),
        ({"type": "object", "additionalProperties": {"type": "string"}}, ("additionalProperties",), "open object"),
        ({"type": "object", "properties": {"x": {}}, "required": ["x"]}, ("properties", "x"), "needs a type"),
        ({"type": "object", "properties": {"x": {"type": "array"}}}, ("properties", "x"), "items"),
        ({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["y"]}, ("required",), "'y'"),
        ({"anyOf": [{"type": "object"}]}, ("anyOf",), "root"),
        (
            {"type": "object", "properties": {"u": {"anyOf": [{"type": "object", "properties": {"k": KEY}}]}}},
            ("properties", "u", "anyOf", 0, "properties", "k"),
            "anyOf",
        ),
    ],
)
def test_what_cannot_be_strict_says_why_located(
    parameters: dict[str, Any], pointer: tuple[Any, ...], said: str
) -> None:
    found = to_strict(parameters)
    assert found.schema is None
    assert any(w.path == pointer and said in w.message for w in found.reasons), found.reasons


def test_config_strict_true_makes_a_tool_that_cannot_be_strict_a_load_error(project: Path, runner: CliRunner) -> None:
    config = project / "hermes-engine.yaml"
    config.write_text(config.read_text() + "openai: {strict: true}\n")
    result = runner.invoke(cli, ["validate", "--root", str(project), "--format", "json"])
    assert result.exit_code == 1
    [error] = json.loads(result.stdout)["errors"]
    assert (error["code"], error["file"], error["pointer"]) == (
        "openai-strict",
        "manifests/m.yaml",
        "/parameters/properties/name/not",
    )
    config.write_text(config.read_text().replace("strict: true", "strict: sometimes"))
    result = runner.invoke(cli, ["validate", "--root", str(project), "--format", "json"])
    assert result.exit_code == 1
    assert [e["code"] for e in json.loads(result.stdout)["errors"]] == ["config-invalid"]
    assert "Traceback" not in result.output
    config.write_text(config.read_text().replace("strict: sometimes", "strict: false"))
    result = runner.invoke(cli, ["schema", "--root", str(project), "--format", "openai"])
    assert result.exit_code == 0 and all("strict" not in d["function"] for d in json.loads(result.stdout))
    result = runner.invoke(cli, ["schema", "--root", str(project), "--format", "openai", "--strict", "auto"])
    assert [d["function"]["strict"] for d in json.loads(result.stdout)] == [True, False]


def test_a_reload_rewrites_the_changed_schema_and_reuses_the_unchanged_ones(project: Path) -> None:
    engine = Engine.load(project, approve_changes=True)
    [read, save] = engine.definitions("openai")
    manifest = project / "manifests" / "m.yaml"
    manifest.write_text(MANIFEST.replace("limit: {type: integer, maximum: 5000}", "limit: {type: integer, maximum: 7}"))
    assert engine.reload([manifest], approve=True).ok
    [read2, save2] = engine.definitions("openai")
    # The edit is what the model sees now, rewritten for strict mode like the rest.
    assert read2["function"]["parameters"]["properties"]["limit"] == {"type": ["integer", "null"], "maximum": 7}
    assert read["function"]["parameters"]["properties"]["limit"]["maximum"] == 5000
    assert read2["function"]["strict"] is True and save2["function"]["strict"] is False
    assert save2["function"]["parameters"] == save["function"]["parameters"]


def test_the_strict_memo_is_keyed_on_the_schema_object_not_its_id_alone() -> None:
    memo = StrictMemo(limit=2)
    first = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert memo(first) is memo(first)
    assert memo(first).schema == to_strict(first).schema
    # A new mapping (a reload, a template render) is rewritten afresh even when an old id is free.
    for n in range(5):
        other = {"type": "object", "properties": {f"p{n}": {"type": "string"}}}
        assert memo(other).schema is not None and memo(other).schema["required"] == [f"p{n}"]
