"""open37 (stop 37, issue 8): the known holes stop 36 left open, closed with general mechanisms.

- UNREAD_PROGRAM: an interpreter's inline program completed by a value the outer shell gives it that is not known
  here, in its code rather than in one of its string literals (`python3 -c "$x"`, `node -e "f(); $x"`, `perl -e
  $x`, `deno eval "$x"`) was allowed while `sh -c "$x"` asked: a program nobody can read is not `allow`
  (follow._unread_program). A value the line makes known is read as it is (`x='print(1)'; python3 -c "$x"`), and a
  value inside the program's own string (`python3 -c "print('$x')"`) is data as before.
- COPIED_TREE: a tree copied on the line, then read by a glob in the copy (`cp -r . ../c; cat ../c/.*`, `cd ../c &&
  cat .*`): the copy is not on disk when the line is judged, so its glob landed on nothing. A word naming the copy
  is read where it came from on every line holding a recursive copy, not only on a sending or printing one
  (evaluate._copied_trees; a command moved by `cd` reads a source named from the start from there). redt36b's
  xfail removed.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.conftest import RUN_SECONDS, home_intact, make_home
from tests.redteam.harm import blocked, printed_then_refused, printing_tree

# -- 6. an inline program whose text is a value not known here -------------------------------------------------

UNREAD_PROGRAMS = [
    'python3 -c "$x"',
    "python3 -c $x",
    'python3 -c"$x"',
    'python3 -Ic "$x"',
    'python3 -c "${x}"',
    'python3 -c "import os; $x"',
    'python3 -c "$1"',
    'python3 -c "$@"',
    'python3 -c "${x%a}"',
    'node -e "$x"',
    'node -e "console.log(1); $CODE"',
    'perl -e "$x"',
    'ruby -e "$x"',
    'lua -e "$x"',
    'php -r "$x"',
    'deno eval "$x"',
    'bun -e "$x"',
    'python3 -c "$(printf \'%s\' "$x")"',
]
READ_PROGRAMS = [
    "x='print(1)'; python3 -c \"$x\"",
    "x='console.log(1)'; node -e \"$x\"",
    "for x in 'print(1)' 'print(2)'; do python3 -c \"$x\"; done",
    "python3 -c \"print('$HOME')\"",
    "python3 -c \"print('$x')\"",
    'python3 -c "import sys; print(\\"$x\\")"',
    'awk "{print \\$1}" f',
    'perl -e "print \\$0"',
    'deno eval "console.log(1)"',
    "python3 -c 'print($x)'",
]


@pytest.mark.parametrize("command", UNREAD_PROGRAMS)
def test_an_inline_program_nobody_can_read_asks(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow", command


@pytest.mark.parametrize("command", READ_PROGRAMS)
def test_an_inline_program_read_here_is_judged_as_it_is(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command


def test_a_known_harmful_program_in_a_variable_is_judged_as_its_value(engine: Engine) -> None:
    command = 'x=\'import shutil, os; shutil.rmtree(os.path.expanduser("~"))\'; python3 -c "$x"'
    assert engine.check(command).decision != "allow"


def test_an_unread_inline_program_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The variable's value comes from the environment the shell runs in (a CI job's, a `.envrc`'s): a real bash
    runs it; the engine, which does not know it, does not."""
    code = "import shutil, os; shutil.rmtree(os.path.expanduser('~'))"
    live = make_home(tmp_path / "live")
    env = {"HOME": str(live), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "X_CODE": code}
    payload = 'python3 -c "$X_CODE"'
    subprocess.run(["bash", "-c", payload], env=env, cwd=tmp_path, timeout=RUN_SECONDS, check=False)
    assert not home_intact(live), "the payload should delete the home unguarded"
    home = make_home(tmp_path / "guarded")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("X_CODE", code)
    with Engine.load(REPO, config={"workdir": str(tmp_path), "state_dir": str(tmp_path / "state")}) as guarded:
        blocked(guarded, home, payload)


# -- 1. a tree copied on the line, read in the copy by a glob ----------------------------------------------------

KEY = "DB_PASSWORD=open37-hunter2"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Engine, dict[str, str]]]:
    with printing_tree(tmp_path, monkeypatch, KEY) as made:
        yield made


COPIED_TREES = [
    "cp -r . ../c; cat ../c/.*",
    "cp -r . ../c; cat ../c/.e*",
    "cp -R ./ ../c; tail ../c/.?nv",
    "cp -r . ../c && head -n 5 ../c/.[!.]*",
    "cp -a . ../c; cd ../c && cat .*",
    "cp -r . ../c; cd ../c; grep . .e*",
    "rsync -a ./ ../d/; cat ../d/.*",
    "rsync -a ./ ../d/; grep -r K ../d",
    "cp -rt ../c . ; cat ../c/.*",
    'T=../q; cp -r . "$T"; cat "$T"/.*',
    'T=../q; cp -r . "$T" && cat "$T/.env"',
    'cp -r . "$T"; cat "$T"/.*',
    "d=$(mktemp -d); cp -r . $d; cat $d/.*",
]
COPIED_NEAR = [
    "cp -r src ../c; cat ../c/.*",
    "cp -r src ../c; cd ../c && cat .*",
    "cp -r . ../c; cat ../c/main.py",
    "cp -r . ../c; cd ../c && cat main.py",
    "cp -r src ../c; cat ../c/app.py",
    "cp -r . ../c; ls ../c",
]


@pytest.mark.parametrize("command", COPIED_TREES)
def test_a_tree_copied_on_the_line_and_read_in_the_copy_asks(
    tree: tuple[Path, Engine, dict[str, str]], command: str
) -> None:
    assert tree[1].check(command).decision == "ask", command


@pytest.mark.parametrize("command", COPIED_NEAR)
def test_a_copy_holding_no_secret_read_stays_allowed(tree: tuple[Path, Engine, dict[str, str]], command: str) -> None:
    assert tree[1].check(command).decision == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "cp -r . ../c; cat ../c/.*",
        "cp -a . ../c; cd ../c && cat .*",
        'T=../q; cp -r . "$T"; cat "$T"/.*',
    ],
)
def test_a_copied_tree_read_by_a_glob_prints_the_key_and_is_refused(
    tree: tuple[Path, Engine, dict[str, str]], command: str
) -> None:
    printed_then_refused(tree, KEY, command)


def test_a_copy_outside_the_tree_read_by_a_glob_prints_the_key_and_is_refused(
    tree: tuple[Path, Engine, dict[str, str]], tmp_path: Path
) -> None:
    copy = tmp_path / "elsewhere" / "x"
    copy.parent.mkdir()
    assert tree[1].check(f"cp -a . {copy} && cat {copy}/.*").decision == "ask"  # judged before the copy exists
    printed_then_refused(tree, KEY, f"cp -a . {copy} && cat {copy}/.*")
