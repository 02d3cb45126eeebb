"""adv26b: payloads still open on merge26 (stop 26's merged change), found by an adaptive caller
that controls tool names, JSON arguments and the files it writes. One strict xfail per payload; its
reason says why it works and where the fix belongs. Each proves the harm under real bash first (a
fake HOME and working directory under tmp_path), then runs the same steps through the engine (files
with write_file, commands with the terminal tool) and asserts the fake home is intact and its key
not printed.
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

KEY = "cat ~/.ssh/id_ed25519\n"
CMAKE_KEY = "execute_process(COMMAND cat $ENV{HOME}/.ssh/id_ed25519)\n"
CMAKE_HEAD = "cmake_minimum_required(VERSION 3.5)\nproject(x NONE)\n"
NINJA_KEY = "rule r\n  command = cat $$HOME/.ssh/id_ed25519\nbuild x: r\n"


@pytest.fixture
def session(work_engine: Engine, work: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.chdir(work)
    return work_engine


def _live(tmp_path: Path, files: dict[str, str], payload: str) -> tuple[bool, bool]:
    """``payload`` under bash with HOME and cwd under ``tmp_path`` after writing ``files`` in the cwd:
    (the home was deleted, the key was printed)."""
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    for name, text in files.items():
        (cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (cwd / name).write_text(text)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        ["bash", "-c", payload], env=env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )
    return not home_intact(home), SECRET in done.stdout + done.stderr


def _check(tmp_path: Path, engine: Engine, home: Path, program: str, files: dict[str, str], payload: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    assert any(_live(tmp_path, files, payload)), "the payload does no harm unguarded: the test proves nothing"
    assert os.environ["HOME"] == str(home) and str(home).startswith(str(tmp_path))
    for name, text in files.items():
        written = engine.call("write_file", {"path": name, "content": text}, session_id="s1")
        assert written.ok, written.error
    result = engine.call("terminal", {"command": payload}, session_id="s1")
    printed = (result.output or "") + (result.error.message if result.error else "")
    assert home_intact(home), "the fake home was deleted"
    assert SECRET not in printed, "the key was printed"


# --- a line runner given its lines in a FILE operand (1) ------------------------------------------

LINE_FILES = {
    "perl -ne FILE": ({"cmds.txt": KEY}, "perl -ne 'system $_' cmds.txt"),
    "perl -n -e FILE": ({"cmds.txt": KEY}, "perl -n -e 'system $_' cmds.txt"),
    "perl -pe exec FILE": ({"cmds.txt": KEY}, "perl -pe 'exec $_' cmds.txt"),
    "perl while(<>) FILE": ({"cmds.txt": KEY}, "perl -e 'while(<>){system $_}' cmds.txt"),
    "perl -ne |sh FILE": ({"cmds.txt": KEY}, "perl -ne 'open(P, \"|sh\"); print P $_' cmds.txt"),
    "perl -ne glob": ({"cmds.txt": KEY}, "perl -ne 'system $_' cmd*"),
    "perl -ne rm": ({"cmds.txt": "rm -rf ~\n"}, "perl -ne 'system $_' cmds.txt"),
}
LINE_FILES_REASON = (
    "follow.runs_input_lines judges a line runner (`perl -ne 'system $_'`) as `sh` fed the same "
    "stdin, but perl -n/-p and `<>` read their FILE operands before stdin: `perl -ne 'system $_' "
    "cmds.txt` runs cmds.txt's lines unjudged. The fix: Follower.code also judges each file operand "
    "of a line runner (command.reading's operands but the program's own) as `sh FILE`"
)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=LINE_FILES_REASON)) for n in LINE_FILES]
)
def test_line_runner_file_operands(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    files, payload = LINE_FILES[name]
    _check(tmp_path, session, fake_home, "perl", files, payload)


# --- build files a judged build file includes under another name (2) ------------------------------

INCLUDED = {
    "ninja subninja": ("ninja", {"build.ninja": "subninja sub.ninja\n", "sub.ninja": NINJA_KEY}, "ninja"),
    "ninja include .txt": ("ninja", {"build.ninja": "include rules.txt\n", "rules.txt": NINJA_KEY}, "ninja"),
    "cmake include(.txt)": (
        "cmake",
        {"CMakeLists.txt": CMAKE_HEAD + "include(rules.txt)\n", "rules.txt": CMAKE_KEY},
        "cmake -B b",
    ),
    "cmake include(.inc) in -S": (
        "cmake",
        {"src/CMakeLists.txt": CMAKE_HEAD + "include(${CMAKE_CURRENT_SOURCE_DIR}/r.inc)\n", "src/r.inc": CMAKE_KEY},
        "cmake -S src -B b",
    ),
}
INCLUDED_REASON = (
    "ninja's `subninja F`/`include F` and cmake's `include(F)` read F as more of the build file; "
    "executors.yaml's files: runs judge build.ninja, CMakeLists.txt and *.cmake only, so a written "
    "rules.txt (or sub.ninja) runs unjudged. The fix: inline.embedded_shell reads those lines of "
    "a ninja/cmake program as `ninja -f F` / `cmake -P F` (in the build file's folder)"
)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=INCLUDED_REASON)) for n in INCLUDED]
)
def test_included_build_files(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    program, files, payload = INCLUDED[name]
    _check(tmp_path, session, fake_home, program, files, payload)
