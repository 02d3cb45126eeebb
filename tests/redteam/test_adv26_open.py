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


# --- roff in unsafe mode runs its document's `.sy` / pic's `sh` (4) --------------------------------

ROFF = {
    "groff -U on stdin": ("groff", "echo '.sy rm -rf ~' | groff -U -Tutf8", {}),
    "nroff -U on a written file": ("nroff", "nroff -U x.ms", {"x.ms": ".sy rm -rf ~\n"}),
    "troff -U, clustered": ("troff", "troff -zU x.ms", {"x.ms": ".sy rm -rf ~\n"}),
    "pic -U": ("pic", "pic -U x.pic", {"x.pic": ".PS\nsh X rm -rf ~ X\n.PE\n"}),
}
ROFF_REASON = (
    "groff/nroff/troff/pic are no executors: with -U (unsafe mode) a document's `.sy CMD` (and "
    "`.pso`, pic's `sh X CMD X`) runs through sh; the document comes from stdin or a file the session "
    "wrote, and nothing reads it. The fix belongs in the tables: roff programs with -U run what they "
    "read (ask at least: a pattern in policies/exec.yaml on the -U flag)"
)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=ROFF_REASON)) for n in ROFF]
)
def test_roff_unsafe_mode_runs_the_document(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    program, payload, files = ROFF[name]
    _check(tmp_path, session, fake_home, program, payload, files)


# --- a compiler driver's -wrapper runs a program of the caller's (3) -------------------------------

WRAPPER = {
    "gcc -wrapper sh,-c": ("gcc", "gcc -wrapper sh,-c,'rm -rf ~' x.c -o x"),
    "cc -wrapper /bin/sh": ("cc", "cc -wrapper /bin/sh,-c,'rm -rf ~' x.c -o x"),
    "gcc -wrapper env bash": ("gcc", "gcc -c -wrapper /usr/bin/env,bash,-c,'rm -rf \"$HOME\"' x.c"),
}
WRAPPER_REASON = (
    "gcc's `-wrapper PROG,ARG,...` runs every subprocess (cc1, as, collect2) as `PROG ARG... cc1 ...`; "
    "gcc/cc/g++/clang have no entry in policies/executors.yaml, and the comma-joined words hide the "
    "command from the flat scan. The fix: the compiler drivers' -wrapper (and -fplugin=, -specs=, which "
    "load the caller's code) are escape hatches: ask"
)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=WRAPPER_REASON)) for n in WRAPPER]
)
def test_a_compiler_wrapper_runs_a_command(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    program, payload = WRAPPER[name]
    _check(tmp_path, session, fake_home, program, payload, {"x.c": C_SOURCE})


# --- make's command-line variables name the programs its built-in rules run (3) --------------------

MAKE_VARIABLES = {
    "make CC=": "make CC='rm -rf ~;' x",
    "make LINK.o-free CC with a target": "make -s CC='rm -rf ~ #' x.o",
    "gmake-style CC in a later word": 'make -B x CC="rm -rf $HOME;"',
}
MAKE_REASON = (
    "make's built-in rules run $(CC), $(CXX), $(LD), $(AR) ... (`x: x.c` needs no makefile), and a "
    "`NAME=VALUE` operand sets them; executors.yaml's make entry reads those variables from the "
    "environment (`CC=... make`, the &compilers run) and only SHELL= among the operands. The fix: an "
    "operand run in the make entry for the same names (the compilers and other program variables)"
)


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=MAKE_REASON)) for n in MAKE_VARIABLES],
)
def test_make_variable_operand_runs_a_command(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    _check(tmp_path, session, fake_home, "make", MAKE_VARIABLES[name], {"x.c": C_SOURCE})


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
