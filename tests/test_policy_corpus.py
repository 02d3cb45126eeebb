"""Detection quality on the labelled sample corpus and on commands written for these tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from engine import Engine
from tests.conftest import REPO

DATA = Path(__file__).parent / "data"
SAMPLE = [json.loads(line) for line in (DATA / "commands-sample.jsonl").read_text().splitlines() if line.strip()]
EXTRA = yaml.safe_load((DATA / "commands-extra.yaml").read_text())


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(REPO)


def test_sample_corpus_meets_the_detection_targets(engine: Engine) -> None:
    hardline = [c for c in SAMPLE if c["hardline"]]
    dangerous = [c for c in SAMPLE if c["label"] == "dangerous" and not c["hardline"]]
    safe = [c for c in SAMPLE if c["label"] == "safe"]
    assert len(hardline) + len(dangerous) + len(safe) == len(SAMPLE)
    missed_hardline = [c["cmd"] for c in hardline if engine.check(c["cmd"]).decision != "deny"]
    missed_dangerous = [c["cmd"] for c in dangerous if engine.check(c["cmd"]).decision == "allow"]
    flagged_safe = [c["cmd"] for c in safe if engine.check(c["cmd"]).decision != "allow"]
    assert missed_hardline == []
    assert len(missed_dangerous) <= 0.03 * len(dangerous), missed_dangerous
    assert len(flagged_safe) <= 0.03 * len(safe), flagged_safe


@pytest.mark.parametrize("command", [c["cmd"] for c in SAMPLE if c["hardline"]])
def test_sample_hardline_commands_are_denied_as_hardline(engine: Engine, command: str) -> None:
    verdict = engine.check(command)
    assert (verdict.decision, verdict.hardline) == ("deny", True)


@pytest.mark.parametrize("command", EXTRA["deny"])
def test_written_hardline_commands_are_denied(engine: Engine, command: str) -> None:
    verdict = engine.check(command)
    assert verdict.decision == "deny", verdict.as_dict()


@pytest.mark.parametrize("command", EXTRA["ask"])
def test_written_dangerous_commands_are_not_allowed(engine: Engine, command: str) -> None:
    verdict = engine.check(command)
    assert verdict.decision in ("ask", "deny"), verdict.as_dict()


@pytest.mark.parametrize("command", EXTRA["allow"])
def test_written_safe_commands_are_allowed(engine: Engine, command: str) -> None:
    verdict = engine.check(command)
    assert verdict.decision == "allow", verdict.as_dict()


def test_matches_name_the_simple_command_and_its_wrappers(engine: Engine) -> None:
    verdict = engine.check("ls; sudo bash -c 'rm -rf /etc'")
    [match] = [m for m in verdict.matches if m.key == "recursive_delete_critical"]
    assert match.command == "rm -rf /etc"
    assert match.via == ("sudo", "bash")


def test_file_tool_paths_are_judged_as_paths(engine: Engine) -> None:
    assert engine.check(".git/hooks/pre-commit", tool="write_file").decision == "ask"
    assert engine.check("src/app.py", tool="write_file").decision == "allow"
