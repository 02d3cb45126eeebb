"""tail36 (stop 36, issue 8): over-blocks of stop 35's readings, and the gaps it noted.

- GREP: grep's options read by GNU grep's grammar (policies/printers.yaml). An option's value is no option:
  `grep -e -l f | sh` searches f for the text `-l` and prints lines of f, as `grep x f | sh` does (it asked:
  `-l` was read as "print the names of files"). `-d recurse` / `--directories=recurse` searches folders as
  `-r` does and prints `NAME:LINE` (it was allowed: a file written earlier named `x;rm -rf ~;` ran).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, blocked, run_confined, verdict_cases, written_then_stopped

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


SED: dict[str, Case] = {
    "git describe": ({}, 'sed -i "s/v/$(git describe --tags)/" f'),
    "git describe, | delimiter": ({}, 'sed "s|v|$(git describe)|" f'),
    "a file's text": ({}, 'sed -i "s/v/$(cat v.txt)/" f'),
    "a written file's text": ({"v.txt": "1/;erm -rf ~;#\n"}, 'x=$(cat v.txt); sed -i "s/v/$x/" f'),
    "a link's target": ({}, 'x=$(readlink l); sed "s/a/$x/" f'),
    "fetched": ({}, 'x=$(curl -s https://x.example/v); sed -i "s/v/$x/" f'),
    "read": ({}, 'read x < v.txt; sed "s/a/$x/" f'),
    "-e": ({}, 'sed -e "s/a/$(readlink l)/" -e p f'),
    "--expression=": ({}, 'sed --expression="s/a/$(git config k)/" f'),
    "a function's argument": ({}, 'f() { sed "s/a/$1/" x; }; f "$(cat v)"'),
    "a loop over tags": ({}, 'for t in $(git tag); do sed "s/v/$t/" f; done'),
    "select over tags": ({}, 'select t in $(git tag); do sed "s/v/$t/" f; done'),
    "a whole script": ({}, 'sed "$(cat s.sed)" f'),
    "r of a computed file": ({}, 'sed "r $(cat p)" f'),
    "a loop over a file's numbers, as arithmetic": ({}, "for n in $(cat n.txt); do echo $((n)); done"),
}

SED_NEAR: dict[str, Case] = {
    "date": ({}, 'sed -i "s/__version__ = .*/__version__ = \\"$(date +%Y.%m.%d)\\"/" pkg/__init__.py'),
    "date +%F": ({}, 'sed "s/a/$(date +%F)/" f'),
    "nproc, set first": ({}, 'x=$(nproc); sed "s/a/$x/" f'),
    "id -u": ({}, 'sed "s/a/$(id -u)/" f'),
    "wc -l": ({}, 'sed -i "s/v/$(wc -l < f)/" g'),
    "a literal value": ({}, 'v=1.2; sed -i "s/v/$v/" f'),
    "the environment's": ({}, 'sed "s/a/$USER/" f'),
    "a seq loop": ({}, 'for i in $(seq 1 5); do sed -i "s/x$i/y/" f; done'),
    "single-quoted": ({}, "sed -n '$p' log.txt"),
    "git ls-files operands": ({}, 'sed -n "s/a/b/p" $(git ls-files)'),
    "a seq loop, arithmetic": ({}, "for n in $(seq 3); do echo $((n)); done"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(SED, SED_NEAR))
def test_sed_scripts_completed_by_values(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# A tag's name is any text git's ref names allow: `$`, `{`, `}`, `;`, `/` and `#` are allowed, blanks are not.
TAG = "v/;erm${IFS}-rf${IFS}$HOME;#"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_tag_spliced_into_sed_does_not_run(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    setup = (
        "git init -q && git -c user.name=a -c user.email=a@b.c commit -q --allow-empty -m i && "
        f"git tag '{TAG}' && echo version > f && "
    )
    payload = 'sed -i "s/v/$(git describe --tags)/" f'
    deleted, _, _ = run_confined(tmp_path, setup + payload)
    assert not (deleted / "notes.txt").is_file(), "the payload should delete the home unguarded"
    assert engine.check(setup + payload).decision != "allow"
    blocked(engine, home, payload)
