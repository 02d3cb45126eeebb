"""Links named at run time (issue 8): a glob word of a recursive reader may name a link only when it
runs (`ln -s ../.. src/up` then `grep -r secret src/*/`: grep -r follows a link named on its command
line, and `src/*/` names `src/up/`). The word is read as where each link it can match leads -- the
session's recorded links (links.LinkFollower._through_link) and the links on disk (links.tree_landings,
bounded) -- and a recursive walk of a folder holding HOME is a walk of HOME.

Harm is tested through `Engine.call` with the terminal tool: HOME and the working directory are
siblings under tmp_path, the key is a fake one, and the test asserts it was not printed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.conftest import RUN_SECONDS, home_intact
from tests.redteam.harm import SECRET


@pytest.fixture
def linked(tmp_path: Path, work: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """The repository's engine in ``work`` (with `src/a.txt`), HOME a sibling of ``work``."""
    assert fake_home.parent == work.parent == tmp_path
    (work / "src").mkdir()
    (work / "src" / "a.txt").write_text("a\n")
    (fake_home / ".ssh" / "id_ed25519").write_text(SECRET + "\n")
    monkeypatch.chdir(work)
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    yield engine
    engine.close()


def _printed(engine: Engine, command: str) -> str:
    result = engine.call("terminal", {"command": command, "timeout": RUN_SECONDS}, session_id="s1")
    return (result.output or "") + (result.error.message if result.error else "")


def test_grep_r_through_a_globbed_link_above_home(linked: Engine, fake_home: Path) -> None:
    made = linked.call("terminal", {"command": "ln -s ../.. src/up"}, session_id="s1")
    assert made.ok, made.error
    assert SECRET not in _printed(linked, "grep -r secret src/*/"), "the key was printed"


# The link made outside the session (an unpacked archive, a checkout): only the disk knows it.
ON_DISK = [
    "grep -r secret src/*/",
    "grep -r secret src/?p/",
    "grep -r secret src/[u]p/",
    "grep -r secret src/*",
    "grep -rl secret src/*/",
    "diff -r src/*/ src/a.txt",
    "grep -r secret src/{up,x}/",
]


@pytest.mark.parametrize("command", ON_DISK)
def test_a_glob_naming_a_link_on_disk_above_home(linked: Engine, work: Path, fake_home: Path, command: str) -> None:
    os.symlink("../..", work / "src" / "up")
    assert linked.check(command).decision != "allow", command
    assert SECRET not in _printed(linked, command), ("the key was printed", command)


RECORDED = [
    "cat src/*/home/.ssh/id_ed25519",
    "grep -r secret src/*/home/.ssh",
    "grep -r secret src/u*",
]


@pytest.mark.parametrize("command", RECORDED)
def test_a_glob_naming_a_link_the_session_made(linked: Engine, fake_home: Path, command: str) -> None:
    assert linked.call("terminal", {"command": "ln -s ../.. src/up"}, session_id="s1").ok
    assert SECRET not in _printed(linked, command), ("the key was printed", command)


def test_rm_r_through_a_globbed_link_to_home(linked: Engine, work: Path, fake_home: Path) -> None:
    os.symlink(str(fake_home), work / "src" / "h")
    assert linked.check("rm -rf src/*/").decision == "deny"
    _printed(linked, "rm -rf src/*/")
    assert home_intact(fake_home)


NEAR_MISSES = ["grep -r secret src/*/", "grep -r TODO src/", "du -sh src/*", "ls -R src/*", "cp -r src/* /tmp/x/"]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_miss_a_glob_with_no_link_out(linked: Engine, work: Path, command: str) -> None:
    (work / "src" / "sub").mkdir()
    (work / "src" / "sub" / "b.txt").write_text("b\n")
    os.symlink("a.txt", work / "src" / "inside")  # a link that stays in the tree
    assert linked.check(command).decision == "allow", command
