"""perfb33: whether a word lands elsewhere, kept from one check to the next (View.words_land_elsewhere).

A command whose text names no path fragment of any name-less matcher (`frobnicate notes.txt`)
meets none of them, unless one of its words may land elsewhere than it reads (a symbolic link):
that answer is kept per word across the checks of one generation of the kernel's watch, when the
walk that found it used only listings the watch vouches for. Here another process turns the word
into a link to a key between two checks of the same command, and the next check must judge as an
engine loaded after the change. Each change is one the working directory's listing (a plain name)
or a folder's on the word's way (a path) shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judged_as_fresh, kept_verdict, run_elsewhere

# Each test twice: with the kernel's watch and with the stat check alone (conftest.watching).
pytestmark = pytest.mark.usefixtures("watching")


def test_a_plain_name_turned_into_a_link(work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path) -> None:
    (work / "notes.txt").write_text("plain\n")
    command = "frobnicate notes.txt"
    assert kept_verdict(work_engine, command) == ("allow", [])
    run_elsewhere(
        f"import os; os.remove('notes.txt'); os.symlink({str(fake_home / '.ssh' / 'id_ed25519')!r}, 'notes.txt')", work
    )
    decision, keys = judged_as_fresh(work_engine, command, tmp_path, work)
    assert decision != "allow" and "credential_read" in keys


def test_a_path_whose_folder_turns_into_a_link(
    work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path
) -> None:
    (work / "d").mkdir()
    (work / "d" / "config").write_text("plain\n")
    command = "frobnicate d/config"
    assert kept_verdict(work_engine, command) == ("allow", [])
    run_elsewhere(f"import os; os.rename('d', 'd0'); os.symlink({str(fake_home / '.ssh')!r}, 'd')", work)
    decision, keys = judged_as_fresh(work_engine, command, tmp_path, work)
    assert decision != "allow" and "credential_read" in keys
