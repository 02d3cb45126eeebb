"""End to end: the payloads are live, and through the engine the harm does not happen.

Each payload is first run by /bin/sh itself with a fake HOME, to prove it deletes that
home; then the builtin `terminal` tool runs it through `Engine.call` with nobody to
approve (unattended: deny), and the fake home must be intact.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.conftest import RUN_SECONDS, home_intact, make_home

PAYLOADS = [
    "true \x1b]; rm -rf ~",
    "true \x9b; rm -rf ~",
    "echo ＂; rm -rf ~; echo ＂",
    "echo x\r# ; rm -rf ~",
    "echo x\u00a0# ; rm -rf ~",
    "echo $(true #)\nrm -rf ~\n)",
    "# note \\\nrm -rf ~",
    "((1 #\n)); rm -rf ~",
    "eval " * 9 + "rm -rf ~",
    "true;" * 600 + "rm -rf ~",
    "rm -rf ~ #" + "x" * 70_000,
]


@pytest.fixture
def engine(tmp_path: Path, fake_home: Path) -> Iterator[Engine]:
    work = tmp_path / "work"
    work.mkdir()
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    yield engine
    engine.close()


@pytest.mark.parametrize("payload", PAYLOADS, ids=range(len(PAYLOADS)))
def test_the_payload_is_live_when_the_shell_runs_it(tmp_path: Path, payload: str) -> None:
    home = make_home(tmp_path)
    assert home.is_relative_to(tmp_path) and home_intact(home)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(
        ["/bin/sh", "-c", payload], env=env, cwd=tmp_path, capture_output=True, timeout=RUN_SECONDS, check=False
    )
    assert not home_intact(home), "the payload should delete a home directory when nothing stops it"


@pytest.mark.parametrize("payload", PAYLOADS, ids=range(len(PAYLOADS)))
def test_through_the_engine_the_home_directory_survives(engine: Engine, fake_home: Path, payload: str) -> None:
    result = engine.call("terminal", {"command": payload})
    assert not result.ok
    assert result.error is not None and result.error.type in ("denied", "pending_approval")
    assert home_intact(fake_home)


def test_a_safe_command_does_run(engine: Engine, tmp_path: Path, fake_home: Path) -> None:
    # The denials above are not because the terminal never runs anything.
    result = engine.call("terminal", {"command": "echo ran > marker && cat marker"})
    assert result.ok and json.loads(result.output)["output"] == "ran\n"
    assert (tmp_path / "work" / "marker").is_file()


def test_the_cwd_argument_is_part_of_the_verdict(engine: Engine, fake_home: Path, tmp_path: Path) -> None:
    (fake_home / "data").mkdir()
    result = engine.call("terminal", {"command": "rm -rf .[!.]* *", "cwd": "~"})
    assert result.error is not None and result.error.type == "denied"
    assert home_intact(fake_home) and (fake_home / "data").is_dir()
