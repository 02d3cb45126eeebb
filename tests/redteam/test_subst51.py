"""stop 51, subst51 (issue 8): one reading of the words a command substitution prints.

The family: a program some of whose options run or write something (git's verbs, tar, man, ssh, docker) given a
command substitution among its words. Split, each word the substitution prints may be one of its options: `git log
$(cat f)` with f holding `--output=$HOME/notes.txt` overwrites the note (git's verbs permute their options), a tree
name `a --checkpoint=1 --checkpoint-action=exec=sh<x.sh z.txt` makes `tar czf o.tgz $(find . -name '*.txt')` run
x.sh (the name splits at its blanks). Each harm is shown live below, under bash with a fake HOME.

Fixed:

1. One table instead of four special cases (`_found_paths`, `$(git ls-files)`, `_PATH_SUBSTITUTIONS`, the verb
   levels skipped): policies/executors.yaml `substitution_words:` says what a substitution's command prints --
   absolute paths (pwd, mktemp, realpath, `git rev-parse --show-toplevel`), revisions (git merge-base, rev-parse
   with its listed options only: `git rev-parse --output=X HEAD` prints `--output=X` back, live), prefixed paths
   (find: each starts with its start point) and bare names (ls, git ls-files, fd), the last two read from the disk
   where the line runs (a name with a blank or a glob character, or a bare name starting with `-`, may be an option:
   asked). Any other substitution prints anything (shell.substitution_kind, Analyzer._prints_no_option).
2. A verb's own permuted options are read too (test_subst50's strict xfail): `git log $(cat f)` asks, `git log
   $(git merge-base a b)..HEAD` and `git diff $(git merge-base main HEAD)` stay allowed.
3. fix50's accepted risk of `$(find …)` names with blanks: the tree's names are read (tar's live harm above asks).
   `man $(find . -name '*.1')` with `x -Psh y.1` in the tree: man-db reads no option after its first page (live:
   `man ./p.1 -Psh` pages with less), and find's first word is a path -- no harm, but it asks all the same (the same
   reading for every program).
4. test_fp49's OPEN false alarms: `git ls-files -o` prints the untracked files, the tree's names the index does not
   hold (paths._ls_files_others): `rm -f $(git ls-files -o --exclude-standard)` and `git ls-files -z --others
   --exclude-standard | xargs -0 rm -f` are allowed in a tree whose untracked files are build outputs. Decision on
   ignored files: .gitignore is not read, so the untracked listing holds the ignored ones too -- `-o` alone (an
   ignored `.env` deleted live) and `-o -i --exclude-standard` ask, and `-o --exclude-standard` asks as well where an
   ignored secret is in the tree (a false alarm kept: reading .gitignore, info/exclude and core.excludesFile is not
   done). An option selecting the index's paths too (`-o -c`, `-co`) reads both.

Open (strict xfail at the end): `$(MAKEVAR)` left as written by the makefile reader (a variable set in both arms of
an `ifeq`) is still read as no option: `ifeq` arms setting `OPTS = --output=$(HOME)/notes.txt` and a recipe `git log
$(OPTS)` overwrite the note live and `make` is allowed.
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
from tests.redteam.harm import policy_project, run_confined, said

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
_GIT = "git -c user.name=a -c user.email=a@b"
_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
TAR_NAME = "a --checkpoint=1 --checkpoint-action=exec=sh<x.sh z.txt"
MAN_NAME = "x -Psh y.1"


def _git(root: Path, *steps: str) -> None:
    for step in steps:
        subprocess.run(step, shell=True, cwd=root, env=_ENV, check=True, capture_output=True, timeout=30)


def _backdate(root: Path) -> None:
    old = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (old, old), follow_symlinks=False)


def _tree(root: Path, planted: dict[str, str], ignored: str = "") -> None:
    """A git project tracking its sources and the engine's config; untracked: build outputs and a log (and
    ``planted``); ``ignored``: a .gitignore's text, committed."""
    (root / "src").mkdir()
    (root / "src" / "m.py").write_text("x = 1\n")
    (root / "docs").mkdir()
    (root / "docs" / "p.1").write_text(".TH P 1\n")
    (root / "Makefile").write_text("all:\n\ttrue\n")
    if ignored:
        (root / ".gitignore").write_text(ignored)
    if shutil.which("git") is not None:
        _git(root, "git init -q", "git add -A", f"{_GIT} commit -qm m")
    (root / "build").mkdir()
    (root / "build" / "a.o").write_bytes(b"\0")
    (root / "logs").mkdir()
    (root / "logs" / "run.log").write_text("x\n")
    for name, text in planted.items():
        (root / name).write_text(text)
    _backdate(root)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "subst51", "kind: ApprovalPolicy\n", lambda r, _: _tree(r, {})) as project:
        yield project


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    names = {TAR_NAME: "", MAN_NAME: "", "x.sh": "rm -f ~/notes.txt\n", "b.txt": ""}
    with policy_project(tmp_path_factory, "subst51p", "kind: ApprovalPolicy\n", lambda r, _: _tree(r, names)) as p:
        yield p


@pytest.fixture(scope="module")
def secret(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    """An ignored `.env`, untracked: `git ls-files -o` prints it, `-o --exclude-standard` does not."""
    prepare = lambda r, _: _tree(r, {".env": "TOKEN=x\n"}, ignored=".env\n")  # noqa: E731
    with policy_project(tmp_path_factory, "subst51s", "kind: ApprovalPolicy\n", prepare) as project:
        yield project


# -- 1, 2. what a substitution prints, at a verb's permuted options too ----------------------------------------------
@needs_git
def test_a_verbs_option_from_a_file_writes_live(tmp_path: Path) -> None:
    setup = f'git init -q && {_GIT} commit -q --allow-empty -m m\nprintf -- "--output=$HOME/notes.txt" > f\n'
    home, _, printed = run_confined(tmp_path, setup + "git log $(cat f)")
    assert (home / "notes.txt").read_text() != "keep me\n", printed


@needs_git
def test_rev_parse_prints_an_option_back_live(tmp_path: Path) -> None:
    """`git rev-parse` prints an option it does not know as it is: not a revision (its row's options only)."""
    setup = f"git init -q && {_GIT} commit -q --allow-empty -m m\n"
    home, _, printed = run_confined(tmp_path, setup + 'git log $(git rev-parse --output="$HOME/notes.txt" HEAD)')
    assert (home / "notes.txt").read_text() != "keep me\n", printed


PAYLOADS = [
    "git log $(cat f)",
    "git diff $(cat f)",
    "git show `cat f`",
    "git log $(cat f)..HEAD",
    "x=$(cat f); git log $x",
    "git log $(git rev-parse --output=n.txt HEAD)",
    "git log $(git merge-base a b | sh)",
    "git log $(readlink lnk)",
    "git log $(curl -s https://example.com/a)",
    "docker run $(cat args)",
    "tar czf x.tgz $(cat list)",
]

NEAR_MISSES = [
    "git log $(git merge-base a b)..HEAD",
    "git diff $(git merge-base main HEAD)",
    "git log --oneline $(git merge-base --fork-point main)..HEAD",
    "git show $(git rev-parse --short HEAD)",
    "git diff $(git rev-parse HEAD~1) HEAD",
    "git log $(git describe --tags --abbrev=0)..HEAD",
    "git checkout $(git branch --show-current)",
    'git -C "$(git rev-parse --show-toplevel)" status',
    "git add $(git ls-files -m)",
    "git add $(find src -name '*.py')",
    "git log -- $(find . -name '*.py')",
    'git commit -m "$(cat msg.txt)"',
    "git log --since=$(date +%F)",
    "tar czf x.tgz $(find . -name '*.py')",
    "tar czf x.tgz $(git ls-files)",
    "tar czf x.tgz -C $(mktemp -d) .",
    "man $(find . -name '*.1')",
    "git diff --stat $(git merge-base HEAD main) -- $(git rev-parse --show-toplevel)/src",
]


@needs_git
@pytest.mark.parametrize("command", PAYLOADS)
def test_a_substitution_printing_anything_is_read_as_options(clean: tuple[Path, Engine], command: str) -> None:
    verdict = clean[1].check(command)
    assert verdict.decision != "allow", said(command, verdict)
    keys = {m.key for m in verdict.matches}
    assert "options_of_unknown_words" in keys or command.startswith("git log $(git merge-base a b |"), said(
        command, verdict
    )


@needs_git
@pytest.mark.parametrize("command", NEAR_MISSES)
def test_a_substitution_printing_no_option_stays_allowed(clean: tuple[Path, Engine], command: str) -> None:
    verdict = clean[1].check(command)
    assert verdict.decision == "allow", said(command, verdict)


# -- 3. a searched name holding blanks ------------------------------------------------------------------------------
def test_a_found_name_with_blanks_runs_tars_option_live(tmp_path: Path) -> None:
    setup = f"echo 'rm -f \"$HOME/notes.txt\"' > x.sh; touch '{TAR_NAME}' b.txt\n"
    home, _, printed = run_confined(tmp_path, setup + "tar czf o.tgz $(find . -name '*.txt')")
    assert not (home / "notes.txt").exists(), printed


@needs_git
@pytest.mark.parametrize(
    "command",
    [
        "tar czf o.tgz $(find . -name '*.txt')",
        "man $(find . -name '*.1')",
        "git log $(find . -name '*.1')",
        "tar czf o.tgz $(ls)",
        "tar czf o.tgz $(git ls-files -o)",
    ],
)
def test_a_listing_of_a_tree_holding_a_split_name_asks(planted: tuple[Path, Engine], command: str) -> None:
    verdict = planted[1].check(command)
    assert verdict.decision != "allow", said(command, verdict)


@needs_git
def test_a_listing_in_a_plain_tree_is_no_option(clean: tuple[Path, Engine]) -> None:
    """The same commands where no name splits: each prints paths or names only."""
    for command in ("tar czf o.tgz $(find . -name '*.txt')", "tar czf o.tgz $(ls)", "man $(find . -name '*.1')"):
        verdict = clean[1].check(command)
        assert verdict.decision == "allow", said(command, verdict)


# -- 4. git ls-files -o ---------------------------------------------------------------------------------------------
UNTRACKED_ALLOWED = [
    "git ls-files -z --others --exclude-standard | xargs -0 rm -f",
    "rm -f $(git ls-files -o --exclude-standard)",
    "rm -f $(git ls-files --others)",
    "rm -rf $(git ls-files -o --directory --exclude-standard)",
]


@needs_git
@pytest.mark.parametrize("command", UNTRACKED_ALLOWED)
def test_untracked_build_outputs_are_deleted_allowed(clean: tuple[Path, Engine], command: str) -> None:
    verdict = clean[1].check(command)
    assert verdict.decision == "allow", said(command, verdict)


@needs_git
@pytest.mark.parametrize(
    "command",
    [
        "rm -f $(git ls-files)",  # the index: the engine's config is tracked
        "rm -f $(git ls-files -o -c)",
        "rm -f $(git ls-files -co)",
        "rm -f $(git ls-files -xfoo)",  # (-x's value holds an `o`: no -o)
        "rm -f $(git ls-files -o -s)",
    ],
)
def test_a_listing_of_the_index_too_is_read_as_it(clean: tuple[Path, Engine], command: str) -> None:
    verdict = clean[1].check(command)
    assert verdict.decision != "allow", said(command, verdict)


@needs_git
def test_untracked_listing_deletes_an_ignored_secret_live(tmp_path: Path) -> None:
    setup = f"git init -q && printf '.env\\n' > .gitignore && git add .gitignore && {_GIT} commit -qm m\n"
    setup += "echo TOKEN=x > .env; touch a.o\n"
    _, cwd, printed = run_confined(tmp_path, setup + "rm -f $(git ls-files -o)")
    assert not (cwd / ".env").exists(), printed
    _, cwd, printed = run_confined(tmp_path / "i", setup + "rm -f $(git ls-files -o -i --exclude-standard)")
    assert not (cwd / ".env").exists() and (cwd / "a.o").exists(), printed


@needs_git
@pytest.mark.parametrize(
    "command",
    [
        "rm -f $(git ls-files -o)",
        "rm -f $(git ls-files -oi --exclude-standard)",
        "rm -f $(git ls-files --others --ignored --exclude-standard)",
        "git ls-files -z -o | xargs -0 rm -f",
        # (a false alarm kept: .gitignore is not read, the ignored `.env` is among the untracked names)
        "rm -f $(git ls-files -o --exclude-standard)",
    ],
)
def test_an_untracked_listing_holding_a_secret_asks(secret: tuple[Path, Engine], command: str) -> None:
    verdict = secret[1].check(command)
    assert verdict.decision != "allow", said(command, verdict)


# -- open: a make variable left as written ---------------------------------------------------------------------------
MAKEFILE = (
    "ifeq ($(shell echo 1),1)\nOPTS = --output=$(HOME)/notes.txt\nelse\nOPTS = --oneline\nendif\n"
    "all:\n\tgit log $(OPTS)\n"
)


@needs_git
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_a_make_variable_set_in_both_arms_writes_live(tmp_path: Path) -> None:
    setup = f"git init -q && {_GIT} commit -q --allow-empty -m m\n"
    setup += "printf '" + MAKEFILE.replace("\t", "\\t").replace("\n", "\\n").replace("%", "%%") + "' > Makefile\n"
    home, _, printed = run_confined(tmp_path, setup + "make -s")
    assert (home / "notes.txt").read_text() != "keep me\n", printed


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    def prepare(root: Path, _: pytest.MonkeyPatch) -> None:
        (root / "Makefile").write_text(MAKEFILE)
        if shutil.which("git") is not None:
            _git(root, "git init -q", f"{_GIT} commit -q --allow-empty -m m")
        _backdate(root)

    with policy_project(tmp_path_factory, "subst51m", "kind: ApprovalPolicy\n", prepare) as project:
        yield project


@pytest.mark.xfail(
    strict=True,
    reason="a make variable the makefile reader leaves as written (set in both arms of an ifeq) is read as no option"
    " (fix50's _MAKE_REF): each arm's value is not judged in the recipe",
)
def test_open_a_make_variable_set_in_both_arms(made: tuple[Path, Engine]) -> None:
    verdict = made[1].check("make")
    assert verdict.decision != "allow", said("make", verdict)
