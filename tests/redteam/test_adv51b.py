"""stop 51, adv51b (issue 8): an adversary on this stop's merge (config keys as options, install locations, the
table of what a command substitution prints, the user's files outside the work tree, privileged changes, reads of
the project on the disk, writes through links, background writers).

Family found and fixed: a ref name printed by a command substitution read as a revision. subst51's
`substitution_words:` listed `git describe`, `git branch --show-current`, `git symbolic-ref --short` and `git
rev-parse --abbrev-ref` as printing revisions (never an option, "git refuses a ref starting with `-`"). git refuses
`git branch -- -x` and `git tag -- -x`, but not `git update-ref 'refs/tags/--output=F' HEAD`, a ref file written
into .git/refs, a packed-refs line, nor a cloned repository's tags and branches: `git log -1 $(git describe --tags)`
then overwrites F (git's verbs permute their options), shown live below under bash with a fake HOME. Those rows now
print `refs`: the repository's branch and tag names are read from the disk (gitindex.refs_plain: HEAD, packed-refs,
refs/heads and refs/tags; a reftable, an unsure configuration or a name that is not plain reads as anything), and a
name that is not a plain word not starting with `-` makes the substitution's words possible options (asked). A
repository with ordinary names stays allowed (near misses), as `git merge-base` / `git rev-parse --short HEAD`
(object names) do.

Probed and held (no change): the user-file rule through `$HOME`, `${HOME}`, `"$HOME"/`, `~/"x"`, globs, `..`,
/proc/self/cwd/.., `cd ~ && > notes.txt`, `cd .. && rm home/notes.txt`, a link made on the line, dd of=, tee,
rsync, install, shred, `git log --output=../home/notes.txt` (all ask).

Open: nothing left as a strict xfail here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy import gitindex
from tests.redteam.harm import policy_project, run_confined

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
_GIT = "git -c user.name=a -c user.email=a@b -c init.defaultBranch=main"
_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def _git(root: Path, *steps: str) -> None:
    for step in steps:
        subprocess.run(step, shell=True, cwd=root, env=_ENV, check=True, capture_output=True, timeout=30)


def _backdate(root: Path) -> None:
    old = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (old, old), follow_symlinks=False)


def _repo(root: Path, step: str = "") -> None:
    (root / "a.py").write_text("x = 1\n")
    if shutil.which("git") is not None:
        _git(root, "git init -q", "git add -A", f"{_GIT} commit -qm m", f"{_GIT} tag v1")
        if step:
            _git(root, step)
    _backdate(root)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "adv51bc", "kind: ApprovalPolicy\n", lambda r, _: _repo(r)) as project:
        yield project


_ON_BRANCH = "git symbolic-ref HEAD 'refs/heads/--output=/tmp/n.txt'"
PLANTS = {
    "tag": "git update-ref 'refs/tags/--output=/tmp/n.txt' HEAD",
    "branch": "git update-ref 'refs/heads/--output=/tmp/n.txt' HEAD && " + _ON_BRANCH,
    "packed": "git update-ref 'refs/tags/--output=/tmp/n.txt' HEAD && git pack-refs --all",
    # (fix51) HEAD's target below refs/ but outside heads/tags: --short and --abbrev-ref strip `refs/`
    "head below refs": "git update-ref 'refs/--output=/tmp/n.txt' HEAD"
    " && git symbolic-ref HEAD 'refs/--output=/tmp/n.txt'",
}


@pytest.fixture(scope="module", params=sorted(PLANTS))
def planted(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    step = PLANTS[request.param]
    with policy_project(tmp_path_factory, "adv51bp", "kind: ApprovalPolicy\n", lambda r, _: _repo(r, step)) as p:
        yield p


def _verdict(engine: Engine, command: str) -> str:
    return engine.check(command).decision


# -- live harm: a ref named as an option --------------------------------------------------------------------------
_BRANCH = (
    'git update-ref "refs/heads/--output=$HOME/notes.txt" HEAD'
    ' && git symbolic-ref HEAD "refs/heads/--output=$HOME/notes.txt"'
)
_TAG = 'git update-ref "refs/tags/--output=$HOME/notes.txt" HEAD'
LIVE = {
    "git describe --tags": _TAG,
    "git branch --show-current": _BRANCH,
    "git rev-parse --abbrev-ref HEAD": _BRANCH,
    "git symbolic-ref --short HEAD": _BRANCH,
}


@needs_git
@pytest.mark.parametrize("reader", sorted(LIVE))
def test_a_ref_named_as_an_option_writes_live(tmp_path: Path, reader: str) -> None:
    """git keeps a ref named `--output=F` (update-ref; a clone's tags alike): the name printed, git log writes F."""
    setup = f"git init -q && {_GIT} commit -q --allow-empty -m m && {LIVE[reader]}\n"
    home, _, printed = run_confined(tmp_path, setup + f"git log -1 $({reader})")
    assert (home / "notes.txt").read_text() != "keep me\n", printed


_BELOW_REFS = (
    'git update-ref "refs/--output=$HOME/notes.txt" HEAD && git symbolic-ref HEAD "refs/--output=$HOME/notes.txt"'
)


@needs_git
@pytest.mark.parametrize("reader", ["git symbolic-ref --short HEAD", "git rev-parse --abbrev-ref HEAD"])
def test_a_head_below_refs_named_as_an_option_writes_live(tmp_path: Path, reader: str) -> None:
    """(fix51, the review of stop 51) HEAD -> `refs/--output=F`: the short form git prints drops `refs/`."""
    setup = f"git init -q && {_GIT} commit -q --allow-empty -m m && {_BELOW_REFS}\n"
    home, _, printed = run_confined(tmp_path, setup + f"git log -1 $({reader})")
    assert (home / "notes.txt").read_text() != "keep me\n", printed


PAYLOADS = [
    "git log -1 $(git describe --tags)",
    "git log $(git describe --tags --abbrev=0)..HEAD",
    "git log -1 $(git branch --show-current)",
    "git log $(git rev-parse --abbrev-ref HEAD)",
    "git diff $(git symbolic-ref --short HEAD)",
    'git show "$(git describe --tags)"',
]


@needs_git
@pytest.mark.parametrize("command", PAYLOADS)
def test_a_planted_ref_asks(planted: tuple[Path, Engine], command: str) -> None:
    _root, engine = planted
    assert _verdict(engine, command) != "allow", command


@needs_git
@pytest.mark.parametrize(
    "command", [*PAYLOADS, "git show $(git rev-parse --short HEAD)", "git log $(git merge-base v1 HEAD)..HEAD"]
)
def test_near_miss_plain_refs_stay_allowed(clean: tuple[Path, Engine], command: str) -> None:
    _root, engine = clean
    assert _verdict(engine, command) == "allow", command


def test_refs_plain_reads_the_repository(tmp_path: Path) -> None:
    """The reader itself: plain names read true, a dash-led or unplain name, a reftable or an unreadable HEAD false."""
    git = tmp_path / "r" / ".git"
    (git / "objects").mkdir(parents=True)
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "refs" / "tags").mkdir()
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs" / "heads" / "main").write_text("0" * 40 + "\n")
    folder = os.path.realpath(tmp_path / "r")
    assert gitindex.refs_plain(folder)
    (git / "packed-refs").write_text("# pack-refs\n" + "0" * 40 + " refs/tags/-x\n")
    assert not gitindex.refs_plain(folder)
    (git / "packed-refs").write_text("0" * 40 + " refs/tags/v1\n")
    assert gitindex.refs_plain(folder)
    (git / "refs" / "tags" / "--output=f").write_text("0" * 40 + "\n")
    assert not gitindex.refs_plain(folder)
    (git / "refs" / "tags" / "--output=f").unlink()
    (git / "HEAD").write_text("ref: refs/heads/-p\n")
    assert not gitindex.refs_plain(folder)
    (git / "HEAD").write_text("ref: refs/--output=f\n")
    assert not gitindex.refs_plain(folder)  # (fix51: outside heads/ and tags/, `refs/` stripped)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs" / "remotes" / "origin").mkdir(parents=True)
    (git / "refs" / "remotes" / "origin" / "main").write_text("0" * 40 + "\n")
    assert gitindex.refs_plain(folder)
    (git / "refs" / "remotes" / "origin" / "-x").write_text("0" * 40 + "\n")
    assert gitindex.refs_plain(folder)  # (origin/-x: its short forms start with the remote's name)
    (git / "refs" / "--y").mkdir()
    (git / "refs" / "--y" / "z").write_text("0" * 40 + "\n")
    assert not gitindex.refs_plain(folder)  # (`git describe --all` prints `--y/z`)
    (git / "refs" / "--y" / "z").unlink()
    (git / "reftable").mkdir()
    assert not gitindex.refs_plain(folder)
