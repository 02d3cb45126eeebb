"""merge49 (stop 49, issue 8): what the merge of this stop's branches found between them.

fp49 narrowed xargs_delete to input that is not a listing of the tree (`find . -name '*.pyc' | xargs rm -f` is judged
by the entries it lists). Behind the old match was a misreading: follow._with_input split xargs's input at blanks
whatever its options, so `printf 'rm -rf ~\\n' | xargs -d '\\n' sh -c` was read as `sh -c rm -rf ~` (a bare rm, run
with `$0`=-rf) and allowed on the merge, while xargs hands sh the one word `rm -rf ~`, which deletes the home (live,
below). xargs's `-0` and `-d C` are read now (follow._xargs_items): the line is judged as the `sh -c 'rm -rf ~'` it is.
`echo 'rm -rf ~' | xargs sh -c` (blanks split: `sh -c rm -rf ~`) runs a bare rm and harms nothing (live): allowed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import policy_project, run_confined

PAYLOADS = [
    "printf 'rm -rf ~\\n' | xargs -d '\\n' sh -c",
    "printf 'rm -rf ~\\0' | xargs -0 sh -c",
    "echo rm -rf ~ | xargs -d'\\n' bash -c",
    "printf 'rm -rf ~;' | xargs -d ';' sh -c",
    "printf 'rm -rf ~\\n' | xargs -d '\\012' sh -c",
    "printf 'rm -rf ~\\n' | xargs --delimiter='\\n' sh -c",
    "printf 'rm -rf ~\\0' | xargs --null sh -c",
]
NEAR_MISSES = [
    "echo 'rm -rf ~' | xargs sh -c",
    "printf 'a b\\nc\\n' | xargs -d '\\n' echo",
    "find . -name '*.pyc' -print0 | xargs -0 rm -f",
    "printf 'x.txt\\n' | xargs -d '\\n' rm -f",
]


def _tree(root: Path, _mp: pytest.MonkeyPatch) -> None:
    """A small clean project (the repository's own tree holds whatever a run left in it: compiled .pyc files)."""
    (root / "src" / "__pycache__").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x = 1\n")
    (root / "src" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (root / "x.txt").write_text("x\n")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with policy_project(tmp_path_factory, "merge49", "kind: ApprovalPolicy\n", _tree) as (_, loaded):
        yield loaded


@pytest.mark.parametrize("command", PAYLOADS)
def test_a_delimited_line_handed_to_a_shell_is_not_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_blank_split_and_listed_input_stays_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command


@pytest.mark.parametrize("command", PAYLOADS[:2])
def test_the_delimited_line_deletes_the_home_live(tmp_path: Path, command: str) -> None:
    home, _, printed = run_confined(tmp_path, command)
    assert not (home / "notes.txt").exists(), printed


def test_the_blank_split_line_runs_a_bare_rm_live(tmp_path: Path) -> None:
    home, _, printed = run_confined(tmp_path, NEAR_MISSES[0])
    assert (home / "notes.txt").read_text() == "keep me\n", printed
    assert "missing operand" in printed
