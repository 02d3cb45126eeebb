"""stop 48, fix48 (issue 8): a listing read from the disk while an earlier command of the line makes its names.

Open until stop 49 (a plain test since, tests/redteam/test_fp49.py: shell.Analyzer._listings_made): `mkdir -p "x
$HOME" && touch "x $HOME/notes.txt" && rm -f $(find . -name notes.txt)` was allowed (the listing is read before the
name exists; run, `./x $HOME/notes.txt` splits at its blank and rm deletes ~/notes.txt). A rule in shell.Analyzer
(_listing_made: ask where an earlier command may make a name the listing prints) was built and reverted at the
deadline of stop 48: through the terminal tool it asked on plain listings (test_rt11_open_reads: `cat $(git
ls-files)`); stop 49 judges each other command by what it writes instead (the engine's `cd CWD` writes nothing).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import policy_project, run_confined

PAYLOAD = 'mkdir -p "x $HOME" && touch "x $HOME/notes.txt" && rm -f $(find . -name notes.txt)'


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "fix48", "kind: ApprovalPolicy\n") as project:
        yield project


def test_the_split_deletes_live(tmp_path: Path) -> None:
    home, _, printed = run_confined(tmp_path, PAYLOAD)
    assert not (home / "notes.txt").exists(), printed


def test_a_name_made_on_the_line_is_not_allowed(loaded: tuple[Path, Engine]) -> None:
    assert loaded[1].check(PAYLOAD).decision != "allow"
