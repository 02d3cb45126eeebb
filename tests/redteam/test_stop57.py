"""stop 57 (issue 8): stop 56's open items, with the project where users keep theirs (~/p).

1. tar's archive written over a user's file (`tar -cf ~/notes.txt a.py`: the note becomes an archive of a.py) was
   allowed. user_file_destroyed reads tar's -f/--file again, but not for the readers the evaluator makes of an
   archive the session wrote (`tar -c -f ARCHIVE -- SOURCES`, via `session`: the matcher condition `not_via`),
   which matched once that archive existed and made every later read of it ask (the CI of stop 56's c94573e).
2. A variable the line sets and does not export is none of a shell another program starts: `X=p/; bash -c 'rm -f
   ~/"$X"notes.txt'` removes the user's ~/notes.txt (the child's $X is empty), and was read as ~/p/notes.txt, the
   project's, and allowed. Such a variable is known only at run time in that shell (it may be in the environment the
   line started with), its value one reading (shell.Analyzer.in_new_shell); `export`, `declare -x`, `set -a` and a
   command's own `X=1 bash -c …` keep it the child's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import (
    allowed_and_harmless,
    home_intact,
    home_project_verdicts,
    lost_unguarded_then_blocked,
    note_lost,
    unguarded_home,
)

Loaded = tuple[Engine, Path, Path]  # home_project's (engine, home, project)

# -- 1. tar's archive over a user's file ------------------------------------------------------------------------------
_ARCHIVES_OVER_A_USERS_FILE = [
    "tar -cf ~/notes.txt a.py",
    "tar cf ~/notes.txt a.py",
    "tar -C src -czf ../notes.txt .",
    "tar --create --file=$HOME/notes.txt a.py",
    "tar -c --file ../notes.txt src",
    "tar -rf ~/notes.txt a.py",
]
_ARCHIVES_KEPT = [
    "tar czf backup-$(date +%F).tgz src",
    "tar -cf ../backup.tar a.py",
    "tar -cf - a.py | gzip > ../a.tgz",
    "tar -tf ~/notes.txt",
    "tar -xf ../a.tar -C src",
    "tar -C src -cf ../src.tar .",
]
_archives = home_project_verdicts(_ARCHIVES_OVER_A_USERS_FILE, _ARCHIVES_KEPT)
test_tar_writing_its_archive_over_a_users_file_is_not_allowed = _archives[0]
test_tar_writing_a_new_archive_stays_allowed = _archives[1]


@pytest.mark.parametrize("payload", ["tar -cf ~/notes.txt a.py", "tar -C src -czf ../notes.txt ."])
def test_tars_archive_over_the_note_loses_it_unguarded_and_is_refused(
    tmp_path: Path, home_project: Loaded, payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


def test_an_archive_the_session_wrote_outside_the_tree_is_read_by_a_later_call(home_project: Loaded) -> None:
    """The reader the evaluator makes of it (`tar -c -f ../x.tar -- a.py`) is no tar -f over a user's file: reading
    the archive back in a later call stays allowed (and harmless)."""
    home = home_project[1]
    allowed_and_harmless(home_project, "tar -cf ../x.tar a.py")
    assert (home / "x.tar").is_file()
    for later in ("tar -tf ../x.tar", "cat ../x.tar > /dev/null", "ls -l ../x.tar"):
        allowed_and_harmless(home_project, later)
    assert home_intact(home)


# -- 2. variables not exported are none of a new shell's -----------------------------------------------------------
_RM = 'rm -f ~/"$X"notes.txt'
_UNEXPORTED = [
    f"X=p/; bash -c '{_RM}'",
    f"X=p/; sh -c '{_RM}' _",
    f"X=p/; find . -maxdepth 0 -exec bash -c '{_RM}' \\;",
    f"X=p/; echo '{_RM}' | xargs -0 bash -c",
    f"export X=p/; export -n X; bash -c '{_RM}'",
    f"declare -x X=p/; declare +x X; bash -c '{_RM}'",
    f"X=p/; echo '{_RM}' > x.sh; bash x.sh",
    f"X=p/; echo '{_RM}' > x.sh; chmod +x x.sh; ./x.sh",
    f"X=p/ true; bash -c '{_RM}'",
    "X=p/; bash -c 'bash -c \"rm -f ~/\\${X}notes.txt\"'",
    # fish: a `set` without -x is this fish's alone (stop 56 left it unknown), read by its own option parser now
    "fish -c 'set X p/; bash -c \"rm -f ~/\\${X}notes.txt\"'",
    "fish -c 'set -g X p/; bash -c \"rm -f ~/\\${X}notes.txt\"'",
]
_EXPORTED = [
    f"export X=p/; bash -c '{_RM}'",
    f"X=p/; export X; bash -c '{_RM}'",
    f"declare -x X=p/; bash -c '{_RM}'",
    f"set -a; X=p/; bash -c '{_RM}'",
    f"X=p/ bash -c '{_RM}'",
    "X=p/ bash -c 'bash -c \"rm -f ~/\\${X}notes.txt\"'",
    f"X=p/; eval '{_RM}'",
    f"X=p/; ({_RM})",
    f"X=p/; echo '{_RM}' > x.sh; . ./x.sh",
    'X=src; bash -c "ls $X"',
    "GIT_PAGER=cat git log -1",
    "fish -c 'set -gx X p/; bash -c \"rm -f ~/\\${X}notes.txt\"'",
    "fish -c 'set --exp X p/; bash -c \"rm -f ~/\\${X}notes.txt\"'",
]
_variables = home_project_verdicts(_UNEXPORTED, _EXPORTED)
test_a_variable_not_exported_is_empty_in_a_new_shell_and_not_allowed = _variables[0]
test_an_exported_variable_or_one_of_the_same_shell_stays_allowed = _variables[1]


@pytest.mark.parametrize("payload", _UNEXPORTED[:2] + _UNEXPORTED[4:8])
def test_a_new_shell_without_the_variable_loses_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: Loaded, payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


@pytest.mark.parametrize("command", [_EXPORTED[0], _EXPORTED[3], _EXPORTED[4], _EXPORTED[6], _EXPORTED[8]])
def test_the_exported_variable_removes_the_projects_note_only(
    tmp_path: Path, home_project: Loaded, command: str
) -> None:
    """Allowed, and what it removes is the project's notes.txt (~/p/notes.txt), not the user's: unguarded too."""
    home = unguarded_home(tmp_path, command)
    assert not note_lost(home) and not (home / "p" / "notes.txt").exists()
    allowed_and_harmless(home_project, command)
    assert not (home_project[2] / "notes.txt").exists()
