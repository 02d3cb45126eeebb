"""The terminal's `cwd` argument is judged as if `cd CWD &&` preceded the command."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "sub" / "build").mkdir(parents=True)
    return root


@pytest.fixture
def engine(work: Path, tmp_path: Path) -> Iterator[Engine]:
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    yield engine
    engine.close()


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ("rm -rf .[!.]* *", "~"),
        ("rm -rf *", "/"),
        ("rm -rf *", "/etc"),
        ("rm -rf ./*", "~/"),
        ("find . -delete", "/"),
        ("rm -rf .", "/usr"),
    ],
)
def test_a_dangerous_place_makes_a_relative_command_hardline(engine: Engine, command: str, cwd: str) -> None:
    result = engine.call("terminal", {"command": command, "cwd": cwd})
    assert result.error is not None and result.error.type == "denied", (command, cwd, result.error)
    assert "hardline" in result.error.message


@pytest.mark.parametrize("cwd", ["sub", "sub/build", "./sub"])
def test_a_place_inside_the_work_tree_changes_nothing(engine: Engine, work: Path, cwd: str) -> None:
    (work / "sub" / "build" / "out.o").write_text("x")
    result = engine.call("terminal", {"command": "rm -rf out.o && echo gone", "cwd": cwd})
    assert result.ok, result.output
    assert json.loads(result.output)["output"] == "gone\n"


def test_a_cwd_is_a_path_never_a_command(engine: Engine) -> None:
    # The value is quoted into the `cd`: what it holds is a directory name, not shell text.
    verdict = engine._evaluator(engine._snapshot).verdict("terminal", {"command": "ls", "cwd": "x; rm -rf ~"})
    assert verdict.decision == "allow"
