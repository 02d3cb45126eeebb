"""stop 46, sess46 (issue 8): a file a running background process of the session reads as code, rewritten by a
later call before the process reads it.

Found and fixed (each allowed before; the fake home deleted through `Engine.call`):

1. `terminal` with background=True ran `sleep 3; sh x.sh` (x.sh harmless when judged), then `write_file x.sh
   'rm -rf ~'`, `patch`, or a terminal `cp evil.txt x.sh` / `mv` / `echo … > x.sh` / `tee` / `sed -i` rewrote it:
   each write was judged alone, the process's command had been judged with the old text. Same with `make` and a
   rewritten Makefile, `npm test` and package.json, `python3 -c "import mod"` and mod.py, a repository's own
   `scripts/ci.sh` (never written by the session) and a background command run in another folder (`cwd`).
   Now the gate remembers, per background process, the files the reading of its command asked the session for
   (session_memory.Watched: SessionView.read's keys, the globs of a Programs row's `files:` too); while the
   process runs, a call writing one of them gets the strictest of its own verdict and the process's command judged
   again with the new text (`patch`: old_string -> new_string on the text on disk; a text not known here --
   `sed -i`, a unified diff, a copy of a file the session did not write -- is unread: approval).
   Near misses that stay allowed: the same rewrite after the process exited, a data file or a README written
   while it runs, a harmless rewrite of its script, the same write from another session.

Closed by bg49 (stop 49): the session-less `Engine.check('bash x.sh')` / `hermes-engine check 'bash x.sh'` with
x.sh on disk holding `rm -rf ~` was `allow`; a check without a session now reads the file a command runs from the
disk (session_memory.DiskView, tests/redteam/test_bg49.py). A call is judged with its session as before (a call
without a session id: the "default" session), as test_a_call_without_session_id_runs_no_file_it_wrote shows.

Noticed, not fixed: the watch is per session (the brief's near miss): a write from another session id to a file
a process of this session runs is judged alone.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.session_memory import MAX_WATCHED, SessionMemory, WatchedKeys
from tests.redteam.conftest import PY_RM_HOME, RM_HOME, home_intact

Call = tuple[str, dict[str, object]]
# (files the session writes first, files already in the repository (old), the background command, its cwd, the
# call that rewrites a file the background command runs)
Rewrite = tuple[dict[str, str], dict[str, str], str, str | None, Call]

_MAKEFILE = "all:\n\techo hi\n"
_PACKAGE = '{"scripts": {"test": "echo hi"}}\n'

REWRITES: dict[str, Rewrite] = {
    "sh x.sh, terminal cp": (
        {"x.sh": "echo hi\n", "evil.txt": RM_HOME},
        {},
        "sleep 3; sh x.sh",
        None,
        ("terminal", {"command": "cp evil.txt x.sh"}),
    ),
    "sh x.sh, terminal mv": (
        {"x.sh": "echo hi\n", "evil.txt": RM_HOME},
        {},
        "sleep 3; sh x.sh",
        None,
        ("terminal", {"command": "mv evil.txt x.sh"}),
    ),
    "sh x.sh, terminal redirection": (
        {"x.sh": "echo hi\n"},
        {},
        "sleep 3; sh x.sh",
        None,
        ("terminal", {"command": "echo 'rm -rf ~' > x.sh"}),
    ),
    "sh x.sh, terminal tee": (
        {"x.sh": "echo hi\n"},
        {},
        "sleep 3; sh x.sh",
        None,
        ("terminal", {"command": "echo 'rm -rf ~' | tee x.sh"}),
    ),
    "sh x.sh, sed -i": (
        {"x.sh": "echo hi\n"},
        {},
        "sleep 3; sh x.sh",
        None,
        ("terminal", {"command": "sed -i 's/echo hi/rm -rf ~/' x.sh"}),
    ),
    "bash of a repository script the session never wrote, write_file": (
        {},
        {"scripts/ci.sh": "echo ci\n"},
        "sleep 3; bash scripts/ci.sh",
        None,
        ("write_file", {"path": "scripts/ci.sh", "content": RM_HOME}),
    ),
    "a background command in another folder, write_file": (
        {"sub/x.sh": "echo hi\n"},
        {},
        "sleep 3; sh x.sh",
        "sub",
        ("write_file", {"path": "sub/x.sh", "content": RM_HOME}),
    ),
    "python import, write_file": (
        {"mod.py": "print(1)\n"},
        {},
        'sleep 3; python3 -c "import mod"',
        None,
        ("write_file", {"path": "mod.py", "content": PY_RM_HOME}),
    ),
    "make, patch": (
        {"Makefile": _MAKEFILE},
        {},
        "sleep 3; make",
        None,
        ("patch", {"path": "Makefile", "old_string": "echo hi", "new_string": RM_HOME.strip()}),
    ),
    "npm test, write_file package.json": (
        {"package.json": _PACKAGE},
        {},
        "sleep 3; npm test",
        None,
        ("write_file", {"path": "package.json", "content": '{"scripts": {"test": "rm -rf ~"}}\n'}),
    ),
}

# (the same shape; the last call must be allowed and its write done)
NEAR: dict[str, Rewrite] = {
    "a data file written while it runs": (
        {"x.sh": "echo hi\n"},
        {},
        "sleep 3; sh x.sh",
        None,
        ("write_file", {"path": "data.txt", "content": RM_HOME}),
    ),
    "a README written while it runs": (
        {"x.sh": "echo hi\n"},
        {},
        "sleep 3; sh x.sh",
        None,
        ("write_file", {"path": "README.md", "content": "# notes\n"}),
    ),
    "a harmless rewrite of its script": (
        {"x.sh": "echo hi\n"},
        {},
        "sleep 3; sh x.sh",
        None,
        ("write_file", {"path": "x.sh", "content": "echo hello\n"}),
    ),
    "a harmless patch of a repository script": (
        {},
        {"scripts/ci.sh": "echo ci\n"},
        "sleep 3; bash scripts/ci.sh",
        None,
        ("patch", {"path": "scripts/ci.sh", "old_string": "echo ci", "new_string": "echo ci; echo done"}),
    ),
    "a terminal write of another file": (
        {"x.sh": "echo hi\n"},
        {},
        "sleep 3; sh x.sh",
        None,
        ("terminal", {"command": "echo hello > notes.txt"}),
    ),
    "make, a harmless patch": (
        {"Makefile": _MAKEFILE},
        {},
        "sleep 3; make",
        None,
        ("patch", {"path": "Makefile", "old_string": "echo hi", "new_string": "echo hello"}),
    ),
}


def _prepare(engine: Engine, root: Path, case: Rewrite, session: str = "s1") -> str:
    """Write the case's files, start its background command; its process id."""
    written, old, command, cwd, _ = case
    for path, text in old.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
        os.utime(root / path, (1_000_000_000, 1_000_000_000))  # the repository's own, from long ago
    for path, text in written.items():
        assert engine.call("write_file", {"path": path, "content": text}, session_id=session).ok, path
    args: dict[str, object] = {"command": command, "background": True}
    if cwd is not None:
        args["cwd"] = cwd
    started = engine.call("terminal", args, session_id=session)
    assert started.ok, started.error
    return str(json.loads(started.output)["process_id"])


def _wait(engine: Engine, pid: str, session: str = "s1") -> None:
    """Wait for the background process to end (it reads the file after its sleep)."""
    engine.call("process", {"action": "wait", "process_id": pid, "timeout": 20}, session_id=session)


def _needs_programs(case: Rewrite) -> None:
    program = case[2].split("; ")[-1].split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"not installed: {program}")


@pytest.mark.parametrize("name", list(REWRITES))
def test_a_rewrite_of_a_file_a_running_background_command_runs_is_refused(
    name: str, plain_harm: tuple[Engine, Path, Path]
) -> None:
    case = REWRITES[name]
    _needs_programs(case)
    engine, home, root = plain_harm
    pid = _prepare(engine, root, case)
    tool, arguments = case[4]
    rewritten = engine.call(tool, arguments, session_id="s1")
    _wait(engine, pid)
    assert home_intact(home), name
    assert not rewritten.ok and rewritten.error is not None, name
    assert rewritten.error.type in ("denied", "pending_approval"), (name, rewritten.error)


@pytest.mark.parametrize("name", list(NEAR))
def test_near_misses_while_it_runs_are_allowed(name: str, plain_harm: tuple[Engine, Path, Path]) -> None:
    case = NEAR[name]
    _needs_programs(case)
    engine, home, root = plain_harm
    pid = _prepare(engine, root, case)
    tool, arguments = case[4]
    result = engine.call(tool, arguments, session_id="s1")
    assert result.ok, (name, result.error)
    _wait(engine, pid)
    assert home_intact(home), name


def test_the_rewrite_after_the_process_ended_is_an_ordinary_write(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    pid = _prepare(engine, root, ({"x.sh": "echo hi\n"}, {}, "sh x.sh", None, ("", {})))
    _wait(engine, pid)
    polled = engine.call("process", {"action": "poll", "process_id": pid}, session_id="s1")
    assert polled.ok and json.loads(polled.output)["status"] == "exited"
    rewritten = engine.call("write_file", {"path": "x.sh", "content": RM_HOME}, session_id="s1")
    assert rewritten.ok, rewritten.error
    assert (root / "x.sh").read_text() == RM_HOME
    assert not engine.session_memory.session("s1").watches  # forgotten once it ended
    assert home_intact(home)


def test_the_same_rewrite_from_another_session_is_judged_alone(plain_harm: tuple[Engine, Path, Path]) -> None:
    """The watch is the session's own: another session's write is judged as before (the process is killed before
    it reads x.sh: what another session's write does to this one's process is not judged here, see the docstring)."""
    engine, home, root = plain_harm
    pid = _prepare(engine, root, ({"x.sh": "echo hi\n"}, {}, "sleep 30; sh x.sh", None, ("", {})))
    try:
        mine = engine.call("write_file", {"path": "x.sh", "content": RM_HOME}, session_id="s1")
        other = engine.call("write_file", {"path": "x.sh", "content": RM_HOME}, session_id="s2")
    finally:
        engine.call("process", {"action": "kill", "process_id": pid}, session_id="s1")
    assert not mine.ok
    assert other.ok, other.error
    assert home_intact(home)


def test_a_background_command_reading_no_file_watches_none(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    pid = _prepare(engine, root, ({}, {}, "sleep 1; echo hi", None, ("", {})))
    assert not engine.session_memory.session("s1").watches
    assert engine.call("write_file", {"path": "x.sh", "content": RM_HOME}, session_id="s1").ok
    _wait(engine, pid)
    assert home_intact(home)


# -- the memory's bounds ----------------------------------------------------------------------------------


def test_watches_are_bounded_and_forgotten_when_their_process_ends() -> None:
    memory = SessionMemory()
    pids = [str(i) for i in range(MAX_WATCHED + 8)]
    alive = dict.fromkeys(pids, True)
    for pid in pids:
        read = WatchedKeys()
        read.add(f"x{pid}.sh")
        memory.expect("s", f"sh x{pid}.sh", None, read)
        memory.started("s", pid, f"sh x{pid}.sh", None, alive=lambda pid=pid: alive[pid])  # type: ignore[misc]
    files = memory.session("s")
    assert len(files.watches) == MAX_WATCHED
    assert "0" not in files.watches and str(MAX_WATCHED + 7) in files.watches  # the oldest went first
    for pid in pids:
        alive[pid] = False
    alive[str(MAX_WATCHED)] = True
    assert [w.command for w in memory.watched(files)] == [f"sh x{MAX_WATCHED}.sh"]
    assert list(files.watches) == [str(MAX_WATCHED)]
    assert not memory.session("other").watches


def test_a_reading_past_the_key_bound_watches_every_write() -> None:
    read = WatchedKeys()
    for i in range(5000):
        read.add(f"f{i}.py")
    memory = SessionMemory()
    memory.expect("s", "sleep 1; python3 big.py", None, read)
    memory.started("s", "p", "sleep 1; python3 big.py", None, alive=lambda: True)
    (watched,) = memory.watched(memory.session("s"))
    assert watched.every and watched.reads("anything.txt")
    assert len(watched.exact) < 5000


# -- second priority: the session-less check of a file on disk ----------------------------------------------


def test_a_session_less_check_of_a_script_on_disk(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, _, root = plain_harm
    (root / "x.sh").write_text(RM_HOME)
    assert engine.check("bash x.sh").decision != "allow"


def test_a_session_less_check_of_an_ordinary_script_is_allowed(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, _, root = plain_harm
    (root / "scripts").mkdir()
    (root / "scripts" / "ci.sh").write_text("echo ci\npython3 -m pytest -q\n")
    assert engine.check("bash scripts/ci.sh").decision == "allow"


def test_a_call_without_session_id_runs_no_file_it_wrote(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    assert engine.call("write_file", {"path": "x.sh", "content": RM_HOME}).ok
    ran = engine.call("terminal", {"command": "bash x.sh"})
    time.sleep(0.2)
    assert not ran.ok
    assert home_intact(home)
