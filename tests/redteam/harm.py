"""Harm checks shared by the red-team families: a payload is live under a real shell with a
fake HOME and working directory, and through the engine's terminal the harm does not happen.

Every run here is confined: HOME and the working directory are under the test's tmp_path
(asserted before anything runs).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from engine import Engine
from tests.redteam.conftest import home_intact, make_home

SECRET = "secret key"  # what make_home writes into ~/.ssh/id_ed25519


def run_confined(tmp_path: Path, payload: str, shell: str = "/bin/bash") -> tuple[Path, Path, str]:
    """Run ``payload`` with ``shell -c`` in a fresh fake HOME and working directory under
    ``tmp_path``; return (home, cwd, what it printed)."""
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    assert home.is_relative_to(tmp_path) and cwd.is_relative_to(tmp_path)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        [shell, "-c", payload], env=env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )
    return home, cwd, done.stdout + done.stderr


def blocked(engine: Engine, home: Path, payload: str) -> str:
    """Run ``payload`` through the terminal tool with nobody to approve: it must be refused and
    the fake home intact. Returns the call's output (to check no secret was printed)."""
    assert os.environ["HOME"] == str(home)
    result = engine.call("terminal", {"command": payload})
    assert not result.ok, (payload, result.output)
    assert result.error is not None and result.error.type in ("denied", "pending_approval"), payload
    assert home_intact(home), payload
    assert SECRET not in (result.output or ""), payload
    return result.output or ""


def live_then_stopped(
    tmp_path: Path, engine: Engine, home: Path, payload: str, *, shell: str = "/bin/bash", live: str | None = None
) -> None:
    """The red-team families' harm test: ``payload`` (or its ``live`` spelling, e.g. with its input
    closed) deletes a fake home or prints its key when a real ``shell`` runs it unguarded, and
    through the engine's terminal it is refused with the ``home`` intact and the key not printed."""
    deleted, _, printed = run_confined(tmp_path, live or payload, shell)
    assert not (deleted / "notes.txt").is_file() or SECRET in printed, "the payload should do harm unguarded"
    blocked(engine, home, payload)
