"""`git clean -fd` at home or `/` deletes everything untracked there: the home itself once
`git init` made it a work tree. It was an ask (git_discard_work); it is now a hardline deny
(recursive_delete_critical).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    "cd ~ && git init -q && git clean -fdxq",
    "git -C ~ clean -ffdx",
    "git clean -xfd -- ~",
    "cd / && git clean -fd",
]

NEAR_MISSES_ASK = ["git clean -fdx", "cd ~/proj && git clean -fdx"]


@pytest.mark.parametrize("command", HARDLINE)
def test_git_clean_at_home_is_hardline(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES_ASK)
def test_git_clean_in_a_project_stays_a_question(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "ask" and not verdict.hardline, command


def test_the_payload_is_live_and_the_engine_stops_it(tmp_path: Path, work_engine: Engine, fake_home: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed here")
    payload = "cd ~ && git init -q && git clean -fdxq"
    live_then_stopped(tmp_path, work_engine, fake_home, payload)
