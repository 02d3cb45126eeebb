"""perfb32: a word's classes kept from one check to the next (PathClassifier._kept, View.classify).

A word whose classes were found from listings the kernel's watch vouches for alone (Walk.sure) is
not walked again while no inotify event has come since (the watcher's generation). Here another
process changes what the word names between two checks of the same command, the way walk28's tests
do for globs, and the next check must judge as an engine loaded after the change: a link made where
nothing was, a plain file replaced by a link to the key, a file given a second name elsewhere (its
link count: no event in its folder), a folder on the word's way replaced by a link.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judged_as_fresh, kept_verdict, run_elsewhere

# Each test twice: with the kernel's watch and with the stat check alone (conftest.watching).
pytestmark = pytest.mark.usefixtures("watching")


def test_a_link_made_where_nothing_was(work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path) -> None:
    command = "cat notes.txt"
    assert kept_verdict(work_engine, command)[0] == "allow"
    run_elsewhere(f"import os; os.symlink({str(fake_home / '.ssh' / 'id_ed25519')!r}, 'notes.txt')", work)
    assert judged_as_fresh(work_engine, command, tmp_path, work)[0] != "allow"


def test_a_file_replaced_by_a_link(work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path) -> None:
    (work / "a").mkdir()
    (work / "a" / "k.txt").write_text("plain\n")
    command = "cat a/k.txt"
    assert kept_verdict(work_engine, command)[0] == "allow"
    run_elsewhere(
        f"import os; os.remove('a/k.txt'); os.symlink({str(fake_home / '.ssh' / 'id_ed25519')!r}, 'a/k.txt')", work
    )
    assert judged_as_fresh(work_engine, command, tmp_path, work)[0] != "allow"


def test_a_second_name_made_elsewhere(work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path) -> None:
    # A hard link made in another folder changes the file's link count: no event in its own folder.
    (work / "k.txt").write_text("plain\n")
    command = "cp k.txt out.txt"
    kept_verdict(work_engine, command)
    run_elsewhere(f"import os; os.link('k.txt', {str(fake_home / 'other-name')!r})", work)
    judged_as_fresh(work_engine, command, tmp_path, work)


def test_a_folder_on_the_way_replaced_by_a_link(
    work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path
) -> None:
    (work / "d" / "e").mkdir(parents=True)
    command = "cat d/e/config"
    assert kept_verdict(work_engine, command)[0] == "allow"
    run_elsewhere(
        f"import os; os.rename('d', 'd0'); os.mkdir('d'); os.symlink({str(fake_home / '.ssh')!r}, 'd/e')", work
    )
    assert judged_as_fresh(work_engine, command, tmp_path, work)[0] != "allow"
