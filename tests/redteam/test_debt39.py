"""debt39 (stop 39, issue 8): review debt in the danger detector, with no verdict changed.

1. GIT_COPIES: evaluate.py read `git add` / `git stash` twice, once for the ignored files they copy (`git add -f .`,
   `git stash -a`: a print on its own, any later `git diff --cached` shows them) and once for the untracked files
   a later stage of the line prints (`git add -A && git diff --cached`). One reading now (_git_copies). The two
   readings differed; the differences are kept, and the payloads they leave allowed are strict xfails here.
2. READERS: the programs that read commands from their input (a write to one started in the background is judged
   as its input, by line: redt36) were a Python set (session_memory.COMMAND_READERS); they are the Programs
   manifests' `command_readers:` now (policies/executors.yaml), which a project's manifest adds to.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    asks_for_the_tree,
    assert_allowed,
    background_writes,
    git_committed,
    harm_project,
    printing_tree,
    validated_policy,
)

KEY = "sk-live-debt39-0123456789abcdef"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Engine, dict[str, str]]]:
    with printing_tree(tmp_path, monkeypatch, KEY) as made:
        yield made


# -- 1. one reading of what git copies into its index or a stash ---------------------------------------------------

# both uses of the reading: the ignored files copied (on their own) and the untracked ones printed on the line
COPIED = [
    "git add -f .",
    "git add -Af",
    "git add --all --force",
    "git stash -a",
    "git stash push --all",
    "git add -A && git diff --cached",
    "git add :/ && git diff --cached",
    "git stash push -u -- . && git stash show -p",
    "git stash save -u wip && git stash show -p",
    "git stash -a && git stash show -p",
]
# a copy of what holds no secret, or of the tracked files only, or printed by no stage of the line
COPIED_NEAR = [
    "git stash push -u src && git stash show -p",  # (the pathspecs after `push`, not the tree)
    "git stash push -u -- src && git stash show -p",
    "git add src && git diff --cached",
    "git add -u && git diff --cached",
    "git add -A && git commit -m wip",
    "git add -A && git diff --cached --stat",
    "git stash -u",
    "git stash -u && git stash show",
    "git add -f src/app.py",
]


@pytest.mark.parametrize("command", COPIED)
def test_a_copy_into_gits_index_of_the_secrets_asks(tree: tuple[Path, Engine, dict[str, str]], command: str) -> None:
    asks_for_the_tree(tree[1], command)


@pytest.mark.parametrize("command", COPIED_NEAR)
def test_a_copy_of_no_secret_stays_allowed(tree: tuple[Path, Engine, dict[str, str]], command: str) -> None:
    assert_allowed(tree[1], command)


# The quirks the ignored-files reading had and the staged-tree one did not (kept: this stop changes no verdict).
# Each copies an ignored `.env` into the index, where `git diff --cached` prints it.
OPEN_COPIES = {
    "git add -f --no-ignore-removal": "--no-ignore-removal is -A spelled out: the tree is not read as named (whole)",
    "git add -f :/": "a magic pathspec is judged as the word `:/`, not as the tree's top",
    "git stash save -a wip": "a `stash save`'s message is read as the path it stashes",
    "git stash -qa": "_git_prints_files reads -q as a quieter print (as for `git diff -q`): git still stashes",
}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize(
    "command",
    list(OPEN_COPIES),
)
def test_an_ignored_secret_copied_by_gits_other_spellings_asks(
    tree: tuple[Path, Engine, dict[str, str]], tmp_path: Path, command: str
) -> None:
    """Run in a copy of the tree (the `.env` ignored), the payload puts the key where `git diff --cached` or
    `git stash show -p --include-untracked` (with -a, `--only-untracked`) prints it; the engine should ask."""
    work, engine, env = tree
    (work / ".gitignore").write_text(".env\n")
    env = git_committed(work, env, [".gitignore", "main.py", "src"])
    live = tmp_path / "live"
    shutil.copytree(work, live, symlinks=True)
    shown = "git stash show -p --only-untracked" if "stash" in command else "git diff --cached"
    ran = subprocess.run(
        ["bash", "-c", f"{command} && {shown}"], cwd=live, env=env, capture_output=True, timeout=30, check=False
    )
    assert KEY.encode() in ran.stdout, (command, ran.stdout, ran.stderr)
    asks_for_the_tree(engine, command)


# -- 2. the programs reading commands from their input, as data --------------------------------------------------

# A project's own program that runs its input as shell lines, and its manifest naming it a command reader.
MYSH = """\
kind: Programs
name: mine
command_readers: [mysh]
programs:
  - program: [mysh]
    runs: [{stdin: true, as: shell}]
"""


@pytest.fixture
def reader_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path, Path]]:
    """A project whose Programs manifest adds `mysh` (a real shell on its input, on PATH) to the command readers."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mysh").write_text("#!/bin/sh\nexec /bin/sh\n")
    (bin_dir / "mysh").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    with harm_project(tmp_path, monkeypatch, MYSH) as loaded:
        yield loaded


def test_a_projects_command_reader_holds_its_lines(reader_project: tuple[Engine, Path, Path]) -> None:
    """`mysh` started in the background, `rm -r` then `f ~⏎` written: as data each write is judged alone (neither
    is harmful) and sent; named in the project's `command_readers:`, the line is held and judged whole as `mysh
    <<< 'rm -rf ~'`, which its row reads as a shell's input."""
    engine, home, _ = reader_project
    readers = engine.snapshot.policy.programs.command_readers
    assert {"mysh", "sqlite3", "awk"} <= readers  # the project's name added to the builtin ones
    *_, last = background_writes(engine, "mysh", ["rm -r", "f ~\n"])
    assert not last.ok and last.error is not None and last.error.type in ("denied", "pending_approval")
    assert home_intact(home)


def test_a_projects_command_reader_takes_ordinary_lines(reader_project: tuple[Engine, Path, Path]) -> None:
    engine, home, root = reader_project
    results = background_writes(engine, "mysh", ["echo hi >", " out.txt\n"])
    assert all(r.ok for r in results), results
    assert (root / "out.txt").read_text() == "hi\n"
    assert home_intact(home)


@pytest.mark.parametrize(
    ("listed", "messages"),
    [
        (
            '[mytool, "my tool", 3]',
            ["readers.yaml:3:", 'command_readers/1: "my tool" does not match', "command_readers/2 must be string"],
        ),
        ("mytool", ["readers.yaml:3:", "command_readers must be array"]),
        ("[sqlite/3]", ['command_readers/0: "sqlite/3" does not match']),
    ],
)
def test_a_malformed_command_readers_row_is_a_located_validate_error(
    tmp_path: Path, listed: str, messages: list[str]
) -> None:
    code, out = validated_policy(
        tmp_path, "readers.yaml", f"kind: Programs\nname: mine\ncommand_readers: {listed}\nprograms: []\n"
    )
    assert code == 1, out
    assert "Traceback" not in out, out
    for message in messages:
        assert message in out, (message, out)
