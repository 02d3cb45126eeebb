"""`validate` never exits 3 on input: every config and manifest value is type- and
range-checked before use, and every error is located.

bench/bench_robust.py runs the same mutator over 10,000 projects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from bench.fuzz_projects import HANG_SECONDS, run
from engine.cli import cli

PROJECTS = 300
HUGE = "1" + "0" * 400


# The per-project bound (HANG_SECONDS) is the hang check; the suite-wide pytest timeout is not
# meant for 300 whole loads on a shared, loaded 2-core machine.
@pytest.mark.timeout(900)
def test_mutated_projects_never_crash_hang_or_report_an_unlocated_error() -> None:
    outcomes = list(run(PROJECTS, seed=1))
    assert len(outcomes) == PROJECTS
    crashed = [(o.seed, o.index, o.crashed) for o in outcomes if o.crashed]
    unlocated = [(o.seed, o.index, o.unlocated[:2]) for o in outcomes if o.unlocated]
    hung = [(o.seed, o.index, round(o.seconds, 1)) for o in outcomes if o.seconds > HANG_SECONDS]
    assert (crashed, unlocated, hung) == ([], [], [])
    assert any(o.valid for o in outcomes) and not all(o.valid for o in outcomes)


@pytest.mark.parametrize(
    "config,pointer",
    [
        ("handler_roots: [5]", "/handler_roots/0"),
        ("toolsets: {enabled: 5}", "/toolsets/enabled"),
        ("toolsets: {disabled: [{a: 1}]}", "/toolsets/disabled/0"),
        (f"approvals: {{timeout: {HUGE}}}", "/approvals/timeout"),
        (f"check_ttl: {HUGE}", "/check_ttl"),
        ("check_ttl: 1e400", "/check_ttl"),
        ("approvals: {command_allowlist: [[a]]}", "/approvals/command_allowlist/0"),
        ("hooks: {pre_tool_call: {type: [1]}}", "/hooks/pre_tool_call"),
        ("terminal: {timeout: 9999999999}", "/terminal/timeout"),
        ("max_result_size_chars: 1000000000000", "/max_result_size_chars"),
    ],
)
def test_a_config_value_of_the_wrong_type_or_out_of_range_is_a_located_error(
    write_project: Any, runner: CliRunner, config: str, pointer: str
) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": f"include_builtin: false\n{config}\n",
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
        }
    )
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1, result.output
    errors = json.loads(result.stdout)["errors"]
    assert [(e["file"], e["line"], e["pointer"]) for e in errors] == [("hermes-engine.yaml", 2, pointer)]
    listed = runner.invoke(cli, ["list", "--root", str(root)])
    assert listed.exit_code == 1, listed.output


@pytest.mark.parametrize("kind", ["[Tool]", "{a: 1}", "5", "null"])
def test_a_kind_that_is_not_a_word_is_a_located_error(write_project: Any, runner: CliRunner, kind: str) -> None:
    root = write_project({"manifests/m.yaml": f"name: x\nkind: {kind}\n"})
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1, result.output
    [error] = json.loads(result.stdout)["errors"]
    assert (error["file"], error["line"]) == ("manifests/m.yaml", 2 if kind != "null" else 1)
    assert error["code"] in {"kind-unknown", "kind-missing"}


def test_a_tool_timeout_past_a_week_is_a_located_error(write_project: Any, runner: CliRunner) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [hx]\n",
            "hx/__init__.py": "def run() -> str:\n    return 'x'\n",
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
            "manifests/m.yaml": "kind: Tool\nname: x\ntoolset: t\ndescription: X.\nhandler: hx:run\n"
            "timeout: 1e300\nparameters: {type: object}\n",
        }
    )
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1, result.output
    [error] = json.loads(result.stdout)["errors"]
    assert (error["file"], error["line"], error["pointer"]) == ("manifests/m.yaml", 6, "/timeout")


def test_a_glob_whose_braces_multiply_past_the_limit_still_validates_quickly(
    write_project: Any, runner: CliRunner
) -> None:
    glob = "~/.{a,b,c}" * 40  # 3**40 alternatives if expanded
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\n",
            "policies/p.yaml": f"""
            kind: DangerPatterns
            name: p
            description: P.
            path_classes:
              many: ["{glob}"]
            patterns:
              - key: reads_many
                description: reads many
                severity: dangerous
                match: {{command: [cat], args: {{classes: [many]}}}}
                examples:
                  match: ["cat ~/.a~/.b{"~/.c" * 38}"]
            """,
        }
    )
    result = runner.invoke(cli, ["validate", "--root", str(root)])
    assert result.exit_code == 0, result.output
    checked = runner.invoke(cli, ["check", "--root", str(root), "cat ~/.a~/.b" + "~/.c" * 38])
    assert checked.exit_code == 1 and "reads_many" in checked.output
