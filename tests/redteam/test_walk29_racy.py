"""walk29: a watched folder changed within the racy window is listed, and a change after is seen.

A folder changed in the last two seconds (engine/policy/landing.py `_RACY_NS`) cannot be vouched
for by its times: a change in the same clock tick leaves them as they were. Unwatched, it is asked
entry by entry; watched (Linux inotify), the listing is made after the watch is set, so a later
change is an event the next check reads, and the listing is kept on the watch's word alone once
the folder has had no event since an earlier check. Each test below makes its folders and checks
within the window; another process (or a forked child) changes them between two checks of the
same command, and the next check must see it. One engine for the module (loads are dear in CI);
each test works in a fresh folder of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy import landing
from tests.conftest import REPO
from tests.redteam.conftest import home_intact, make_home, relinked_in_a_forked_child

# Each test twice: with the kernel's watch and with the stat check alone (conftest.watching).
pytestmark = pytest.mark.usefixtures("watching")


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, Path, Path]]:
    root = tmp_path_factory.mktemp("walk29")
    home = make_home(root)
    work = root / "work"
    work.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(root / "state")})
        engine.check("rm -rf w/x/*")  # warm: a first check builds the evaluator (seconds on a loaded machine)
        try:
            yield engine, work, home
        finally:
            engine.close()


_COUNT = iter(range(1_000_000))


@pytest.fixture
def fresh(setting: tuple[Engine, Path, Path]) -> Path:
    """A folder made now under the working directory (within the racy window from here)."""
    folder = setting[1] / f"t{next(_COUNT)}"
    folder.mkdir()
    return folder


def _finder(engine: Engine) -> landing.LinkFinder:
    finder = engine._evaluator(engine._snapshot).classifier._links
    assert finder is not None
    return finder


def _allowed_twice_in_the_window(engine: Engine, command: str, folder: Path, watching: bool) -> None:
    """``command`` allowed twice while ``folder`` is in the racy window; watched, the second check
    kept the folder's listing on the watch's word (white-box: what the tests then attack)."""
    os.utime(folder)  # its change time is now: the window runs from here
    assert engine.check(command).decision == "allow"
    assert engine.check(command).decision == "allow"
    kept = _finder(engine)._listings.get(str(folder))
    if watching:
        assert kept is not None and kept[0] == landing._UNVOUCHED and kept[2], kept
    else:
        assert kept is None
    assert time.time_ns() - os.stat(folder).st_ctime_ns < landing._RACY_NS  # still in the window


def _x_kept(engine: Engine, folder: Path, watching: bool, made: bool = True) -> str:
    """`rm -rf F/x/*` allowed twice in the window (see above), ``folder/x`` a plain folder (made)
    or nothing."""
    if made:
        (folder / "x").mkdir()
    command = f"rm -rf {folder.name}/x/*"
    _allowed_twice_in_the_window(engine, command, folder, watching)
    return command


def _elsewhere(code: str, cwd: Path) -> None:
    """``code`` (Python) run by a background process, waited for: the kernel has queued its
    events before the next check."""
    job = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd)
    assert job.wait() == 0


def test_a_link_made_in_the_window_between_two_checks(
    setting: tuple[Engine, Path, Path], fresh: Path, watching: bool
) -> None:
    engine, _, home = setting
    command = _x_kept(engine, fresh, watching, made=False)
    job = subprocess.Popen(["ln", "-s", str(home), "x"], cwd=fresh)  # `ln -s ~ x` in the background
    assert job.wait() == 0
    assert engine.check(command).decision != "allow"
    assert home_intact(home)


def test_a_parent_renamed_in_the_window(setting: tuple[Engine, Path, Path], fresh: Path, watching: bool) -> None:
    engine, _, home = setting
    (fresh / "a" / "b").mkdir(parents=True)
    command = f"rm -rf {fresh.name}/a/b/*"
    _allowed_twice_in_the_window(engine, command, fresh / "a", watching)
    # Nothing changes in `a/b` itself: its parent is renamed away and replaced.
    _elsewhere(f"import os; os.rename('a', 'a0'); os.mkdir('a'); os.symlink({str(home)!r}, 'a/b')", fresh)
    assert engine.check(command).decision != "allow"


def test_a_forked_child_changes_the_folder_in_the_window(
    setting: tuple[Engine, Path, Path], fresh: Path, watching: bool
) -> None:
    engine, _, home = setting
    command = _x_kept(engine, fresh, watching)
    relinked_in_a_forked_child(engine, command, fresh, home)
    assert engine.check(command).decision != "allow"


def test_a_folder_changed_on_every_check_is_not_listed_each_time(
    setting: tuple[Engine, Path, Path], fresh: Path, watching: bool
) -> None:
    # White-box: a folder with an event before each check (a build's output) is asked entry by
    # entry, never listed whole; once quiet, it is listed and kept (watched), or still asked (not).
    engine, _, _ = setting
    finder = _finder(engine)
    command = f"rm -rf {fresh.name}/x/*"
    for n in range(4):
        (fresh / f"out{n}").write_text("built\n")  # an event on the folder before each check
        assert engine.check(command).decision == "allow"
        assert str(fresh) not in finder._listings
    for _ in range(3):
        assert engine.check(command).decision == "allow"
    kept = finder._listings.get(str(fresh))
    if watching:
        assert kept is not None and kept[0] == landing._UNVOUCHED, kept
    else:
        assert kept is None
    assert time.time_ns() - os.stat(fresh).st_ctime_ns < landing._RACY_NS  # still in the window


def test_a_dropped_stamp_is_not_vouched_for_by_the_folders_times(
    setting: tuple[Engine, Path, Path], fresh: Path, watching: bool
) -> None:
    # White-box: a listing kept on the watch's word has no stat key; once its stamp is dropped (as
    # an event drops it), a stat that finds the same times must not bring it back.
    engine, _, _ = setting
    _x_kept(engine, fresh, watching, made=False)
    watcher = landing._live_watcher()
    if not watching:
        assert watcher is None
        return
    assert watcher is not None
    kept = _finder(engine)._listings[str(fresh)][1]
    watcher.stamps.pop(str(fresh))
    again = _finder(engine).walk()._listing(str(fresh))
    assert again is not kept
    assert again is None  # in the window, and no stamp held since an earlier check


def test_near_miss_new_plain_entries_in_the_window_stay_allowed(
    setting: tuple[Engine, Path, Path], fresh: Path, watching: bool
) -> None:
    engine, _, _ = setting
    command = _x_kept(engine, fresh, watching)
    _elsewhere("import os; os.mkdir('x/more'); os.rename('x', 'y'); os.mkdir('x')", fresh)
    assert engine.check(command).decision == "allow"
    assert engine.check(f"rm -rf {fresh.name}/y/*").decision == "allow"
