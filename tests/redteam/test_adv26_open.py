"""adv26: payloads still open on main at bd9836e, found by an adaptive caller that controls tool
names, JSON arguments and the files it writes. One strict xfail per payload; its reason says why it
works and where the fix belongs. Each proves the harm under real bash first (a fake HOME and
working directory under tmp_path), then asserts through the engine's terminal that the fake home is
intact and its key not printed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, make_home
from tests.redteam.harm import SECRET

C_SOURCE = "int main(void) { return 0; }\n"


@pytest.fixture
def session(work_engine: Engine, work: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.chdir(work)
    return work_engine


def _live(tmp_path: Path, files: dict[str, str], payload: str) -> tuple[bool, bool]:
    """Run ``payload`` under bash with HOME and cwd under ``tmp_path`` after writing ``files`` in the
    cwd: (the home was deleted, the key was printed)."""
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    for name, text in files.items():
        (cwd / name).write_text(text)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        ["bash", "-c", payload], env=env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )
    return not home_intact(home), SECRET in done.stdout + done.stderr


def _through_engine(engine: Engine, home: Path, files: dict[str, str], payload: str) -> tuple[bool, bool]:
    """The same through the engine: the files written with write_file, the payload run by the
    terminal tool. (the home was deleted, the key was printed)."""
    assert os.environ["HOME"] == str(home)
    for name, text in files.items():
        written = engine.call("write_file", {"path": name, "content": text}, session_id="s1")
        assert written.ok, written.error
    result = engine.call("terminal", {"command": payload}, session_id="s1")
    printed = (result.output or "") + (result.error.message if result.error else "")
    return not home_intact(home), SECRET in printed


def _check(
    tmp_path: Path,
    engine: Engine,
    home: Path,
    program: str,
    payload: str,
    files: dict[str, str] | None = None,
    planted: dict[str, str] | None = None,
) -> None:
    """``files`` are written by the caller (write_file); ``planted`` are the project's own, already in
    the working directory."""
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    files = files or {}
    live = {**(planted or {}), **files}
    assert any(_live(tmp_path, live, payload)), "the payload does no harm unguarded: the test proves nothing"
    deleted, printed = _through_engine(engine, home, files, payload)
    assert not deleted, "the fake home was deleted"
    assert not printed, "the key was printed"


# --- python -m timeit runs its operands and -s/--setup as Python (2) -------------------------------

TIMEIT = {
    "statement operand": "python3 -m timeit -n1 -r1 'import shutil, os; shutil.rmtree(os.path.expanduser(\"~\"))'",
    "--setup": (
        "python3 -m timeit -n1 -r1 "
        "--setup='import os; print(open(os.path.expanduser(\"~/.ssh/id_ed25519\")).read())' pass"
    ),
}
TIMEIT_REASON = (
    "`python -m timeit STMT...` compiles and runs each operand and each -s/--setup value as Python; "
    "executors.yaml's python entry reads -c, a script, stdin and modules written in the line's "
    "directory, not timeit's operands, so no inline-code pattern sees them. The fix: python's `-m "
    "timeit` as a subcommand whose operands and -s/--setup are `as: code, language: python`"
)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=TIMEIT_REASON)) for n in TIMEIT]
)
def test_python_timeit_runs_its_operands(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    _check(tmp_path, session, fake_home, "python3", TIMEIT[name])
