"""walk38: an answer the link walk vouched for is kept while the stamps of the folders it read hold.

Before stop 38 a kept answer (paths.View.classify, View.words_land_elsewhere) was dropped at any event
the watcher saw anywhere: a busy /tmp (a build, a test run, another agent) bumped the generation many
times a second, and every check worked out every word again (the stop 37 median check read 35-50 us on a
loaded machine, 29 us on an idle one). Now each kept answer carries the (folder, stamp) pairs of its walk
(landing.Walk.depends), and holds while every one of them does (Walk.holds). The harm side: an event on
any folder an answer read, or on a folder above one, still drops it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from engine import Engine
from engine.policy import landing
from tests.redteam.conftest import home_intact
from tests.redteam.harm import assert_allowed, assert_not_allowed

pytestmark = pytest.mark.usefixtures("watching")

WIPE = "rm -rf x/*"


def _aged() -> None:
    time.sleep(2.1)  # past the racy window (landing._RACY_NS): listings are kept on the watcher's word


def _sure_walk(finder: landing.LinkFinder, path: str) -> tuple[landing.Walk, str | None]:
    walk = finder.walk()
    walk.sure = True
    found = walk.landing(path)
    return walk, found


def test_an_event_elsewhere_keeps_an_answer_and_one_on_its_way_drops_it(tmp_path: Path, watching: bool) -> None:
    if not watching:
        pytest.skip("stamps are the watcher's")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "f").write_text("f\n")
    _aged()
    finder = landing.LinkFinder([str(tmp_path)], str(tmp_path))
    _sure_walk(finder, str(a / "f"))  # the first walk stamps the area and the folders
    walk, found = _sure_walk(finder, str(a / "f"))
    if walk.generation == 0:
        pytest.skip("no watcher on this system")
    assert found is None and walk.sure
    deps = walk.depends()
    assert {str(tmp_path), str(a)} <= {where for where, _ in deps[1]}
    finder.walk().links_in(str(b))  # b watched too, in a walk of its own
    (b / "new").write_text("")  # an event on b: none on a's way
    later = finder.walk()
    assert later.generation != walk.generation
    assert later.holds(deps)
    (a / "g").write_text("")  # an event in a
    assert not finder.walk().holds(deps)


def test_a_folder_above_renamed_drops_the_answer(tmp_path: Path, watching: bool) -> None:
    if not watching:
        pytest.skip("stamps are the watcher's")
    (tmp_path / "top" / "a").mkdir(parents=True)
    (tmp_path / "top" / "a" / "f").write_text("f\n")
    _aged()
    finder = landing.LinkFinder([str(tmp_path)], str(tmp_path))
    path = str(tmp_path / "top" / "a" / "f")
    _sure_walk(finder, path)
    walk, _ = _sure_walk(finder, path)
    if walk.generation == 0:
        pytest.skip("no watcher on this system")
    deps = walk.depends()
    os.rename(tmp_path / "top", tmp_path / "top0")
    os.symlink(tmp_path / "top0", tmp_path / "top")
    assert not finder.walk().holds(deps)


def test_a_link_planted_after_events_elsewhere_is_still_seen(
    work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path
) -> None:
    (work / "x").mkdir()
    (work / "x" / "build.log").write_text("log\n")
    busy = tmp_path / "busy"
    busy.mkdir()
    _aged()
    assert_allowed(work_engine, f"ls {busy}")  # busy is walked: watched
    for _ in range(2):
        assert_allowed(work_engine, WIPE)  # kept now
    for i in range(20):  # a busy folder beside it: many events, none on x's way
        (busy / f"t{i}").write_text("")
        (busy / f"t{i}").unlink()
        assert_allowed(work_engine, WIPE)
    os.rename(work / "x", work / "old")
    os.symlink(fake_home, work / "x")
    assert_not_allowed(work_engine, WIPE)
    assert home_intact(fake_home)
