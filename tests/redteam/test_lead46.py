"""lead46 (stop 46, issue 8): a listing of the tree whose later stages only select lines of it.

`rm $(find . -name '*.tmp' | grep -v keep)` asked (delete_computed_path: a substitution that does more than list
the tree is any name), while `rm $(find . -name '*.tmp')` is read like a glob of the tree. A stage after the lister
that only selects some of its lines (grep without -o/-c/-l/-r/-e/-f or a file operand, sort/uniq with no file,
head/tail with a count) prints a subset of the tree's names: the substitution is read as its lister
(paths._lister_of). Any other stage keeps the whole substitution unknown.

Noticed, not fixed: the same listing carried by a pipe into `while read` (comp46's carried text) is taken from the
stage just before the loop (`find . -name '*.tmp' | grep -v keep | while read -r f; do rm "$f"; done` reads `$(grep
-v keep)` and asks).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import harm_project, run_confined


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """A small project of its own (the engine's repository, cloned, holds .git: past the 2,048 entries a listing is
    read through, so every listing of `.` asks there, for the wrong reason)."""
    with harm_project(tmp_path, monkeypatch, "kind: ApprovalPolicy\n") as (engine, _, root):
        for name in ("a.tmp", "keep.tmp", "x.pyc", "old.log", "b.orig", "docs/a.md", "src/m.py", "src/test_m.py"):
            (root / name).parent.mkdir(exist_ok=True)
            (root / name).write_text("x\n")
        yield engine


NEAR_MISSES = [
    "rm $(find . -name '*.tmp' | grep -v keep)",
    "rm -f $(find . -name '*.pyc' | head -5)",
    "rm -f $(find . -name '*.orig' | sort -u)",
    "cat $(find . -name '*.md' | grep -v node_modules)",
    "wc -l $(find . -name '*.py' | grep -v test | tail -n 3)",
    "rm -f $(ls *.log | grep -i old)",
]

# A later stage that prints other text than the listed lines, reads a file, or a lister outside the tree
PAYLOADS = [
    "rm -f $(find ~ -type f | grep -v keep)",
    "rm -f $(find . -name '*.tmp' | grep -o '/home.*')",  # -o prints a part of a line (an absolute path)
    "rm -f $(find . -name '*.tmp' | grep -v x ~/.ssh/id_ed25519)",  # a file operand: its lines
    "rm -f $(find . -name '*.tmp' | grep -h -r . ~/.ssh)",
    "rm -f $(find . -name '*.tmp' | sort ~/list.txt)",
    "rm -f $(find . -name '*.tmp' | sed s,^,/home/,)",
    "rm -f $(find . -name '*.tmp' | xargs cat)",
    "rm -f $(find . -name '*.tmp' | grep -f ~/patterns)",
    "rm -f $(find . -name '*.tmp' | head -c 100)",
    "rm -f $(find . -name '*.tmp' | tail -f)",
    "rm -f $(find .. -name '*.tmp' | grep -v keep)",
    "rm -f $(find . -L -name '*.tmp' | grep -v keep)",
]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_a_selected_listing_of_the_tree_stays_allowed(project: Engine, command: str) -> None:
    assert project.check(command).decision == "allow", command


@pytest.mark.parametrize("command", PAYLOADS)
def test_a_stage_printing_other_names_is_not_allowed(project: Engine, command: str) -> None:
    assert project.check(command).decision != "allow", command


def test_a_whole_tree_listing_still_asks_where_it_names_the_engines_files(project: Engine) -> None:
    """`find .` lists policies/: selecting some of its lines (`head`) may still be the engine's files."""
    assert project.check("rm $(find . | sort -u | head -n 3)").decision != "allow"


def test_the_selected_listing_deletes_only_the_trees_files_live(tmp_path: Path) -> None:
    """The harm side of the near miss: under bash, the selected listing deletes the tree's .tmp files only."""
    home, cwd, _ = run_confined(
        tmp_path, "touch a.tmp keep.tmp b.txt && rm $(find . -name '*.tmp' | grep -v keep) && ls"
    )
    assert home_intact(home)
    assert sorted(p.name for p in cwd.iterdir()) == ["b.txt", "keep.tmp"]


def test_a_grep_o_stage_reaches_the_home_live(tmp_path: Path) -> None:
    """Why -o is no selector: it prints a part of a listed name, here the home's own path (a folder the caller made
    in the tree, named after it)."""
    home = tmp_path / "live" / "home"
    payload = f"mkdir -p 'x{home}' && rm -rf $(find . | grep -o '{home}$')"
    home, _, _ = run_confined(tmp_path, payload)
    assert not home_intact(home)
