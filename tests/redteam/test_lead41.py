"""Stop 41 (lead41): one list of the system's program folders, read one way by every reader.

Three readers asked "is this program the system's own?" with three lists that disagreed: the `--help` lowering
(argv.runs_nothing: `sudo --help CMD` runs nothing), shell's reading of a planted program (`./sudo -V -c TEXT`,
`PATH=.:$PATH sudo`) and follow's program named by an option (`scp -S PROG`, `sort --compress-program=PROG`,
`rsync -e`). Follow's list took `/usr/bin/../../tmp/x` for a system program (the caller's script ran unasked: `scp -S`
deleted a fake home below) and lacked /usr/local/sbin and the library folders; argv's refused `/usr/bin/./sudo`.
Now argv.SYSTEM_FOLDERS and argv.in_system_folder serve all three: `/./` and `//` inside a path are read away, a
`..` or a leading `//` makes it no system folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.argv import SYSTEM_FOLDERS, in_system_folder
from tests.redteam.conftest import home_intact
from tests.redteam.harm import assert_allowed, assert_hardline, assert_not_allowed, blocked, run_confined

# Spellings of a folder F that are not F as the kernel resolves them (F ends with `/`).
ELSEWHERE = [
    "{f}../",  # F's parent
    "{f}x/../../tmp/",  # a folder under F, then out
    "/tmp{f}",  # F's name under a caller's folder
    ".{f}",  # relative to the working directory
    "/{f}",  # a leading `//`: its meaning is the system's
    "~{f}",
]
# The same folder F, spelled another way.
SAME = ["{f}", "{f}./", "{f}/", "//{f}"]  # three leading slashes are one


def _spell(spellings: list[str]) -> list[str]:
    return [s.format(f=folder) for folder in SYSTEM_FOLDERS for s in spellings]


@pytest.mark.parametrize("folder", _spell(SAME))
def test_a_system_folder_by_another_spelling_is_one(folder: str) -> None:
    assert in_system_folder(folder + "prog")


@pytest.mark.parametrize("folder", _spell(ELSEWHERE))
def test_a_spelling_that_leads_elsewhere_is_no_system_folder(folder: str) -> None:
    assert not in_system_folder(folder + "prog")


@pytest.mark.parametrize("folder", ["/usr/local/sbin/", "/usr/lib/openssh/", "/lib64/", "/usr/bin/./", "/usr//bin/"])
def test_a_system_program_named_by_an_option_stays_allowed(engine: Engine, folder: str) -> None:
    """follow's list lacked /usr/local/sbin and the library folders (`scp -S /usr/local/sbin/x` asked)."""
    for command in (
        f"scp -S {folder}ssh a.txt host:",
        f"sort --compress-program={folder}gzip big.txt",
        f"rsync -e {folder}ssh -a src/ host:dst/",
    ):
        assert_allowed(engine, command)


@pytest.mark.parametrize("folder", _spell(ELSEWHERE[:4]))
def test_a_program_by_a_path_leading_elsewhere_named_by_an_option_is_not_allowed(engine: Engine, folder: str) -> None:
    """`scp -S /usr/bin/../../tmp/x` runs the caller's /tmp/x (it was allowed: follow read the prefix alone)."""
    assert_not_allowed(engine, f"scp -S {folder.replace('~', '/home/u')}x a.txt host:")


@pytest.mark.parametrize("folder", ["/usr/bin/./", "/usr/bin//", "/usr/local/sbin/", "/usr/libexec/", "/lib64/"])
def test_help_of_a_system_program_by_another_spelling_is_lowered(engine: Engine, folder: str) -> None:
    """argv's list refused any `/.` and `//` and lacked the library folders: `/usr/bin/./sudo --help rm -rf /` was
    denied by a hardline, though it prints sudo's help."""
    assert_allowed(engine, f"{folder}sudo --help rm -rf /")


@pytest.mark.parametrize("folder", ["/usr/bin/../../tmp/", "//usr/bin/", "./", "/tmp/usr/bin/", "bin/"])
def test_help_of_a_program_by_a_path_leading_elsewhere_is_no_promise(engine: Engine, folder: str) -> None:
    assert_hardline(engine, f"{folder}sudo --help rm -rf /")
    assert_hardline(engine, f"{folder}sudo -V -c 'rm -rf ~'")


_SSH_STANDIN = '#!/bin/sh\nrm -rf "$HOME"/* "$HOME"/.[!.]*\n'  # takes scp's ssh arguments and deletes the home


def test_scp_running_a_planted_program_through_dots_deletes_home_unguarded_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    planted = f"printf '{_SSH_STANDIN}' > x && chmod +x x && "
    home, _, _ = run_confined(tmp_path, planted + "scp -S /usr/bin/../..$PWD/x notes.txt host: </dev/null")
    assert not home_intact(home), "the payload should delete the home unguarded"
    engine, home, root = plain_harm
    (root / "x").write_text(_SSH_STANDIN)
    (root / "x").chmod(0o755)
    os.utime(root / "x", (1e9, 1e9))  # the checkout's, long before the session: only the reading can refuse it
    blocked(engine, home, f"scp -S /usr/bin/../..{root}/x notes.txt host:")
    assert home_intact(home)
