"""watch29: where the link walk (engine/policy/landing.py) judged a path through a link by a view
that was not the file system's.

- Two checks at once in one engine (threads of a host): a drain of the kernel's events in one
  check, between another check finding the folders above a path watched and giving the path its
  stamp, took a watch away from under the stamp. The stamp then outlived the watch: a link planted
  in that folder later was never seen (``rm -rf p/d/x/*`` with ``p/d/x -> ~`` allowed, for good).
- A path the walk cannot look at was read as a path with no link on its way: one longer than a
  system call takes (PATH_MAX: a shell that `cd`s in steps reaches it, `cd A && cd B && rm -rf
  x/*`), or one below a folder that cannot be searched now (`chmod +x d && rm -rf d/x/*`).
- A bind mount is no symbolic link: in a shell of its own namespaces (`unshare -rm`, started in the
  background) after `mount --bind ~ x`, a written line `rm -f x/notes.txt` was judged as the working
  directory's. The mount asks now (mount_elsewhere).

The harm runs once per family through the terminal tool (fake HOME, temporary working directory).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from engine import Engine
from engine.policy import landing
from tests.conftest import REPO
from tests.redteam.conftest import RUN_SECONDS, home_intact

SEGMENT = "d" * 200
HALF, REST = 12, 13  # 25 folders of 201 bytes: past PATH_MAX (4096) from the working directory


def _run(engine: Engine, command: str) -> str:
    result = engine.call("terminal", {"command": command, "timeout": RUN_SECONDS}, session_id="s1")
    return (result.output or "") + (result.error.message if result.error else "")


def _elsewhere(code: str, cwd: Path) -> None:
    subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, check=True)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify: Linux only")
def test_a_drain_in_another_thread_does_not_leave_a_stamp_without_its_watch(
    work_engine: Engine, work: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (work / "p" / "d").mkdir(parents=True)
    command = "rm -rf p/d/x/*"
    time.sleep(2.1)  # past landing._RACY_NS: listings are kept
    assert work_engine.check("ls").decision == "allow"  # the working directory is watched
    # Thread A's check is held just after it set the watch of `p/d` (as a thread switch could hold
    # it): meanwhile another process renames `p` away and makes a new `p/d`, and thread B's check
    # drains those events (the watches of the old `p` and `p/d` go).
    added = landing._Watcher._add
    held, go = threading.Event(), threading.Event()

    def slow_add(self: landing._Watcher, path: str) -> bool:
        done = added(self, path)
        if path == str(work / "p" / "d") and threading.current_thread().name == "A":
            held.set()
            go.wait(10)
        return done

    monkeypatch.setattr(landing._Watcher, "_add", slow_add)
    verdicts: list[str] = []
    first = threading.Thread(target=lambda: verdicts.append(work_engine.check(command).decision), name="A")
    first.start()
    held.wait(10)
    _elsewhere("import os; os.rename('p', 'p0'); os.makedirs('p/d')", work)
    other = threading.Thread(target=lambda: verdicts.append(work_engine.check("ls").decision), name="B")
    other.start()
    time.sleep(0.2)  # B drains (or waits for A's lock: then A's stamp goes with the drain)
    go.set()
    first.join(10)
    other.join(10)
    monkeypatch.setattr(landing._Watcher, "_add", added)
    assert verdicts.count("allow") == 2
    time.sleep(2.1)
    for _ in range(2):  # the new `p/d` listed and kept
        assert work_engine.check(command).decision == "allow"
    _elsewhere(f"import os; os.symlink({str(fake_home)!r}, 'p/d/x')", work)
    assert work_engine.check(command).decision != "allow"
    _run(work_engine, command)
    assert home_intact(fake_home)


@pytest.fixture
def deep(work: Path, fake_home: Path) -> Path:
    """25 folders of 200-byte names under ``work`` (past PATH_MAX), the last holding `x -> ~` and a
    plain folder `y`."""
    before = os.getcwd()
    os.chdir(work)
    try:
        for _ in range(HALF + REST):
            os.mkdir(SEGMENT)
            os.chdir(SEGMENT)
        os.symlink(fake_home, "x")
        os.mkdir("y")
        with open("y/old.log", "w") as log:
            log.write("log\n")
    finally:
        os.chdir(before)
    return work


def _cd_in_steps(rest: str) -> str:
    return f"cd {'/'.join([SEGMENT] * HALF)} && cd {'/'.join([SEGMENT] * REST)} && {rest}"


def test_a_link_past_path_max_is_followed(work_engine: Engine, deep: Path, fake_home: Path) -> None:
    # The kernel's calls on the whole path fail (ENAMETOOLONG): the walk read that as no link on
    # the way. The shell reaches it a `cd` at a time; the walk now does too (by descriptors).
    for command in (_cd_in_steps("rm -rf x/*"), f"rm -rf {'/'.join([SEGMENT] * (HALF + REST))}/x/*"):
        assert work_engine.check(command).decision != "allow", command
    _run(work_engine, _cd_in_steps("rm -rf x/*"))
    assert home_intact(fake_home)


def test_near_miss_a_plain_folder_past_path_max_stays_allowed(work_engine: Engine, deep: Path) -> None:
    assert work_engine.check(_cd_in_steps("rm -rf y/*")).decision == "allow"
    assert work_engine.check(_cd_in_steps("cat y/old.log")).decision == "allow"
    # A name past NAME_MAX names nothing (no link either): as any missing name.
    assert work_engine.check(f"rm -rf {'n' * 300}/*").decision == "allow"


_UNSEARCHABLE = """
import sys
from engine import Engine

repo, work, state = sys.argv[1:4]
engine = Engine.load(repo, config={"workdir": work, "state_dir": state})
for command in ("chmod +x d && rm -rf d/x/*", "chmod +x d && echo x > d/x/.bashrc", "ls", "cat notes.txt"):
    print(command, "=", engine.check(command).decision)
"""


@pytest.mark.skipif(shutil.which("setpriv") is None and os.geteuid() == 0, reason="root reads every folder")
def test_a_link_below_a_folder_that_cannot_be_searched(tmp_path: Path, work: Path, fake_home: Path) -> None:
    # `d` (mode 000) holds `x -> ~`: the walk could not look at `d/x` (EACCES) and read it as no
    # link. The line makes `d` searchable before it deletes through it. Root is checked without the
    # capabilities that let it search any folder (setpriv), as a user's engine would be.
    (work / "d").mkdir()
    (work / "d" / "x").symlink_to(fake_home)
    (work / "notes.txt").write_text("n\n")
    (work / "d").chmod(0)
    script = tmp_path / "unsearchable.py"
    script.write_text(_UNSEARCHABLE)
    drop = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    try:
        done = subprocess.run(
            [*drop, sys.executable, str(script), str(REPO), str(work), str(tmp_path / "state")],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            cwd=work,
        )
    finally:
        (work / "d").chmod(0o755)
    if done.returncode and "setpriv" in done.stderr:
        pytest.skip(f"capabilities cannot be dropped here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    verdicts = dict(line.split(" = ") for line in done.stdout.strip().splitlines())
    assert verdicts["chmod +x d && rm -rf d/x/*"] != "allow"
    assert verdicts["chmod +x d && echo x > d/x/.bashrc"] != "allow"
    assert verdicts["ls"] == "allow"
    assert verdicts["cat notes.txt"] == "allow"


def _user_namespaces() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False).returncode == 0


@pytest.mark.skipif(not _user_namespaces(), reason="unshare(1) with user and mount namespaces only")
def test_a_bind_mount_in_a_shell_of_its_own_then_a_delete_through_it(
    work_engine: Engine, work: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The walk follows symbolic links, not mount points. A background shell in namespaces of its
    # own (`unshare -rm`: root there, whatever the engine's capabilities) binds home at `x`; each
    # line written to it is judged in the engine's view, where `x` is a plain folder: `rm -f
    # x/notes.txt` deleted home's note. The mount asks now (mount_elsewhere): no such shell starts.
    monkeypatch.chdir(work)
    (work / "x").mkdir()
    started = work_engine.call(
        "terminal",
        {"command": f"unshare -rm sh -c 'mount --bind {fake_home} x && exec sh'", "background": True},
        session_id="s1",
    )
    assert started.error is not None
    # On main the shell started, this line was allowed and home's note was gone.
    work_engine.call(
        "process", {"action": "write", "process_id": "proc_1", "input": "rm -f x/notes.txt\n"}, session_id="s1"
    )
    time.sleep(0.5)
    assert work_engine.check("rm -f x/notes.txt").decision == "allow"  # judged as the working directory's
    assert home_intact(fake_home)


@pytest.mark.parametrize("watched", [True, False], ids=["watched", "stat"])
def test_a_folder_above_the_working_directory_replaced_by_a_link(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch, watched: bool
) -> None:
    # Whether an area (here the working directory) has a link on its way was asked once, at load:
    # `top` renamed away and replaced by a link to a folder whose `work` leads home made the working
    # directory home, and `rm -rf .ssh` was still judged as the working directory's `.ssh`.
    if not watched:
        monkeypatch.setattr(landing, "WATCHING", False)
    top = tmp_path / "top"
    (top / "work" / "src").mkdir(parents=True)
    engine = Engine.load(REPO, config={"workdir": str(top / "work"), "state_dir": str(tmp_path / "state")})
    try:
        time.sleep(2.1)  # past landing._RACY_NS: listings are kept
        for _ in range(2):
            assert engine.check("rm -rf src").decision == "allow"
        _elsewhere(
            f"import os; os.rename('top', 'top0'); os.mkdir('D'); os.symlink({str(fake_home)!r}, 'D/work')\n"
            "os.symlink('D', 'top')",
            tmp_path,
        )
        for command in ("rm -rf .ssh", "echo x > .bashrc"):
            assert engine.check(command).decision != "allow", command
        if watched:
            _run(engine, "rm -rf .ssh")
            assert home_intact(fake_home)
    finally:
        engine.close()
