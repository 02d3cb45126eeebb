"""walk28: what another process changes between two checks is seen by the next check.

The link walk (engine/policy/landing.py) keeps each directory's listing from one check to the
next and, on Linux, asks the kernel (inotify) whether anything it walked changed instead of
asking each directory again. Here each change is made by another process (as a background job of
the terminal tool would make it) between two checks of the same command, through `Engine.check`:
a link made where nothing was, a folder renamed away and a link left in its place, a parent
renamed, a folder replaced by another that holds a link, a change made in the same clock tick as
the listing, one made after the listing is older than the racy window, a forked engine that
checks in between, and a bind mount (root only, in a private mount namespace).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engine import Engine
from engine.policy import landing
from tests.conftest import REPO
from tests.redteam.conftest import home_intact, relinked_in_a_forked_child

WIPE = "rm -rf x/*"
DEEP_WIPE = "rm -rf a/b/*"


# Each test twice: with the kernel's watch and with the stat check alone (conftest.watching).
pytestmark = pytest.mark.usefixtures("watching")


def _elsewhere(code: str, cwd: Path) -> None:
    """Run ``code`` (Python) in another process in ``cwd``, to its end: the kernel has queued
    whatever it changed before the next check starts."""
    subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, check=True)


def _aged() -> None:
    """Wait until every folder made so far is older than the racy window (landing._RACY_NS): a
    folder changed within it is asked entry by entry; past it, its listing is kept between checks
    (on the kernel's word, or its timestamps). The changes below must be seen by a kept listing."""
    time.sleep(2.1)


def _kept(engine: Engine, command: str) -> None:
    """``command`` allowed twice once the folders are past the racy window: the second check
    runs on what the first kept."""
    _aged()
    assert engine.check(command).decision == "allow"
    assert engine.check(command).decision == "allow"


def _refused(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow", command


@pytest.fixture
def x_folder(work: Path) -> Path:
    (work / "x").mkdir()
    (work / "x" / "build.log").write_text("log\n")
    return work / "x"


def test_a_link_made_where_nothing_was(work_engine: Engine, work: Path, fake_home: Path) -> None:
    _kept(work_engine, WIPE)
    _elsewhere(f"import os; os.symlink({str(fake_home)!r}, 'x')", work)
    _refused(work_engine, WIPE)
    assert home_intact(fake_home)


def test_a_folder_renamed_away_and_a_link_left_in_its_place(
    work_engine: Engine, work: Path, fake_home: Path, x_folder: Path
) -> None:
    _kept(work_engine, WIPE)
    _elsewhere(f"import os; os.rename('x', 'old'); os.symlink({str(fake_home)!r}, 'x')", work)
    _refused(work_engine, WIPE)


def test_a_parent_renamed(work_engine: Engine, work: Path, fake_home: Path) -> None:
    (work / "a" / "b").mkdir(parents=True)
    (work / "a" / "b" / "f.txt").write_text("f\n")
    _kept(work_engine, DEEP_WIPE)
    # Nothing changes in `a/b` itself (no event on it): its parent is renamed away and replaced.
    _elsewhere(f"import os; os.rename('a', 'a0'); os.mkdir('a'); os.symlink({str(fake_home)!r}, 'a/b')", work)
    _refused(work_engine, DEEP_WIPE)


def test_a_parent_of_the_working_directory_renamed(tmp_path: Path, fake_home: Path) -> None:
    # The working directory is an area itself (its walks start there): a folder above it renamed
    # and replaced by one whose `work/x` is a link to home changes nothing inside the old one.
    top = tmp_path / "top"
    (top / "work" / "x").mkdir(parents=True)
    engine = Engine.load(REPO, config={"workdir": str(top / "work"), "state_dir": str(tmp_path / "state")})
    try:
        command = f"rm -rf {top}/work/x/*"
        _kept(engine, command)
        _elsewhere(
            f"import os; os.rename('top', 'top0'); os.makedirs('top/work')\n"
            f"os.symlink({str(fake_home)!r}, 'top/work/x')",
            tmp_path,
        )
        _refused(engine, command)
    finally:
        engine.close()


def test_a_folder_replaced_by_one_holding_a_link(
    work_engine: Engine, work: Path, fake_home: Path, x_folder: Path
) -> None:
    command = "rm -rf x/sub/*"
    (x_folder / "sub").mkdir()
    _kept(work_engine, command)
    _elsewhere(
        f"""
        import os, shutil
        os.mkdir('y')
        os.symlink({str(fake_home)!r}, 'y/sub')
        shutil.rmtree('x')
        os.rename('y', 'x')
        """,
        work,
    )
    _refused(work_engine, command)


def test_a_link_made_in_a_listed_folder_then_removed(
    work_engine: Engine, work: Path, fake_home: Path, x_folder: Path
) -> None:
    command = "rm -rf x/sub/*"
    _kept(work_engine, command)
    _elsewhere(f"import os; os.symlink({str(fake_home)!r}, 'x/sub')", work)
    _refused(work_engine, command)
    _elsewhere("import os; os.unlink('x/sub'); os.mkdir('x/sub')", work)
    assert work_engine.check(command).decision == "allow"  # and a link removed is seen as gone


def test_a_change_in_the_same_tick_as_the_listing(work_engine: Engine, work: Path, fake_home: Path) -> None:
    # Checks and changes in quick turns: each change lands within the timestamp tick of the
    # listing before it, and the folder's times are set back to what they were.
    for n in range(5):
        name = f"x{n}"
        command = f"rm -rf {name}/*"
        assert work_engine.check(command).decision == "allow"
        before = os.stat(work)
        os.symlink(fake_home, work / name)
        os.utime(work, ns=(before.st_atime_ns, before.st_mtime_ns))
        _refused(work_engine, command)


def test_a_forked_engine_does_not_take_the_parents_news(
    work_engine: Engine, work: Path, fake_home: Path, x_folder: Path
) -> None:
    # A child of fork() shares the parent's open files: were it to read the kernel's queue of
    # changes, the parent would never see them. The child links x to home and checks; the
    # parent's next check must still see the link.
    _kept(work_engine, WIPE)
    relinked_in_a_forked_child(work_engine, WIPE, work, fake_home)
    _refused(work_engine, WIPE)


_MOUNTED = """
import os, subprocess, sys, time
from collections.abc import Iterator
from pathlib import Path
from engine import Engine

repo, top, home = sys.argv[1:4]
work = Path(top) / "work"
engine = Engine.load(repo, config={"workdir": str(work), "state_dir": str(Path(top) / "state")})
command = "rm -rf x/sub/*"
time.sleep(2.1)  # past landing._RACY_NS: the listings are kept
first = [engine.check(command).decision for _ in range(2)]
subprocess.run(["mount", "--bind", str(Path(top) / "planted"), str(work / "x")], check=True)
print(first, engine.check(command).decision)
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="root and unshare(1) only")
def test_a_bind_mount_over_a_listed_folder(tmp_path: Path, fake_home: Path) -> None:
    # A mount changes no folder's entries (no inotify event): what the kernel says of the mount
    # table must drop what was kept. Run in a private mount namespace (nothing outside sees it).
    work = tmp_path / "work"
    (work / "x").mkdir(parents=True)
    (tmp_path / "planted").mkdir()
    (tmp_path / "planted" / "sub").symlink_to(fake_home)
    script = tmp_path / "mounted.py"
    script.write_text(_MOUNTED)
    done = subprocess.run(
        [
            "unshare",
            "-m",
            "--propagation",
            "private",
            sys.executable,
            str(script),
            str(REPO),
            str(tmp_path),
            str(fake_home),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=work,
    )
    if done.returncode and "unshare" in done.stderr:
        pytest.skip(f"no private mount namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    first, after = done.stdout.strip().rsplit(" ", 1)
    assert first == "['allow', 'allow']"
    assert after != "allow"


def test_near_miss_new_plain_entries_stay_allowed(work_engine: Engine, work: Path, x_folder: Path) -> None:
    assert work_engine.check(WIPE).decision == "allow"
    _elsewhere("import os; os.mkdir('x/more'); open('x/more/f', 'w').close(); os.rename('x', 'y'); os.mkdir('x')", work)
    assert work_engine.check(WIPE).decision == "allow"
    assert work_engine.check("rm -rf y/*").decision == "allow"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify: Linux only")
def test_the_watch_is_what_keeps_a_listing_on_linux(
    work_engine: Engine, work: Path, x_folder: Path, watching: bool
) -> None:
    # White-box: the abuse cases above ran on the kernel's word, not the stat check alone.
    assert work_engine.check(WIPE).decision == "allow"
    watcher = landing._live_watcher()
    if not watching:
        assert watcher is None
        return
    assert watcher is not None
    assert {str(work), str(x_folder)} <= watcher.stamps.keys()


def test_a_parent_above_every_area_renamed(tmp_path: Path, fake_home: Path) -> None:
    # White-box: a finder whose only area is `top/work` walks nothing above it; the folders above
    # are watched all the same (a rename of `top` is an event in tmp_path, none in `work`), and
    # watched again where they are now (the new `top/work` gets a link next).
    work = tmp_path / "top" / "work"
    (work / "x").mkdir(parents=True)
    finder = landing.LinkFinder([str(work)])
    _aged()
    for _ in range(2):
        assert finder.walk().landing(f"{work}/x/f") is None
    _elsewhere("import os; os.rename('top', 'top0'); os.makedirs('top/work/x')", tmp_path)
    _aged()
    for _ in range(2):
        assert finder.walk().landing(f"{work}/x/f") is None
    _elsewhere(f"import os; os.rmdir('x'); os.symlink({str(fake_home)!r}, 'x')", work)
    assert finder.walk().landing(f"{work}/x/f") == f"{fake_home}/f"
