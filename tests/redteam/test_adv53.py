"""adv53 (issue 8): stop 53's links into a folder, home files under an unknown folder and `uv --script`, attacked.

The project is where users keep theirs (~/p, tests/redteam/test_stop53.py's layout). Fixed here:

1. A link's name spelled from the home or the root (`ln -s ~/notes.txt x; echo x > ~/p/x`, `ln ~/notes.txt ~/p/src;
   echo x > src/notes.txt`, `cd ..; echo x > p/x`): the links were keyed by the words as written, relative to the
   working directory, so a second spelling of the same file missed them and the user's note was overwritten
   (links.LinkFollower._link_key: a name under the session's workdir is its relative key).
2. `cd` into a name read both as a link and as a folder holding one (`ln ~/notes.txt src; cd src; echo x >
   notes.txt`): the cd took the link reading (src is ~/notes.txt) and lost the folder one; it enters a folder only
   the run knows now when the link leads out of the project (a user's file there keeps its classes: asks).
3. uv's other writes of a file it names: `uv init --script F` (F's inline metadata block written over it), `uv
   export -o F`, `uv pip compile -o F`, and `uv add|init --directory D` after the verb (policies/executors.yaml's
   uv row: read as `tee F`, the verb's own `chdir:`).

4. A glob on either side: a link's name made from a glob TARGET (`ln ~/notes.* src; echo x > src/notes.txt`) and
   a glob word naming a link under another (`ln ~/notes.txt src; printf x > src/notes.tx?`: src was read as the
   link ~/notes.txt first): the deepest link the word may name (links._globbed_link, _link_by_glob).
5. `<>` (opened for reading and writing, not truncated) writes over the file from its start: `echo x 1<>~/notes.txt`
   replaced the note's first bytes and was allowed (home51 left it out of user_file_destroyed's truncating
   redirections; matchers._TRUNCATING).
6. A name after `=` (dd's `of=x`, `--output=x`) read through a link made on the line (`ln -s ~/notes.txt x; dd
   if=a.py of=x` wrote the note; links.LinkFollower._through_links).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    UV,
    assert_allowed,
    assert_not_allowed,
    blocked,
    lost_unguarded_then_blocked,
    unguarded_home,
)

LINK_SPELLED_FROM_THE_HOME = [
    "ln -s ~/notes.txt x; echo x > ~/p/x",
    "ln -s ~/notes.txt x; echo x > $HOME/p/x",
    "ln -s ~/.bashrc x; echo x > ~/p/x",
    "ln -s ~/notes.txt ~/p/x; echo x > x",
    "ln ~/notes.txt src; echo x > ~/p/src/notes.txt",
    "ln ~/notes.txt ~/p/src; echo x > src/notes.txt",
    "ln -s ~/notes.txt x; cd ..; echo x > p/x",
    "ln -s ~/notes.txt x; echo x > ../p/x",
]
CD_INTO_A_LINKED_FOLDER = [
    "ln ~/notes.txt src; cd src; echo x > notes.txt",
    "ln -s ../../notes.txt src && cd src && echo x > notes.txt",
    "ln ~/notes.txt src; (cd src && : > notes.txt)",
    "ln ~/notes.txt src; pushd src; echo x > notes.txt",
]
GLOBBED_LINKS = [
    "ln ~/notes.* src; echo x > src/notes.txt",
    "ln ~/note?.txt src; echo x > src/notes.txt",
    "ln ~/notes.txt src; printf x > src/notes.tx?",
    "ln ~/notes.txt src; echo x > src/note*",
    "ln ~/notes.txt src; for f in src/*; do echo x > $f; done",
    "ln ~/notes.txt src; echo x | tee src/*.txt",
]
UV_WRITES = [
    "uv init --script ~/notes.txt",
    "uv init --script ../notes.txt --offline",
    "uv init --offline --script ../.bashrc",
    "uv init --directory ~ --script notes.txt --offline",
    "uv --directory ~ init --script notes.txt",
    "cd ~ && uv init --script notes.txt",
    "uv add --directory ~ --script notes.txt --offline --frozen rich",
    "uv export --script s.py -o ~/notes.txt --offline",
    "uv export --script s.py --output-file=$HOME/notes.txt",
    "uv pip compile s.py -o ~/notes.txt --offline",
    "uv init --script hermes-engine.yaml",
]
NEAR_MISSES = [
    "ln -s ../x build/",
    "ln -s ../x build/; echo y > ~/p/build/x",
    "cp -rl src build && cd build && make",
    "ln -s ~/p/a.py b.py; echo x > b.py",
    "ln -sf ~/p/src ~/p/lib; echo x > lib/a.py",
    "ln a.py src; cd src; echo x > a.py",
    "ln -s ../src lib && cd lib && ls",
    "uv init --script s.py --offline",
    "uv init --script scripts/s.py",
    "uv init",
    "uv init myproj --lib",
    "uv export --frozen --no-hashes -o requirements.txt",
    "uv pip compile requirements.in -o requirements.txt",
    "uv build -o dist",
    "uv add --directory sub rich",
    "uv run --directory sub pytest",
    "pip download -d /tmp/x rich",
    "ln -s ~/notes.txt x; dd if=x of=y",
    "ln -s a.py b.py; dd if=/dev/zero of=b.py count=1",
    "ln -s ../x build/; make OUT=build/x",
    "ln -s ../x build/; ls build/*",
    "ln -s ../src/*.c build/; make -C build",
    "cp -rl src build; rm -f build/*.o",
    "echo x 1<>out.txt",
    "cat <> a.py",
]


@pytest.mark.parametrize("command", LINK_SPELLED_FROM_THE_HOME + CD_INTO_A_LINKED_FOLDER + GLOBBED_LINKS + UV_WRITES)
def test_a_users_file_written_another_way_is_not_allowed(home_project: tuple[Engine, Path, Path], command: str) -> None:
    assert_not_allowed(home_project[0], command)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed(home_project: tuple[Engine, Path, Path], command: str) -> None:
    assert_allowed(home_project[0], command)


@pytest.mark.parametrize(
    "payload",
    [
        "ln -s ~/notes.txt x; echo x > ~/p/x",
        "ln ~/notes.txt ~/p/src; echo x > src/notes.txt",
        "ln ~/notes.txt src; cd src; echo x > notes.txt",
        "ln ~/notes.* src; echo x > src/notes.txt",
        "ln ~/notes.txt src; printf x > src/notes.tx?",
        "echo x 1<>~/notes.txt",
        "exec 3<>~/notes.txt; echo x >&3",
    ],
)
def test_the_users_note_is_lost_unguarded_and_kept_through_the_terminal(
    tmp_path: Path, home_project: tuple[Engine, Path, Path], payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload)


def test_a_link_to_the_projects_own_file_spelled_from_the_home_writes_it(
    home_project: tuple[Engine, Path, Path],
) -> None:
    engine, home, project = home_project
    result = engine.call("terminal", {"command": "ln -s ~/p/a.py b.py; echo x > b.py"})
    assert result.ok, result.output
    assert (project / "a.py").read_text() == "x\n"
    assert home_intact(home)


UV_LIVE = [
    "uv init --script ~/notes.txt --offline",
    "uv init --directory ~ --script notes.txt --offline",
    "uv init --script s.py --offline -q && uv export --script s.py -o ~/notes.txt --offline",
]


@pytest.mark.skipif(UV is None, reason="uv is not installed")
@pytest.mark.parametrize("payload", UV_LIVE)
def test_uv_rewrites_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path], payload: str
) -> None:
    assert not home_intact(unguarded_home(tmp_path, payload)), "uv should write over the note"
    engine, home, _ = home_project
    blocked(engine, home, payload)


DD_THROUGH_A_LINK = "ln -s ~/notes.txt x; dd if=a.py of=x"


def test_dd_through_a_link_writes_the_note_unguarded(tmp_path: Path) -> None:
    assert not home_intact(unguarded_home(tmp_path, DD_THROUGH_A_LINK))


def test_dd_through_a_link_is_not_allowed(home_project: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = home_project
    blocked(engine, home, DD_THROUGH_A_LINK)


@pytest.mark.parametrize(
    "command",
    ["ln ~/notes.txt src; dd if=a.py of=src/notes.txt", "ln -s ~/notes.txt x; sort --output=x a.py"],
)
def test_a_name_after_equals_is_read_through_the_link(home_project: tuple[Engine, Path, Path], command: str) -> None:
    assert_not_allowed(home_project[0], command)
