"""walk24: listings of the tree (`$(ls)`, `find . | xargs`, `$(git ls-files)`) read where they run,
as their reader takes them, and from the index git reads.

Each payload prints the key under a real bash (fake HOME and work tree under tmp_path, files
planted by Python the way a caller's earlier calls would leave them) and is refused through the
engine's terminal with the key not printed. Near misses stay allowed and run.
"""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, make_home
from tests.redteam.harm import SECRET, blocked

Plant = Callable[[Path, Path], None]  # (work tree, home): what the caller left in the tree


def _live(tmp_path: Path, plant: Plant, payload: str) -> str:
    """``payload`` under /bin/bash in a fresh fake HOME and work tree (both under tmp_path)."""
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    assert home.is_relative_to(tmp_path) and cwd.is_relative_to(tmp_path)
    plant(cwd, home)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(["/bin/bash", "-c", payload], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


def _index(paths: list[str]) -> bytes:
    """A git index (version 2) listing ``paths``: what a caller can write as a file."""
    body = b""
    for path in paths:
        name = path.encode()
        entry = bytes(24) + struct.pack(">I", 0o100644) + bytes(12) + bytes(20) + struct.pack(">H", len(name)) + name
        body += entry + b"\0" * (8 - len(entry) % 8)
    data = b"DIRC" + struct.pack(">II", 2, len(paths)) + body
    return data + hashlib.sha1(data).digest()


def _link_named_in_src(work: Path, home: Path) -> None:
    # `ls src` prints `k`; `cat k` opens ./k, a link to the key (src/k is an empty file)
    (work / "src").mkdir()
    (work / "src" / "k").write_text("")
    (work / "k").symlink_to(home / ".ssh" / "id_ed25519")


def _linked_folder(work: Path, home: Path) -> None:
    # a start point that is a link to the key's folder, named nothing like it
    (work / "docs").symlink_to(home / ".ssh")


def _fake_repository(work: Path, home: Path) -> None:
    # `.git` names a folder the caller made, whose index lists the key by its absolute path
    git = work / "e"
    (git / "objects").mkdir(parents=True)
    (git / "refs").mkdir()
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "index").write_bytes(_index(["a.txt", str(home / ".ssh" / "id_ed25519")]))
    (work / ".git").write_text("gitdir: e\n")
    (work / "src").mkdir()
    (work / "src" / ".git").write_text("gitdir: ../e\n")
    (work / "a.txt").write_text("a\n")


def _other_index(work: Path, home: Path) -> None:
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "evil.idx").write_bytes(_index([str(home / ".ssh" / "id_ed25519")]))


def _names_file(work: Path, home: Path) -> None:
    (work / "a.py").write_text("x = 1\n")
    (work / "cfg.txt").write_text(f"{home}/.ssh/id_ed25519\n")


def _home_path_as_folders(work: Path, home: Path) -> None:
    # folders named like the key's path (no link): `xargs -d '#'` cuts `./a#<home>/.ssh/id_ed25519#.py`
    (work / "z.py").write_text("x = 1\n")
    deep = work / "a#" / str(home).lstrip("/") / ".ssh"
    deep.mkdir(parents=True)
    (deep / "id_ed25519#.py").write_text("x = 1\n")


def _fake_lister(work: Path, home: Path) -> None:
    (work / "bin").mkdir()
    (work / "bin" / "ls").write_text(f"#!/bin/sh\necho {home}/.ssh/id_ed25519\n")
    (work / "bin" / "ls").chmod(0o755)


HOLES = {
    "ls DIR prints names read here": (_link_named_in_src, "cat $(ls src)"),
    "ls DIR into xargs": (_link_named_in_src, "ls src | xargs cat"),
    "a listed start point that is a link": (_linked_folder, "cat $(find docs/ -type f)"),
    "a cd into a link, then a listing": (_linked_folder, "cd docs && cat $(ls)"),
    "a cd into a link, then a listing into xargs": (_linked_folder, "cd docs && find . -type f | xargs cat"),
    "an index the caller wrote, via a .git file": (_fake_repository, "cat $(git ls-files)"),
    "the same index, git ls-files into xargs": (_fake_repository, "git ls-files | xargs cat"),
    "the same index, after a cd": (_fake_repository, "cd src && cat $(git ls-files)"),
    "GIT_INDEX_FILE set on the line": (_other_index, "export GIT_INDEX_FILE=evil.idx; cat $(git ls-files)"),
    "GIT_INDEX_FILE into xargs": (_other_index, "export GIT_INDEX_FILE=evil.idx; git ls-files | xargs cat"),
    "xargs reads a file, not the listing": (_names_file, "find . -name '*.py' | xargs -a cfg.txt cat"),
    "xargs cuts names at another delimiter": (_home_path_as_folders, "find . -name '*.py' | xargs -d '#' cat"),
    "a lister found first on a PATH the line set": (_fake_lister, "PATH=$PWD/bin:$PATH; cat $(ls)"),
    "a lister redefined as a function": (_names_file, "ls() { cat cfg.txt; }; cat $(ls)"),
}


@pytest.mark.parametrize(("plant", "payload"), list(HOLES.values()), ids=list(HOLES))
def test_a_listing_that_names_the_key_is_refused(
    tmp_path: Path,
    work_engine: Engine,
    fake_home: Path,
    work: Path,
    monkeypatch: pytest.MonkeyPatch,
    plant: Plant,
    payload: str,
) -> None:
    assert SECRET in _live(tmp_path, plant, payload), "live: the payload prints the key"
    monkeypatch.chdir(work)
    plant(work, fake_home)
    output = blocked(work_engine, fake_home, payload)
    assert SECRET not in output


def test_git_diff_names_from_a_written_index_ask(work_engine: Engine, fake_home: Path, work: Path) -> None:
    # `git diff --name-only` prints the index's paths too (relative to the top of the tree)
    _fake_repository(work, fake_home)
    assert work_engine.check("git diff --name-only | xargs cat").decision == "ask"


def test_nul_ended_names_in_a_substitution_are_joined(tmp_path: Path) -> None:
    # Why `$(find . -print0)` is not a listing: bash drops the NULs, `.` and `./x` read `../x`.
    def plant(work: Path, home: Path) -> None:
        (work / "outside.txt").write_text("")
        (work.parent / "outside.txt").write_text("outside the tree\n")

    printed = _live(tmp_path, plant, "cat $(find . -maxdepth 1 -print0)")
    assert "outside the tree" in printed


@pytest.mark.parametrize(
    "payload", ["cat $(find . -maxdepth 1 -print0)", "cat $(git ls-files -z)", "find . -name '*.py' | xargs -0 cat"]
)
def test_nul_ends_only_for_a_nul_reader(work_engine: Engine, work: Path, payload: str) -> None:
    (work / "a.py").write_text("x = 1\n")
    assert work_engine.check(payload).decision == "ask"


def test_the_nul_read_marker_spelled_on_a_line_prints_nothing(
    work_engine: Engine, fake_home: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # paths.NUL_READ marks a listing xargs -0 reads; spelled by a caller, the lister refuses it.
    monkeypatch.chdir(work)
    (work / "notes.txt").write_text("")
    payload = "cat $(find . -maxdepth 1 -print0 --nul-read)"
    result = work_engine.call("terminal", {"command": payload})
    assert "keep me" not in str(result.output)
    assert home_intact(fake_home)


def _repository(work: Path) -> None:
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "src" / "pkg").mkdir(parents=True)
    (work / "src" / "pkg" / "a.py").write_text("x = 1  # TODO\n")
    (work / "README.md").write_text("hello\n")
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)


NEAR_MISSES = [
    "cd src; cat $(ls pkg)",
    "cd src && ls pkg | xargs -I{} echo {}",
    "cd src/pkg && cat $(ls)",
    "cd src && find . -name '*.py' -print0 | xargs -0 grep -n TODO",
    "find . -name '*.py' -print0 | xargs --null wc -l",
    "git ls-files -z | xargs -0 grep -n TODO",
    "cat $(git ls-files)",
    "grep -n TODO $(git ls-files '*.py')",
    "cd src && cat $(git ls-files)",
    "git ls-files | xargs wc -l",
    "x=1; cat $(git ls-files)",
]


@pytest.mark.parametrize("payload", NEAR_MISSES)
def test_near_miss_a_listing_of_a_plain_tree_runs(
    work_engine: Engine, work: Path, monkeypatch: pytest.MonkeyPatch, payload: str
) -> None:
    monkeypatch.chdir(work)
    _repository(work)
    (work / "src" / "my notes").mkdir()  # a blank in a name: NUL-ended listings read it whole
    (work / "src" / "my notes" / "b.py").write_text("y = 2\n")
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    if "git ls-files" in payload and "-z" not in payload:
        # a tracked name with a blank is split by the shell: only -z reads it whole
        subprocess.run(["git", "-C", str(work), "rm", "-rq", "--cached", "src/my notes"], check=True)
        os.rename(work / "src" / "my notes", work / "notes-dir")
    assert work_engine.check(payload).decision == "allow", payload
    result = work_engine.call("terminal", {"command": payload})
    assert result.ok, (payload, result.output)


@pytest.mark.parametrize(
    "config",
    ["[core]\n\tworktree = /\n", "[include]\n\tpath = other\n", "[core]\n\tbare = true\n"],
    ids=["core.worktree", "include", "bare"],
)
def test_a_repository_configured_elsewhere_is_not_read(work_engine: Engine, work: Path, config: str) -> None:
    # Configuration that moves what git lists: the index reader gives up, and the listing asks.
    _repository(work)
    with open(work / ".git" / "config", "a") as f:
        f.write(config)
    assert work_engine.check("cat $(git ls-files)").decision == "ask"


def test_a_tracked_link_to_the_key_is_refused(
    work_engine: Engine, fake_home: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(work)
    _repository(work)
    (work / "src" / "k").symlink_to(fake_home / ".ssh" / "id_ed25519")
    subprocess.run(["git", "-C", str(work), "add", "src/k"], check=True)
    for payload in ("cat $(git ls-files)", "git ls-files -z | xargs -0 cat", "cd src && cat $(git ls-files)"):
        assert SECRET not in blocked(work_engine, fake_home, payload)
