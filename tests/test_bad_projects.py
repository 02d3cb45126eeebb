"""Every bad project under tests/projects/bad yields exactly its expected errors, located."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from engine.cli import cli

BAD = Path(__file__).parent / "projects" / "bad"
CASES = sorted(p.name for p in BAD.iterdir() if (p / "expected.yaml").exists())


@pytest.mark.parametrize("case", CASES)
def test_bad_project_reports_exactly_its_expected_errors(case: str, runner: CliRunner) -> None:
    root = BAD / case
    expected = yaml.safe_load((root / "expected.yaml").read_text())["errors"]
    result = runner.invoke(cli, ["--root", str(root), "validate", "--format", "json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["ok"] is False
    got = [{k: e[k] for k in ("code", "file", "line", "column")} for e in report["errors"]]
    assert got == expected
    for error in report["errors"]:
        assert error["message"]
        assert error["pointer"] == "" or error["pointer"].startswith("/")


@pytest.mark.parametrize("case", CASES)
def test_bad_project_text_report_is_one_located_line_per_error(case: str, runner: CliRunner) -> None:
    root = BAD / case
    expected = yaml.safe_load((root / "expected.yaml").read_text())["errors"]
    result = runner.invoke(cli, ["validate", "--root", str(root)])
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if ": error[" in line]
    assert [line.split(": error[")[0] for line in lines] == [f"{e['file']}:{e['line']}:{e['column']}" for e in expected]
    assert result.stdout.splitlines()[-1].startswith("invalid:")
    assert "Traceback" not in result.output
