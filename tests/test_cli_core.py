"""The command line of issue #2: validate, list, schema, json-schema; exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from engine.cli import cli
from engine.schemas import SCHEMA_NAMES
from tests.conftest import PROJECTS, REPO

BASIC = PROJECTS / "good" / "basic"


def test_validate_ok_exits_zero_with_a_summary(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", "--root", str(BASIC)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1].startswith("ok: 6 tools, 3 toolsets")


def test_validate_json_has_the_documented_shape(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["--root", str(BASIC), "validate", "--format", "json"])
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["errors"] == []
    assert report["counts"] == {"tools": 6, "toolsets": 3, "patterns": 0}
    assert isinstance(report["warnings"], list)


def test_validate_github_format_emits_one_annotation_per_error(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", "--root", str(PROJECTS / "bad" / "overrides"), "--format", "github"])
    assert result.exit_code == 1
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert annotations == [
        "::error file=manifests/b.yaml,line=2,col=7,title=tool-duplicate::"
        "tool 'twice' is defined twice in toolset 'main': first at manifests/a.yaml:1",
        "::error file=manifests/b.yaml,line=9,col=7,title=tool-override-required::"
        "tool 'moved' is already defined in toolset 'main' at manifests/a.yaml:8; set override: true to replace it",
    ]


@pytest.mark.parametrize("command", [["validate"], ["list"], ["schema"], ["call", "echo", "{}"]])
def test_a_directory_that_is_not_a_project_is_a_usage_error_for_every_command(
    command: list[str], runner: CliRunner, tmp_path: Path
) -> None:
    result = runner.invoke(
        cli, [*command, "--root", str(tmp_path)] if command[0] != "call" else ["--root", str(tmp_path), *command]
    )
    assert result.exit_code == 2
    assert "not a hermes-engine project" in result.stderr
    assert "Traceback" not in result.output


def test_unknown_option_is_a_usage_error(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", "--format", "xml", "--root", str(BASIC)])
    assert result.exit_code == 2


def test_an_engine_bug_is_exit_three_without_a_traceback(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("engine.compile.loader.ProjectLoader.load", explode)
    result = runner.invoke(cli, ["validate", "--root", str(BASIC)])
    assert result.exit_code == 3
    assert "internal error: RuntimeError: boom" in result.stderr
    assert "Traceback" not in result.output


def test_list_json_reports_availability_and_source(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BASIC_FLAG", raising=False)
    result = runner.invoke(cli, ["list", "--json", "--root", str(BASIC)])
    assert result.exit_code == 0
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["echo"] == {
        "name": "echo",
        "toolset": "text",
        "available": True,
        "reason": None,
        "source": "manifests/tools.yaml:1",
    }
    assert rows["flagged"]["available"] is False
    assert rows["flagged"]["reason"] == "check basic_handlers.tools:has_flag returned False"


def test_list_filters_by_toolset_following_includes(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["list", "--json", "--toolset", "strings", "--root", str(BASIC)])
    assert sorted(r["name"] for r in json.loads(result.stdout)) == ["aecho", "echo"]


def test_list_on_an_invalid_project_exits_one_with_located_errors(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["list", "--root", str(PROJECTS / "bad" / "names")])
    assert result.exit_code == 1
    assert "manifests/t.yaml:2:7: error[invalid-name]" in result.stderr


@pytest.mark.parametrize(
    "fmt,key",
    [
        ("openai", "function"),
        ("openai-responses", "name"),
        ("anthropic", "input_schema"),
        ("gemini", "parameters"),
        ("mcp", "inputSchema"),
    ],
)
def test_schema_prints_a_json_array_of_available_tools(
    fmt: str, key: str, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BASIC_FLAG", raising=False)
    result = runner.invoke(cli, ["schema", "--format", fmt, "--root", str(BASIC)])
    assert result.exit_code == 0
    definitions = json.loads(result.stdout)
    assert len(definitions) == 3
    assert all(key in d for d in definitions)


def test_schema_enable_and_disable(runner: CliRunner) -> None:
    result = runner.invoke(
        cli, ["schema", "--format", "anthropic", "--enable", "everything", "--disable", "math", "--root", str(BASIC)]
    )
    assert [d["name"] for d in json.loads(result.stdout)] == ["aecho", "echo"]
    result = runner.invoke(cli, ["schema", "--enable", "nope", "--root", str(BASIC)])
    assert result.exit_code == 2
    assert "unknown toolset 'nope'" in result.stderr


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_json_schema_prints_a_valid_draft7_schema(name: str, runner: CliRunner) -> None:
    result = runner.invoke(cli, ["json-schema", name])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft7Validator.check_schema(schema)


def test_published_schemas_accept_every_builtin_manifest() -> None:
    by_kind = {
        "Tool": "tool",
        "Toolset": "toolset",
        "DangerPatterns": "danger-patterns",
        "ApprovalPolicy": "approval-policy",
        "Programs": "programs",
    }
    checked = 0
    for folder in ("manifests", "toolsets", "policies"):
        for path in sorted((REPO / folder).glob("*.yaml")):
            for doc in yaml.safe_load_all(path.read_text()):
                schema = json.loads(CliRunner().invoke(cli, ["json-schema", by_kind[doc["kind"]]]).stdout)
                jsonschema.validate(doc, schema, cls=jsonschema.Draft7Validator)
                checked += 1
    assert checked >= 20


def test_json_schema_write_creates_files_for_editors(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["json-schema", "--write", str(tmp_path / "schemas")])
    assert result.exit_code == 0
    assert sorted(p.name for p in (tmp_path / "schemas").iterdir()) == sorted(f"{n}.schema.json" for n in SCHEMA_NAMES)


def test_strict_openai_reports_each_rejected_node_located(
    runner: CliRunner, tool_project: Callable[[str, str, str], Path]
) -> None:
    root = tool_project(
        "strict_h",
        "def f(a: str, b: str = '') -> str:\n    return a\n",
        """
            kind: Tool
            name: f
            toolset: t
            description: F.
            handler: strict_h:f
            parameters:
              type: object
              properties:
                a: {type: string}
                b: {type: string}
              required: [a]
        """,
    )
    # An optional property and an object without additionalProperties: false are what the
    # strict rewrite handles (required-and-nullable, closed): nothing to report.
    assert runner.invoke(cli, ["validate", "--root", str(root)]).exit_code == 0
    result = runner.invoke(cli, ["validate", "--root", str(root), "--strict", "openai", "--format", "json"])
    assert result.exit_code == 0, result.output
    (root / "manifests/m.yaml").write_text(
        (root / "manifests/m.yaml")
        .read_text()
        .replace("b: {type: string}", "b: {type: object, additionalProperties: true}")
        + "  allOf: [{required: [a]}]\n"
    )
    result = runner.invoke(cli, ["validate", "--root", str(root), "--strict", "openai", "--format", "json"])
    assert result.exit_code == 1
    errors = [(e["code"], e["line"], e["column"], e["pointer"]) for e in json.loads(result.stdout)["errors"]]
    assert errors == [
        ("openai-strict", 10, 23, "/parameters/properties/b/additionalProperties"),
        ("openai-strict", 12, 3, "/parameters/allOf"),
    ]
    messages = [e["message"] for e in json.loads(result.stdout)["errors"]]
    assert "open object" in messages[0] and "allOf" in messages[1]


def test_yaml11_boolean_in_a_string_field_gets_a_quoting_hint(
    runner: CliRunner, write_project: Callable[..., Path]
) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\n",
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: no\n",
        }
    )
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    [error] = json.loads(result.stdout)["errors"]
    assert (error["code"], error["line"], error["column"]) == ("wrong-type", 3, 14)
    assert "quote it" in error["message"]


def test_approval_mode_off_is_read_as_the_word(runner: CliRunner, write_project: Callable[..., Path]) -> None:
    root = write_project(
        {"hermes-engine.yaml": "include_builtin: false\napprovals:\n  mode: off\n", "manifests/.keep": ""}
    )
    result = runner.invoke(cli, ["validate", "--root", str(root)])
    assert result.exit_code == 0, result.output


def test_hermes_engine_yml_is_reported_not_ignored(runner: CliRunner, write_project: Callable[..., Path]) -> None:
    root = write_project({"hermes-engine.yml": "include_builtin: false\n", "manifests/.keep": ""})
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert [e["code"] for e in json.loads(result.stdout)["errors"]] == ["config-misnamed"]


def test_editor_temp_files_are_not_manifests(runner: CliRunner, write_project: Callable[..., Path]) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\n",
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
            "toolsets/.t.yaml.swp": "garbage: [",
            "toolsets/t.yaml~": "garbage: [",
            "toolsets/.#t.yaml": "garbage: [",
            "toolsets/4913": "garbage: [",
        }
    )
    assert runner.invoke(cli, ["validate", "--root", str(root)]).exit_code == 0
