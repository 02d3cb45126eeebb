"""perf50 (stop 50, issue 8): a check without a session keeps what its disk reads yielded, never stale.

The family: a session-less check (`Engine.check`, `hermes-engine check`: what a guard hook asks) reads the file a
command runs from the disk (bg49's DiskView: `bash x.sh`, `make test` with the Makefile, `npm test` with
package.json). Since bg49 such a line was read and parsed again on every check (`make test` 333 us against 49 us
before). It is kept now, and the attacker's question is whether a kept reading can ever be served for a file that
changed: x.sh checked while it held `echo hi`, then rewritten to `rm -rf ~` -- the same size, in the same clock tick
(mtime restored), through a symbolic link swapped to another target, a folder replaced, a file renamed over it, a
Makefile made where there was none -- and checked again.

Fixed (perf50):

1. Evaluator._disk_parses keeps the parse of a line that read files from the disk with what each file was
   (DiskView.stamps: resolved path, device, inode, mode, size, mtime_ns, ctime_ns; for a file not read, that answer:
   absent, outside, a virtual environment's script), bounded (LRU, 256 lines), per evaluator (a policy reload drops
   it). A check uses it again only while every file is the same (DiskView.same: the path resolved again, its stat
   taken again); a file changed within ``disk_settle`` seconds (2 s) of the check is never kept, so a rewrite within
   the same timestamp tick (same size, mtime put back) is read again: its ctime moved, or it was too recent to keep.
2. One reading of a file's text for a session and a check (views.SessionView._disk: DiskView's was a copy); a file
   that is not a regular one is not opened (a FIFO's open waited for a writer).
3. The views (SessionFiles, SessionView, DiskView) moved to engine/policy/views.py, which makes no dataclass: a guard's
   check start no longer imports session_memory (tests/test_guard_warm.py asserts again that it keeps no code).

Near misses that stay allowed (and are served from the kept parse): `bash ok.sh`, `make test` with a plain
Makefile, `npm test` with a plain package.json, `git status`, `ls -la`.

Open: none found in this family. Noticed, not changed: a clock stepped backwards by more than ``disk_settle`` while a
file is rewritten in the same tick as its stamp is the one case the stamps cannot tell (no user can set ctime).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import RM_HOME, home_intact
from tests.redteam.harm import run_confined

BENIGN = "echo hi\n"
SAME_SIZE = "echo hi;" + " " * (len(RM_HOME) - len("echo hi;") - 1) + "\n"  # as long as RM_HOME
assert len(SAME_SIZE) == len(RM_HOME)


def _old(path: Path) -> None:
    """Backdate a fixture file (a file changed right before a check counts as fresh)."""
    t = time.time()
    os.utime(path, (t - 3600, t - 3600), follow_symlinks=False)


def _evaluator(engine: Engine):  # type: ignore[no-untyped-def]
    return engine._evaluator(engine._snapshot)


def _keeping(engine: Engine) -> None:
    """Keep fresh files' readings too (disk_settle 0): the stamps alone must tell every change below."""
    _evaluator(engine).disk_settle = 0.0


# -- the harm, live -------------------------------------------------------------------------------------------


def test_the_rewritten_script_deletes_the_home_live(tmp_path: Path) -> None:
    """The ground, unguarded: the same `bash x.sh` runs `echo hi`, then, x.sh rewritten to the same size with its
    mtime put back, deletes the home."""
    payload = (
        f"printf '{SAME_SIZE.rstrip()}\\n' > x.sh && touch -r /bin/sh x.sh && bash x.sh"
        f" && printf 'rm -rf ~\\n' > x.sh && touch -r /bin/sh x.sh && bash x.sh"
    )
    home, _, printed = run_confined(tmp_path, payload)
    assert "hi" in printed and not home_intact(home)


# -- the attacks on the kept reading ----------------------------------------------------------------------------


def test_a_same_size_rewrite_in_the_same_tick_is_read_again(plain_harm: tuple[Engine, Path, Path]) -> None:
    """Default settle: x.sh benign, checked, rewritten to `rm -rf ~` with the same size and mtime: never allowed."""
    engine, _, root = plain_harm
    script = root / "x.sh"
    script.write_text(SAME_SIZE)
    before = script.stat()
    assert engine.check("bash x.sh").decision == "allow"
    assert engine.check("bash x.sh").decision == "allow"
    script.write_text(RM_HOME)
    os.utime(script, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert script.stat().st_size == before.st_size and script.stat().st_ino == before.st_ino
    assert engine.check("bash x.sh").decision != "allow"


def test_a_fresh_file_is_not_kept(plain_harm: tuple[Engine, Path, Path]) -> None:
    """A file changed within disk_settle seconds (its ctime: a backdated mtime does not count) is not kept."""
    engine, _, root = plain_harm
    (root / "x.sh").write_text(BENIGN)
    _old(root / "x.sh")
    assert engine.check("bash x.sh").decision == "allow"
    assert "bash x.sh" not in _evaluator(engine)._disk_parses


def test_a_kept_reading_is_used_again_and_judges_alike(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, _, root = plain_harm
    _keeping(engine)
    (root / "x.sh").write_text(RM_HOME)
    (root / "ok.sh").write_text(BENIGN)
    for _ in range(3):
        assert engine.check("bash x.sh").decision != "allow"
        assert engine.check("bash ok.sh").decision == "allow"
    kept = _evaluator(engine)._disk_parses
    assert "bash x.sh" in kept and "bash ok.sh" in kept


@pytest.mark.parametrize(
    "change",
    ["longer", "renamed_over", "link_swapped", "folder_replaced", "removed_then_planted", "chmod_only_same_text"],
)
def test_a_kept_reading_is_never_served_for_a_changed_file(plain_harm: tuple[Engine, Path, Path], change: str) -> None:
    """Each change keeps the mtime it had (os.utime): the inode, size, resolved path or ctime tells it."""
    engine, _, root = plain_harm
    _keeping(engine)
    (root / "d").mkdir()
    (root / "d" / "a.sh").write_text(BENIGN)
    (root / "d" / "b.sh").write_text(RM_HOME)
    script = root / "x.sh"
    if change == "link_swapped":
        script.symlink_to("d/a.sh")
        command = "bash x.sh"
    elif change == "folder_replaced":
        command = "bash d/a.sh"
    else:
        script.write_text(BENIGN)
        command = "bash x.sh"
    target = root / command.split()[-1]
    mtime = target.stat().st_mtime_ns
    assert engine.check(command).decision == "allow"
    assert engine.check(command).decision == "allow"
    assert command in _evaluator(engine)._disk_parses  # kept: the next check would use it
    if change == "longer":
        script.write_text(RM_HOME + "# longer\n")
    elif change == "renamed_over":
        (root / "new.sh").write_text(RM_HOME)
        os.replace(root / "new.sh", script)
    elif change == "link_swapped":
        script.unlink()
        script.symlink_to("d/b.sh")
    elif change == "folder_replaced":
        (root / "d").rename(root / "old")
        (root / "d").mkdir()
        (root / "d" / "a.sh").write_text(RM_HOME)
    elif change == "removed_then_planted":
        script.unlink()
        assert engine.check(command).decision == "allow"
        script.write_text(RM_HOME)
    elif change == "chmod_only_same_text":
        script.chmod(0o700)  # a new stamp, the same text: read again, allowed again
    os.utime(target, ns=(mtime, mtime))
    verdict = engine.check(command).decision
    if change == "chmod_only_same_text":
        assert verdict == "allow"
    else:
        assert verdict != "allow", change


def test_a_makefile_made_where_there_was_none_is_read(plain_harm: tuple[Engine, Path, Path]) -> None:
    """`make test` kept with no makefile at all (make's three names absent), then a GNUmakefile planted."""
    engine, _, root = plain_harm
    _keeping(engine)
    assert engine.check("make test").decision == "allow"
    assert engine.check("make test").decision == "allow"
    (root / "GNUmakefile").write_text("test:\n\trm -rf ~\n")
    assert engine.check("make test").decision != "allow"


def test_a_kept_makefile_and_package_json_change(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, _, root = plain_harm
    _keeping(engine)
    (root / "Makefile").write_text("test:\n\techo ok\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"test": "echo ok"}}))
    for _ in range(2):
        assert engine.check("make test").decision == "allow"
        assert engine.check("npm test").decision == "allow"
    (root / "Makefile").write_text("test:\n\trm -rf ~\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"test": "rm -rf ~"}}))
    assert engine.check("make test").decision != "allow"
    assert engine.check("npm test").decision != "allow"


def test_a_policy_reload_drops_the_kept_readings(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, _, root = plain_harm
    _keeping(engine)
    (root / "x.sh").write_text(BENIGN)
    engine.check("bash x.sh")
    assert "bash x.sh" in _evaluator(engine)._disk_parses
    engine.reload(approve=True)
    assert "bash x.sh" not in _evaluator(engine)._disk_parses


def test_the_kept_readings_are_bounded(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, _, root = plain_harm
    _keeping(engine)
    evaluator = _evaluator(engine)
    evaluator.disk_parse_cache = 4
    (root / "x.sh").write_text(BENIGN)
    for i in range(10):
        engine.check(f"bash x.sh {i}")
    assert list(evaluator._disk_parses) == [f"bash x.sh {i}" for i in range(6, 10)]


def test_a_fifo_is_not_opened(plain_harm: tuple[Engine, Path, Path]) -> None:
    """A FIFO named as a script: not read (its open would wait for a writer); the check returns."""
    engine, _, root = plain_harm
    os.mkfifo(root / "p.sh")
    started = time.monotonic()
    engine.check("bash p.sh")
    assert time.monotonic() - started < 10


def test_a_session_view_reads_as_before(plain_harm: tuple[Engine, Path, Path]) -> None:
    """The one reading serves a session too: a script written in the session is judged by its text."""
    engine, _, root = plain_harm
    (root / "x.sh").write_text(RM_HOME)
    view = engine.session_memory.view("s-perf50", str(root))
    verdict = _evaluator(engine).verdict("terminal", {"command": "bash x.sh"}, view)
    assert verdict.decision != "allow"
    (root / "ok.sh").write_text(BENIGN)
    verdict = _evaluator(engine).verdict("terminal", {"command": "bash ok.sh"}, view)
    assert verdict.decision == "allow"


NEAR_MISSES = ["bash ok.sh", "make test", "npm test", "git status", "ls -la", "python3 -m pytest -q"]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed_when_kept(plain_harm: tuple[Engine, Path, Path], command: str) -> None:
    engine, _, root = plain_harm
    _keeping(engine)
    (root / "ok.sh").write_text(BENIGN)
    (root / "Makefile").write_text("test:\n\tpython3 -m pytest -q\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"test": "node --test"}}))
    for _ in range(2):
        verdict = engine.check(command)
        assert verdict.decision == "allow", (command, [m.key for m in verdict.matches])


def test_the_guard_check_start_imports_no_session_memory(tmp_path: Path) -> None:
    """A warm check start that reads x.sh from the disk (DiskView) imports views, not session_memory."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for name in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x.sh").write_text(RM_HOME)
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('modules', 'engine.policy.session_memory' in sys.modules,"
        " 'engine.policy.views' in sys.modules))\n"
        "from engine.cli import main\nmain(['check', '--builtin', 'bash x.sh'])\n"
    )
    for _ in range(3):  # cold (builds the compiled project), warm (writes the warm file), then warm
        done = subprocess.run(
            [sys.executable, "-c", probe],
            cwd=tmp_path / "p",
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    assert done.returncode == 1 and done.stdout.startswith("deny"), (done.stdout, done.stderr)
    assert done.stdout.strip().splitlines()[-1] == "modules False True", (done.stdout, done.stderr)
