"""Jinja templates in manifests: rendered per request, checked at load, never a broken schema."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine import Engine
from engine.cli import cli
from tests.conftest import REPO

HANDLERS = "def run(text: str = '', mode: str = 'a') -> str:\n    return text\n"


def project(write_project: Callable[..., Path], tool: str, extra_tools: str = "") -> Path:
    return write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [tpl_handlers]\n",
            "tpl_handlers/__init__.py": HANDLERS,
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n---\n"
            "kind: Toolset\nname: other\ndescription: O.\n",
            "manifests/m.yaml": tool + extra_tools,
        }
    )


BASE = """\
kind: Tool
name: lead
toolset: t
handler: tpl_handlers:run
"""
HELPER = """---
kind: Tool
name: helper
toolset: other
description: Helps.
handler: tpl_handlers:run
parameters: {type: object, properties: {text: {type: string}}}
"""


def test_builtin_templates_mention_only_tools_that_are_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    engine = Engine.load(REPO)
    every = {d["name"]: d for d in engine.definitions("anthropic")}
    assert "terminal" in every["delegate_task"]["description"]
    assert "web_search" not in every["web_extract"]["description"]
    narrow = {d["name"]: d for d in engine.definitions("anthropic", enabled=["delegation", "file"])}
    assert "terminal" not in narrow["delegate_task"]["description"]
    assert "read_file" in narrow["delegate_task"]["description"]
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-x")
    engine.invalidate_checks()
    with_search = {d["name"]: d for d in engine.definitions("anthropic", enabled=["web"])}
    assert "use web_search" in with_search["web_extract"]["description"]


def test_description_parameters_and_overrides_render_with_the_context(write_project: Callable[..., Path]) -> None:
    tool = (
        BASE
        + """\
description: "Offered: {{ available_tools | join(', ') }} on {{ platform }}; sets {{ toolsets | join(',') }}."
template_env: [TPL_MODE]
overrides:
  /parameters/properties/mode/enum: '{{ ["fast", env.TPL_MODE or "slow"] | tojson }}'
parameters:
  type: object
  properties:
    text: {type: string, description: "checks last {{ config.check_ttl }} s"}
    mode: {type: string, enum: [a]}
"""
    )
    engine = Engine.load(project(write_project, tool, HELPER))
    definitions = {d["name"]: d for d in engine.definitions("anthropic")}
    lead = definitions["lead"]
    assert lead["description"].startswith("Offered: helper, lead on ")
    assert lead["description"].endswith("; sets other,t.")
    assert lead["input_schema"]["properties"]["text"]["description"] == "checks last 30 s"
    assert lead["input_schema"]["properties"]["mode"]["enum"] == ["fast", "slow"]
    only = engine.definitions("anthropic", enabled=["t"])
    assert only[0]["description"].startswith("Offered: lead on ")


@pytest.mark.parametrize(
    "description,code",
    [
        ("'{{ available_tools | nope }}'", "template-syntax"),
        ("'{% if %}'", "template-syntax"),
        ("'{{ undefined_name }}'", "template-render"),
        ("'{{ env.HOME }}'", "template-render"),  # env holds only the variables the manifest lists
        ("\"{{ ''.__class__.__mro__ }}\"", "template-render"),  # the environment is sandboxed
    ],
)
def test_template_mistakes_are_located_validation_errors(
    write_project: Callable[..., Path], runner: CliRunner, description: str, code: str
) -> None:
    tool = BASE + f"description: {description}\nparameters: {{type: object, properties: {{text: {{type: string}}}}}}\n"
    root = project(write_project, tool)
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    [error] = json.loads(result.stdout)["errors"]
    assert (error["code"], error["file"], error["line"]) == (code, "manifests/m.yaml", 5)


def test_an_override_that_would_break_the_schema_is_an_error_at_load(
    write_project: Callable[..., Path], runner: CliRunner
) -> None:
    tool = (
        BASE
        + """\
description: D.
overrides:
  /parameters/properties/mode/type: '"not-a-type"'
parameters:
  type: object
  properties:
    mode: {type: string}
"""
    )
    result = runner.invoke(cli, ["validate", "--root", str(project(write_project, tool)), "--format", "json"])
    [error] = json.loads(result.stdout)["errors"]
    assert error["code"] == "template-render" and "not a valid JSON Schema" in error["message"]


def test_an_override_outside_the_definition_is_refused(write_project: Callable[..., Path], runner: CliRunner) -> None:
    tool = BASE + "description: D.\noverrides:\n  /name: x\nparameters: {type: object}\n"
    result = runner.invoke(cli, ["validate", "--root", str(project(write_project, tool)), "--format", "json"])
    assert [e["code"] for e in json.loads(result.stdout)["errors"]] == ["template-pointer"]


def test_a_render_that_fails_at_run_time_falls_back_to_the_load_time_text(
    write_project: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    # Renders at load (helper is available then) but divides by zero when helper is not offered.
    tool = (
        BASE
        + """\
description: "Ratio {{ 1 // (available_tools | select('equalto', 'helper') | list | length) }}."
parameters: {type: object, properties: {text: {type: string}}}
"""
    )
    engine = Engine.load(project(write_project, tool, HELPER))
    assert engine.definitions("anthropic", enabled=["t", "other"])[1]["description"] == "Ratio 1."
    with caplog.at_level(logging.WARNING, logger="hermes_engine.templates"):
        [lead] = engine.definitions("anthropic", enabled=["t"])
    assert lead["description"] == "Ratio 1."
    assert "failed to render" in caplog.text
