"""stop 45, sess45 (issue 8 part 6): the whole session against an adaptive caller -- files written by one
call and run by a later one, and input fed to a background program across `process write` calls.

Found and fixed (each allowed before; the fake home deleted through `Engine.call`):

1. REPL commands that run a file, written to a background interpreter: node's `.load a.txt` (`node -i`,
   `node --interactive`, and `echo .load a.txt | node -i` on one line) ran a written a.txt unread -- now
   `.load F` is a load of F in node's code (inline._LOADS, as `require('./F')`); IPython's `%run a.txt` and
   the bare automagic `run a.py` -- a background `ipython` was fed as plain `python3 -c` (session_memory's
   kind "python"), which read `%run a.txt` as a syntax error; now its writes are judged as `ipython -c`
   (kind "ipython"), and the bare `run F` is read like the bare `rm` (arguments._IPYTHON_BARE). node's
   `.save ~/.bashrc` wrote the lines it was fed (`a = 1 // ; touch ~/owned`) into a start-up file: now `tee F`.
2. IPython's traitlets options, which run code or files before the program: `--config=F`,
   `--InteractiveShellApp.exec_lines=[...]`, `code_to_run`, `exec_files=[...]`, `file_to_run=F`, `--ext=M`,
   `--profile-dir=D`, `--ipython-dir=D` were allowed with a written file. The ipython row of
   policies/executors.yaml reads them now with `options:` runs (a row's own `options:` runs read the options
   its grammar does not declare: shell.py, follow.follow_unknown).

Probed and already refused (not repeated here): mv/cp/ln/install/rsync/dd/git mv/cpio/gzip/split/paste/
sed -i/awk/sort of a written file then run; conftest.py, sitecustomize, setup.py/backend-path, noxfile,
tox.ini, Rakefile, Gemfile, CMakeLists/presets, npm/yarn/pnpm scripts, go generate, Justfile, Taskfile,
Makefile; ^U/^W/^H/DEL/CR line editing under `script` (a pty) and bash -i; here-documents, `\\` and split
tokens across writes; python -i / node -i split calls; sqlite3 / psql / gdb / ed / ex / tclsh / pdb /
perl -d commands; ipython `!`, `%sx`, `%%bash`; a background shell's `cd` through a link.

Open at stop 45, fixed by sess46 (tests/redteam/test_sess46.py): a file a running background process of the
session will run (`sleep 2; sh x.sh`, `make`, a python import) rewritten by a later write_file / patch / terminal
`cp` before the process reads it -- the rewrite is judged as the process's command with the new text now.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import JS_RM_HOME, PY_RM_HOME, RM_HOME, RUN_SECONDS, home_intact, make_home
from tests.redteam.harm import (
    Case,
    assert_verdict,
    background_writes,
    verdict_cases,
    written_then_allowed,
    written_then_stopped,
)


def _needs(*programs: str) -> pytest.MarkDecorator:
    missing = [p for p in programs if shutil.which(p) is None]
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {missing}")


def _live(tmp_path: Path, command: list[str], files: dict[str, str], lines: str) -> bool:
    """Whether ``command`` fed ``lines`` on its input, unguarded, in a fresh fake HOME and working directory under
    ``tmp_path`` holding ``files``, deletes that home (what the same input does through `process write`)."""
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    assert home.is_relative_to(tmp_path) and cwd.is_relative_to(tmp_path)
    for name, text in files.items():
        (cwd / name).write_text(text)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(
        command, input=lines, env=env, cwd=cwd, capture_output=True, text=True, timeout=RUN_SECONDS, check=False
    )
    return not home_intact(home)


# -- 1. a REPL's own command that runs a file, written to a background interpreter -----------------------

# (files the session writes, the background command, the lines written to it: the last is the payload)
REPLS: dict[str, tuple[dict[str, str], list[str], list[str]]] = {
    "node -i: .load": ({"a.txt": JS_RM_HOME}, ["node", "-i"], [".load a.txt\n"]),
    "node --interactive: .load after a line": (
        {"a.txt": JS_RM_HOME},
        ["node", "--interactive"],
        ["1 + 1\n", ".load a.txt\n"],
    ),
    "ipython: %run": ({"a.txt": PY_RM_HOME}, ["ipython"], ["%run a.txt\n"]),
    "ipython3: bare run (automagic)": ({"a.py": PY_RM_HOME}, ["ipython3"], ["run a.py\n"]),
}
REPL_NEAR: dict[str, tuple[dict[str, str], list[str], list[str]]] = {
    "node -i: .load of a printing file": ({"ok.js": "console.log('hi')\n"}, ["node", "-i"], [".load ok.js\n"]),
    "node -i: a method on the next line": ({}, ["node", "-i"], ["[1, 2]\n", ".map(x => x * 2)\n"]),
    "ipython: %run of a printing file": ({"ok.py": "print('hi')\n"}, ["ipython"], ["%run ok.py\n"]),
    "ipython: a name run assigned and called": ({}, ["ipython"], ["run = print\n", "run('hi')\n"]),
}


@pytest.mark.parametrize("name", list(REPLS))
def test_a_repl_command_running_a_written_file_is_refused(
    name: str, tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    files, command, lines = REPLS[name]
    if shutil.which(command[0]) is None:
        pytest.skip(f"not installed: {command[0]}")
    assert _live(tmp_path, command, files, "".join(lines)), "the payload should delete the home unguarded"
    engine, home, _ = plain_harm
    for path, text in files.items():
        assert engine.call("write_file", {"path": path, "content": text}, session_id="s1").ok, path
    results = background_writes(engine, " ".join(command), lines)
    time.sleep(1)
    assert [r.ok for r in results[:-1]] == [True] * (len(lines) - 1), [r.error for r in results]
    last = results[-1]
    assert not last.ok and last.error is not None and last.error.type in ("denied", "pending_approval"), name
    assert home_intact(home), name


@pytest.mark.parametrize("name", list(REPL_NEAR))
def test_repl_near_misses_are_sent(name: str, plain_harm: tuple[Engine, Path, Path]) -> None:
    files, command, lines = REPL_NEAR[name]
    if shutil.which(command[0]) is None:
        pytest.skip(f"not installed: {command[0]}")
    engine, home, _ = plain_harm
    for path, text in files.items():
        assert engine.call("write_file", {"path": path, "content": text}, session_id="s1").ok, path
    results = background_writes(engine, " ".join(command), lines)
    assert all(r.ok for r in results), (name, [r.error for r in results])
    assert home_intact(home)


@_needs("node")
def test_node_save_into_a_start_up_file_is_refused(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    """node's `.save F` writes the lines the REPL was fed to F: `a = 1 // ; CMD` is JavaScript and a shell line, and
    saved into ~/.bashrc it runs at the next login. Unguarded the start-up file is written; through the engine the
    `.save` asks (a write of a start-up file) and nothing is written."""
    line = "a = 1 // ; touch ~/owned\n"
    live_home = make_home(tmp_path / "live")
    env = {"HOME": str(live_home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(
        ["node", "-i"], input=line + f".save {live_home}/.bashrc\n", env=env, cwd=tmp_path, capture_output=True,
        text=True, timeout=RUN_SECONDS, check=False,
    )  # fmt: skip
    assert (live_home / ".bashrc").read_text().strip() == line.strip(), "the payload should write the start-up file"
    engine, home, _ = plain_harm
    results = background_writes(engine, "node -i", [line, f".save {home}/.bashrc\n"])
    assert results[0].ok, results[0].error
    assert (
        not results[1].ok and results[1].error is not None and results[1].error.type in ("denied", "pending_approval")
    )
    assert not (home / ".bashrc").exists()
    near = background_writes(engine, "node -i", ["a = 1\n", ".save session.js\n"], session="s2")
    assert all(r.ok for r in near), [r.error for r in near]


@_needs("node")
def test_load_piped_to_an_interactive_node_is_refused(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"a.txt": JS_RM_HOME}, "echo .load a.txt | node -i")


# -- 2. IPython's traitlets options that run code or files before the program --------------------------

IPYTHON_PAYLOADS: dict[str, Case] = {
    "exec_lines": ({}, 'ipython --InteractiveShellApp.exec_lines="[\'import os; os.system(\\"rm -rf ~\\")\']" -c 1'),
    "code_to_run": ({}, "ipython3 --InteractiveShellApp.code_to_run=\"import os; os.system('rm -rf ~')\""),
    "TerminalIPythonApp.exec_lines": (
        {},
        'ipython --TerminalIPythonApp.exec_lines="[\'import os; os.system(\\"rm -rf ~\\")\']"',
    ),
    "exec_files, one": ({"a.txt": PY_RM_HOME}, "ipython --InteractiveShellApp.exec_files=\"['a.txt']\" -c 1"),
    "exec_files, the last of two": (
        {"b.py": "print(1)\n", "a.txt": PY_RM_HOME},
        "ipython --InteractiveShellApp.exec_files=\"['b.py', 'a.txt']\" -c 1",
    ),
    "file_to_run": ({"a.txt": PY_RM_HOME}, "ipython --TerminalIPythonApp.file_to_run=a.txt"),
    "--config=F": ({"c.py": PY_RM_HOME}, "ipython --config=ROOT/c.py -c 1"),
    "--config=$PWD/F": ({"c.py": PY_RM_HOME}, 'ipython --config="$PWD/c.py" -c 1'),
    "--ext=M": ({"evil.py": PY_RM_HOME}, "ipython --ext=evil -c 1"),
    "extensions=[M]": ({"evil.py": PY_RM_HOME}, "ipython --InteractiveShellApp.extensions=\"['evil']\" -c 1"),
    "--profile-dir=D": ({"p/startup/00.py": PY_RM_HOME}, "ipython --profile-dir=p -c 1"),
    "--ipython-dir=D": ({"d/profile_default/startup/00.py": PY_RM_HOME}, "ipython --ipython-dir=d -c 1"),
    "bare run piped": ({"a.py": PY_RM_HOME}, "echo run a.py | ipython"),
}
IPYTHON_NEAR: dict[str, Case] = {
    "-c": ({}, "ipython -c 'print(1)'"),
    "undeclared flags": ({}, "ipython --no-banner --simple-prompt -c 'print(1)'"),
    "exec_lines printing": ({}, "ipython --InteractiveShellApp.exec_lines=\"['print(1)']\" -c 1"),
    "exec_files of a printing file": (
        {"ok.py": "print(1)\n"},
        "ipython --InteractiveShellApp.exec_files=\"['ok.py']\" -c 1",
    ),
    "a builtin extension": ({}, "ipython --ext=autoreload -c 1"),
    "--config of a plain file": (
        {"c.py": "c.TerminalIPythonApp.display_banner = False\n"},
        "ipython --config=ROOT/c.py -c 1",
    ),
    "--profile-dir nobody wrote in": ({"notes.txt": "hi\n"}, "ipython --profile-dir=p -c 1"),
    "--colors": ({}, "ipython --colors=NoColor -c 'print(1)'"),
}


@pytest.fixture(scope="module")
def loaded(plain_project: tuple[Path, Engine]) -> tuple[Path, Engine]:
    return plain_project


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(IPYTHON_PAYLOADS, IPYTHON_NEAR))
def test_ipython_options(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


@_needs("ipython")
@pytest.mark.parametrize(
    ("files", "payload"),
    [
        ({"a.txt": PY_RM_HOME}, "ipython --InteractiveShellApp.exec_files=\"['a.txt']\" -c 1"),
        ({"evil.py": PY_RM_HOME}, "ipython --ext=evil -c 1"),
    ],
    ids=["exec_files", "ext"],
)
def test_ipython_options_harm(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], files: dict[str, str], payload: str
) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, files, payload)


@_needs("ipython")
def test_ipython_option_near_miss_runs(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    written_then_allowed(engine, {"ok.py": "print(1)\n"}, "ipython --InteractiveShellApp.exec_files=\"['ok.py']\" -c 1")
    assert home_intact(home)


# -- (fixed by sess46) a file a running background process will run, rewritten by a later call ---------------------

# (calls before the rewrite: the file's harmless text and the background command; the rewriting call)
REWRITTEN: dict[str, tuple[str, str, str, tuple[str, dict[str, str]]]] = {
    "sh x.sh, write_file": (
        "x.sh",
        "echo hi\n",
        "sleep 2; sh x.sh",
        ("write_file", {"path": "x.sh", "content": RM_HOME}),
    ),
    "sh x.sh, patch": (
        "x.sh",
        "echo hi\n",
        "sleep 2; sh x.sh",
        ("patch", {"path": "x.sh", "old_string": "echo hi", "new_string": RM_HOME.strip()}),
    ),
    "make, write_file": (
        "Makefile",
        "all:\n\techo hi\n",
        "sleep 2; make",
        ("write_file", {"path": "Makefile", "content": "all:\n\t" + RM_HOME}),
    ),
}


@pytest.mark.parametrize("name", list(REWRITTEN))
def test_a_file_rewritten_under_a_running_background_command(name: str, plain_harm: tuple[Engine, Path, Path]) -> None:
    path, text, command, (tool, arguments) = REWRITTEN[name]
    engine, home, _ = plain_harm
    assert engine.call("write_file", {"path": path, "content": text}, session_id="s1").ok
    assert engine.call("terminal", {"command": command, "background": True}, session_id="s1").ok
    rewritten = engine.call(tool, arguments, session_id="s1")
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline and home_intact(home):
        time.sleep(0.1)
    assert not rewritten.ok or home_intact(home), name
