"""tail36 (stop 36, issue 8): over-blocks of stop 35's readings, and the gaps it noted.

- GREP: grep's options read by GNU grep's grammar (policies/printers.yaml). An option's value is no option:
  `grep -e -l f | sh` searches f for the text `-l` and prints lines of f, as `grep x f | sh` does (it asked:
  `-l` was read as "print the names of files"). `-d recurse` / `--directories=recurse` searches folders as
  `-r` does and prints `NAME:LINE` (it was allowed: a file written earlier named `x;rm -rf ~;` ran).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, verdict_cases, written_then_stopped

GREP: dict[str, Case] = {
    "-d recurse": ({}, "grep -d recurse x . | sh"),
    "--directories=recurse": ({}, "grep --directories=recurse x . | bash"),
    "--directories recurse, abbreviated": ({}, "grep --direc recurse x . | sh"),
    "-l after the pattern": ({}, "grep x -l f | sh"),
    "-l after -e's value": ({}, "grep -e x -l f | sh"),
    "-l bundled after a context count": ({}, "grep -3l x f | sh"),
    "--files-with-matches after -e": ({}, "grep -e x --files-with-matches . | sh"),
}

GREP_NEAR: dict[str, Case] = {
    "-e -l": ({}, "grep -e -l f | sh"),
    "-e-l attached": ({}, "grep -e-l f | sh"),
    "--regexp=-r": ({}, "grep --regexp=-r f | sh"),
    "--regexp -H": ({}, "grep --regexp -H f | sh"),
    "-f -l (a pattern file named -l)": ({}, "grep -f -l f | sh"),
    "-m with -e -L": ({}, "grep -m 1 -e -L f | sh"),
    "-e --files-with-matches": ({}, "grep -e --files-with-matches f | sh"),
    "-A value": ({}, "grep -A 2 -e -R f | sh"),
    "-- -l": ({}, "grep -- -l f | sh"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(GREP, GREP_NEAR))
def test_grep_options_and_values(plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.parametrize("payload", ["grep -d recurse x . | sh", "grep --directories=recurse x . | sh"])
def test_grep_recursing_by_directories_does_not_run_a_name(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str
) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"x;rm -rf ~;": "x\n"}, payload)
