"""stop 53 (issue 8): two of stop 52's open holes, with the project where users keep theirs (~/p).

1. A link made on the line into a folder. `ln TARGET NAME`, `cp -l|-s TARGET NAME` and link(1) with NAME a folder make
   NAME/TARGET's-name, and writing that name writes TARGET: `ln ~/notes.txt src; echo x > src/notes.txt` and `cp -l
   ~/notes.txt .; echo x > notes.txt` overwrote the user's note (live below) and were allowed. Such a link is read
   under both names now (links.LinkFollower._record_link), the deepest link a word is under first; a symbolic link's
   relative TARGET is read from the folder it lands in (`ln -s ../../notes.txt src` reaches ~/notes.txt from
   ~/p/src, `ln -s ../notes.txt src` the project's own notes.txt).
2. rm of a file of the user's under a folder only the run knows: the folder may be the home (stop 52's decision for
   writes), so `rm $D/notes.txt` and `cd "$(dirname "$PWD")" && rm notes.txt` (live below) are read as `rm
   ~/notes.txt` (paths.View._under_unknown keeps the home file's classes).
3. `uv add|remove --script FILE` writes FILE's inline metadata block into it, whatever FILE holds: `uv add --script
   ~/notes.txt rich` rewrote the user's note and was allowed; it is read as a write to FILE now (user_file_destroyed,
   write_computed_target, engine_files_write rows).
4. False deny: `make -C $(pwd)`, `git -C "$PWD" status` were hardline-denied in every project (engine_state_read): a
   wrapper's folder spelled `$PWD` made the command's folder one only the run knows (shell.Analyzer._moved_to), and
   `.` there was read as the engine's state folder. A folder that is the shell's own is no move now; what runs
   there is still judged (a written Makefile, `-c core.fsmonitor=`).
5. False deny: a tree reader after a `cd` only the run knows (`cd "$D" && grep -r TODO .`, `cd - && find . -name
   '*.py'`, `cd "$D" && du -sh .`) was hardline-denied: the folder may be the engine's state folder, a guess the
   hardline engine_state_read took for a reading. It is read as a folder that may hold keys now (ask, as `grep -r x
   ~/.ssh`); the state named for certain stays the hardline (test_lead44).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, make_home
from tests.redteam.harm import (
    UV,
    assert_allowed,
    assert_not_allowed,
    blocked,
    lost_unguarded_then_blocked,
    said,
    unguarded_home,
)

LINKED_INTO_A_FOLDER = [
    "ln ~/notes.txt src; echo x > src/notes.txt",
    "ln ../notes.txt src; echo x > src/notes.txt",
    "ln -s ../../notes.txt src; echo x > src/notes.txt",
    "cp -l ~/notes.txt src; sed -i d src/notes.txt",
    "cp -l ../notes.txt .; echo x > notes.txt",
    "cp -s ~/notes.txt src; echo x > src/notes.txt",
    "link ../notes.txt h; echo x > h",
    "link -- ../notes.txt h; echo x > h",
    # (rev53) a symbolic link's relative TARGET read from a NAME with a folder part
    "mkdir -p a/b; ln -s ../../../notes.txt a/b; echo x > a/b/notes.txt",
    # (rev53) through the deepest link, for a glob too
    "ln ~/notes.txt src; sed -i d src/notes.tx?",
    # (rev53) a NAME that is a folder for certain is no link: the link is made in it
    "link /tmp/q ~; rm -rf ~/.ssh",
    "ln -sf /tmp/q ~; echo x > ~/.bashrc",
    "cp -l /tmp/q ~; rm -rf ~/",
    "cd ~ && ln -s /tmp/q . && echo x > .bashrc",
]
LINKED_NEAR_MISSES = [
    # src/notes.txt -> ../notes.txt from src: the project's own notes.txt
    "ln -s ../notes.txt src; echo x > src/notes.txt",
    "ln a.py src; echo x > src/a.py",
    "cp -l a.py src; echo x > src/a.py",
    "ln ~/notes.txt src; cat src/notes.txt",
    "cp ~/notes.txt src; echo x > src/notes.txt",
    "ln -s ../src lib && ls lib/",
]
UNDER_AN_UNKNOWN_FOLDER = [
    "rm $D/notes.txt",
    'rm -f "$D/notes.txt"',
    'cd "$D" && rm notes.txt',
    'cd "$(dirname "$PWD")" && rm notes.txt',
    "cd ${PWD%/*} && unlink notes.txt",
    "rm $D/.bashrc",
    "shred -u $D/.ssh/id_ed25519",
]
UV_SCRIPT_WRITES = [
    "uv add --script ~/notes.txt rich",
    "uv init --script ~/notes.txt",
    "uv remove --script=../notes.txt rich",
    "uv --directory ~ add --script notes.txt rich",
    'uv add --script "$(cat f)" rich',
    'read -r s; uv add --script "$s" rich',
    "uv add --script hermes-engine.yaml rich",
]
UV_SCRIPT_NEAR_MISSES = ["uv add --script a.py rich", "uv lock --script ~/notes.txt", "uv run --script a.py"]
# (rev53b) the merge's regressions, each allowed at its HEAD: a tree reader through a link spelled from the home (the
# key printed), `cd` into a link to a folder (the project moved away), a temp folder's parent
REV53B = [
    'ln -s ~ ~/p/h; grep -rsR "secret" ~/p | head -3',
    "ln -s ~ ~/p/h; cd ~/p && grep -R secret .",
    "ln -s ~ d; cd d && mv p /tmp/",
    "ln -s ~ d; cd d && rm -f .bash_history",
    "mkdir s2; ln ~/notes.txt s2; cd s2; echo x > notes.txt",
    'rm -f "$TMPDIR/../notes.txt"',
    'rm -f "$TMPDIR/.bashrc"',
]
UNKNOWN_NEAR_MISSES = [
    "rm $D/a.py",
    "rm -f $TMPDIR/x.o",
    'cd "$D" && rm -f build.o',
    "for f in *.o; do rm $f; done",
    'rm -f "$F"',
    "rm -f $OUT/build.log",
    # (adv53) a temp folder's variable: no file of the home's there
    'rm -f "$TMPDIR/notes.txt"',
    "ln -s /tmp/build b && cd b && cmake .. && make",
    "ln a.py src; cd src; make",
]


@pytest.mark.parametrize("command", LINKED_INTO_A_FOLDER + UNDER_AN_UNKNOWN_FOLDER + UV_SCRIPT_WRITES + REV53B)
def test_a_users_file_reached_through_a_folder_is_not_allowed(
    home_project: tuple[Engine, Path, Path], command: str
) -> None:
    assert_not_allowed(home_project[0], command)


@pytest.mark.parametrize("command", LINKED_NEAR_MISSES + UNKNOWN_NEAR_MISSES + UV_SCRIPT_NEAR_MISSES)
def test_near_misses_stay_allowed(home_project: tuple[Engine, Path, Path], command: str) -> None:
    assert_allowed(home_project[0], command)


@pytest.mark.parametrize(
    "payload",
    [
        "ln ~/notes.txt src; echo x > src/notes.txt",
        "link ../notes.txt h; echo x > h",
        'cd "$(dirname "$PWD")" && rm notes.txt',
    ],
)
def test_the_users_note_is_lost_unguarded_and_kept_through_the_terminal(
    tmp_path: Path, home_project: tuple[Engine, Path, Path], payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload)


def test_a_link_to_the_projects_own_file_writes_it(home_project: tuple[Engine, Path, Path]) -> None:
    # the near miss runs: the symbolic link in src reaches the project's notes.txt, the home's is untouched
    engine, home, project = home_project
    result = engine.call("terminal", {"command": "ln -s ../notes.txt src; echo x > src/notes.txt"})
    assert result.ok, result.output
    assert (project / "notes.txt").read_text() == "x\n"
    assert home_intact(home)


@pytest.mark.skipif(UV is None, reason="uv is not installed")
def test_uv_add_script_rewrites_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path]
) -> None:
    payload = "uv add --frozen --offline --script ~/notes.txt rich"
    unguarded = unguarded_home(tmp_path, payload)
    assert "# /// script" in (unguarded / "notes.txt").read_text(), "uv should write its block into the note"
    engine, home, _ = home_project
    blocked(engine, home, payload)


OWN_FOLDER = ["make -C $(pwd)", 'git -C "$PWD" status', "git -C $(pwd) log --oneline", 'make -C "$(pwd)" test']
OWN_FOLDER_PAYLOADS = [
    "printf 'all:\\n\\trm -f ~/notes.txt\\n' > Makefile; make -C $(pwd)",
    "git -C $PWD -c core.fsmonitor='rm -rf ~' status",
    'env -C /tmp rm -rf "$PWD"',
    'env -C $PWD/sub rm -rf "$PWD"',
]


@pytest.mark.parametrize("command", OWN_FOLDER)
def test_a_wrappers_folder_that_is_the_shells_own_is_no_move(
    home_project: tuple[Engine, Path, Path], command: str
) -> None:
    assert_allowed(home_project[0], command)


@pytest.mark.parametrize("command", OWN_FOLDER_PAYLOADS)
def test_what_runs_in_the_shells_own_folder_is_still_judged(
    home_project: tuple[Engine, Path, Path], command: str
) -> None:
    assert_not_allowed(home_project[0], command)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_in_the_shells_own_folder_runs_through_the_terminal(home_project: tuple[Engine, Path, Path]) -> None:
    # the near miss runs: make -C "$(pwd)" builds the project's own target
    engine, home, project = home_project
    (project / "Makefile").write_text("all:\n\techo built > out.txt\n")
    old = time.time() - 3600
    os.utime(project / "Makefile", (old, old))
    result = engine.call("terminal", {"command": 'make -C "$(pwd)"'})
    assert result.ok, result.output
    assert (project / "out.txt").read_text() == "built\n"
    assert home_intact(home)


UNKNOWN_FOLDER_READERS = [
    'cd "$D" && grep -r TODO .',
    "cd - && find . -name '*.py'",
    'cd "$D" && du -sh .',
    'cd "$(cat f)" && tar czf /tmp/x.tgz .',
]


@pytest.mark.parametrize("command", UNKNOWN_FOLDER_READERS)
def test_a_reader_of_a_folder_only_the_run_knows_asks(home_project: tuple[Engine, Path, Path], command: str) -> None:
    engine, _, _ = home_project
    verdict = engine.check(command)
    assert verdict.decision == "ask", said(command, verdict)
    assert verdict.grantable, said(command, verdict)


def test_the_engine_state_read_from_a_folder_only_the_run_knows_is_refused(
    home_project: tuple[Engine, Path, Path],
) -> None:
    # the guess comes true: f holds the state folder's path; through the terminal nothing is printed
    engine, _, project = home_project
    state = Path(os.environ["XDG_STATE_HOME"]) / "hermes-engine"
    assert state.is_dir()
    (project / "f").write_text(str(state))
    result = engine.call("terminal", {"command": 'cd "$(cat f)" && grep -r . .'})
    assert not result.ok, result.output
    assert result.error is not None and result.error.type in ("denied", "pending_approval")


def test_a_link_spelled_through_a_linked_project_folder_is_the_same_link(tmp_path: Path) -> None:
    # (rev53b) ~/p a symbolic link to the real project folder: the session's workdir is the real path
    home = make_home(tmp_path)
    real = tmp_path / "real-p"
    real.mkdir()
    (real / "hermes-engine.yaml").write_text("workdir: .\n")
    (home / "p").symlink_to(real)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
        patch.chdir(real)
        with Engine.load(real) as engine:
            blocked(engine, home, "ln -s ~/notes.txt x; echo x > ~/p/x")
