"""`hermes-engine call`: what the model would see, and exit codes, for good and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.cli import cli


@pytest.fixture
def root(project_copy: Any) -> Path:
    return project_copy("good/dispatch")


def call(runner: CliRunner, root: Path, *args: str, stdin: str | None = None) -> Any:
    return runner.invoke(cli, ["--root", str(root), "call", *args], input=stdin)


def test_successful_call_prints_the_output_and_exits_zero(runner: CliRunner, root: Path) -> None:
    result = call(runner, root, "echo", '{"text": "hello"}')
    assert (result.exit_code, result.stdout) == (0, "hello\n")


def test_json_flag_prints_the_tool_result(runner: CliRunner, root: Path) -> None:
    result = call(runner, root, "echo", '{"text": "hello"}', "--json")
    data = json.loads(result.stdout)
    assert data["ok"] is True and data["output"] == "hello" and data["error"] is None
    assert set(data["metadata"]) >= {"duration_ms", "generation", "truncated", "spilled_to"}


def test_arguments_can_come_from_stdin(runner: CliRunner, root: Path) -> None:
    result = call(runner, root, "echo", "-", stdin='{"text": "piped"}')
    assert result.stdout == "piped\n"


@pytest.mark.parametrize(
    "tool,args,error_type",
    [
        ("nope", "{}", "unknown_tool"),
        ("echo", '{"text": ', "invalid_arguments"),
        ("echo", '{"text": 5}', "invalid_arguments"),
        ("echo", "{}", "invalid_arguments"),
        ("raiser", '{"message": "kaput"}', "handler_error"),
        ("returns", '{"kind": "object"}', "bad_result"),
        ("slow", '{"seconds": 5}', "timeout"),
        ("ask_host", '{"question": "?"}', "host_required"),
    ],
)
def test_bad_calls_exit_one_with_a_structured_error(
    runner: CliRunner, root: Path, tool: str, args: str, error_type: str
) -> None:
    result = call(runner, root, tool, args, "--json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["error"]["type"] == error_type
    assert json.loads(data["output"])["error_type"] == error_type
    assert "Traceback" not in result.output


def test_a_fifty_megabyte_result_is_capped_and_spilled(runner: CliRunner, root: Path) -> None:
    result = call(runner, root, "big", '{"size": 50000000}', "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["metadata"]["truncated"] is True
    assert len(data["output"]) <= 500
    assert Path(data["metadata"]["spilled_to"]).stat().st_size == 50_000_000


def test_unavailable_tool_through_the_cli(runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    from tests.conftest import REPO

    result = runner.invoke(cli, ["--root", str(REPO), "call", "web_search", '{"query": "x"}', "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["type"] == "unavailable"
