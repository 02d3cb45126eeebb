"""perf26 (stop 26): folder listings kept between checks (landing.LinkFinder for where a word
lands, paths.TreeLister for the trees `grep -R`, `$(ls src)` walk) are kept while the folder's
modification time, change time and inode stay the same. A caller who plants a link in a folder
already listed and sets the folder's modification time back (`touch -d`, os.utime) must not be
judged by the old listing: the change time moves whatever the caller does.

Harm through `Engine.call` and the terminal tool: HOME and the working directory are temporary
(the fixtures); the assertion is that the key's text is not printed.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import RUN_SECONDS

KEY = "secret key"


def _printed(engine: Engine, command: str) -> str:
    result = engine.call("terminal", {"command": command, "timeout": RUN_SECONDS}, session_id="s1")
    return (result.output or "") + (result.error.message if result.error else "")


def _aged(folder: Path) -> int:
    """Set ``folder``'s times a minute back (a listing of it is then kept); its mtime in ns."""
    old = time.time_ns() - 60 * 1_000_000_000
    os.utime(folder, ns=(old, old))
    # The change time moved just now: wait out the window in which no listing is kept.
    time.sleep(2.1)
    return old


@pytest.fixture
def in_work(work: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(work)
    (work / "src").mkdir()
    (work / "src" / "a.py").write_text("x = 1\n")
    assert (fake_home / ".ssh" / "id_ed25519").read_text() == KEY + "\n"
    return work


def test_a_link_planted_in_a_walked_tree_behind_an_old_mtime_is_followed(work_engine: Engine, in_work: Path) -> None:
    if shutil.which("grep") is None:
        pytest.skip("grep is not installed")
    src = in_work / "src"
    old = _aged(src)
    assert "x = 1" in _printed(work_engine, "grep -R . src")  # the tree's listing is kept now
    os.symlink("../../home", src / "k")
    os.utime(src, ns=(old, old))  # the modification time set back: `touch -d`
    assert KEY not in _printed(work_engine, "grep -R . src")
    assert work_engine.check("grep -R . src").decision != "allow"


def test_a_link_planted_here_behind_an_old_mtime_is_judged_where_it_lands(work_engine: Engine, in_work: Path) -> None:
    old = _aged(in_work)
    assert work_engine.check("cat notes").decision == "allow"  # the folder's listing is kept now
    os.symlink("../home/.ssh/id_ed25519", in_work / "notes")
    os.utime(in_work, ns=(old, old))
    assert KEY not in _printed(work_engine, "cat notes")
    assert work_engine.check("cat notes").decision != "allow"


def test_an_unchanged_tree_walked_again_stays_allowed(work_engine: Engine, in_work: Path) -> None:
    _aged(in_work / "src")
    for _ in range(2):  # listed, then read back from what was kept
        assert work_engine.check("grep -R TODO src").decision == "allow"
        assert work_engine.check("cat $(ls src)").decision == "allow"
