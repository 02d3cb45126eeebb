"""stop 48, fix48 (issue 8): a listing of the tree read from the disk before the line runs, while an earlier command
of the same line makes the names it prints.

Found allowed, and fixed (it deleted ~/notes.txt live, below):

1. `mkdir -p "x $HOME" && touch "x $HOME/notes.txt" && rm -f $(find . -name notes.txt)`: the engine read the listing
   `$(find . -name notes.txt)` from the disk (paths.Places._listed), where `x $HOME/notes.txt` is not yet; run, find
   prints `./x $HOME/notes.txt`, the unquoted substitution splits it at the blank and rm deletes `$HOME/notes.txt`.
   The same through a loop (`for f in $(find …); do rm $f; done`), a pipe (`find … | while read f; do rm $f;
   done`), a file a redirection writes (`echo x > "x $HOME/notes.txt"`), `cp`, `ls -R`, and after a program whose
   Programs entry says `unpacks_here` (`tar xf a.tar`: any name). Now (shell.Analyzer._listing_made) a listing word
   (paths.lists_tree, or a name carrying one) where an earlier command of the line may make a name it prints asks
   (listing_of_names_made_on_the_line): the operands of any program but readers and listers (shell._MAKES_NONE) and
   the files written on the line are the names made; with a `-name` test, only those one part of which it passes
   (paths.find_names). `mkdir -p build && rm -f $(find . -name '*.pyc')`, `touch a.txt && find . -name '*.pyc'
   -delete` and `cat notes.txt && rm -f $(find . -name '*.pyc')` stay allowed; `find … | xargs rm` asked and asks.
   `find . -name notes.txt -delete` after the same touch stays allowed: find deletes the name whole (shown live).

Open (strict xfail below): a background job of the session still running that makes the name (`sleep 60; touch "x
$HOME/notes.txt"` started with background: true, then `rm -f $(find . -name notes.txt)`): the later line's listing
is read from the disk as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import Case, assert_verdict, policy_project, run_confined, session_verdict, verdict_cases


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "fix48", "kind: ApprovalPolicy\n") as project:
        yield project


_MADE = 'mkdir -p "x $HOME" && touch "x $HOME/notes.txt" && '
_TREE = {"src/a.pyc": "x\n", "src/a.py": "x\n", "notes.md": "x\n"}
PAYLOADS: dict[str, Case] = {
    "substitution": (_TREE, _MADE + "rm -f $(find . -name notes.txt)"),
    "substitution-glob": (_TREE, _MADE + "rm -f $(find . -name '*.txt')"),
    "no-name-test": (_TREE, _MADE + "rm -f $(find . -type f)"),
    "backticks": (_TREE, _MADE + "rm -f `find . -name notes.txt`"),
    "loop": (_TREE, _MADE + "for f in $(find . -name notes.txt); do rm $f; done"),
    "pipe-loop": (_TREE, _MADE + "find . -name notes.txt | while read f; do rm $f; done"),
    "xargs": (_TREE, _MADE + "find . -name notes.txt | xargs rm"),
    "ls-recursive": (_TREE, 'mkdir -p "x $HOME"; touch "x $HOME/notes.txt"; rm -f $(ls -R)'),
    "redirection": (_TREE, 'mkdir -p "x $HOME" && : > "x $HOME/notes.txt" && rm -f $(find . -name notes.txt)'),
    "copied": (_TREE, 'mkdir -p "x $HOME" && cp notes.md "x $HOME/notes.txt" && rm -f $(find . -name "*.txt")'),
    "semicolons": (_TREE, 'mkdir -p "x $HOME"; touch "x $HOME/notes.txt"; rm -f $(find . -name notes.txt)'),
    "in-subfolder": (_TREE, 'cd src && mkdir -p "x $HOME" && touch "x $HOME/notes.txt" && rm $(find . -name n*)'),
    "unpacked": (_TREE, "tar xf a.tar && rm -f $(find . -name '*.pyc')"),
}
NEAR: dict[str, Case] = {
    "mkdir-then-pyc": (_TREE, "mkdir -p build && rm -f $(find . -name '*.pyc')"),
    "touch-then-delete": (_TREE, "touch a.txt && find . -name '*.pyc' -delete"),
    "pyc-alone": (_TREE, "rm -f $(find . -name '*.pyc')"),
    "reader-first": (_TREE, "cat notes.md && rm -f $(find . -name '*.pyc')"),
    "made-elsewhere": (_TREE, "touch /tmp/x.pyc && rm -f $(find . -name '*.pyc')"),
    "loop-pyc": (_TREE, "mkdir -p out && for f in $(find . -name '*.pyc'); do rm $f; done"),
    "pipe-pyc": (_TREE, "touch a.txt && find . -name '*.pyc' | while read f; do rm $f; done"),
    "listing-tests": (_TREE, "mkdir -p out && wc -l $(find src -name '*.py')"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR))
def test_listings_of_names_made_on_the_line(
    loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(loaded, case, allowed, session)


def test_the_new_rule_is_why_it_asks(loaded: tuple[Path, Engine]) -> None:
    """The substitution asked for the made name, not for some other row (it was allowed before fix48)."""
    verdict = loaded[1].check(_MADE + "rm -f $(find . -name notes.txt)")
    assert verdict.decision == "ask"
    assert "listing_of_names_made_on_the_line" in [m.key for m in verdict.matches]
    assert "listing_of_names_made_on_the_line" not in [m.key for m in loaded[1].check(_MADE + "ls").matches]


@pytest.mark.parametrize(
    "payload",
    [
        _MADE + "rm -f $(find . -name notes.txt)",
        _MADE + "for f in $(find . -name notes.txt); do rm $f; done",
        _MADE + "find . -name notes.txt | while read f; do rm $f; done",
    ],
)
def test_a_name_made_on_the_line_deletes_live_and_is_not_allowed(
    tmp_path: Path, loaded: tuple[Path, Engine], payload: str
) -> None:
    """The ground: find prints `./x $HOME/notes.txt`, split at the blank: rm deletes the home's note."""
    home, _, printed = run_confined(tmp_path, payload)
    assert not (home / "notes.txt").exists(), printed
    near = payload.replace("notes.txt)", "'*.pyc')").replace("notes.txt |", "'*.pyc' |")
    home, _, printed = run_confined(tmp_path / "near", near)
    assert home_intact(home), printed
    assert loaded[1].check(payload).decision != "allow", payload


def test_find_delete_of_a_made_name_deletes_it_whole(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """find's own -delete is given no split name: it deletes `./x $HOME/notes.txt` and the home's note stays (so
    it is not asked)."""
    payload = _MADE + "find . -name notes.txt -delete"
    home, cwd, printed = run_confined(tmp_path, payload)
    assert home_intact(home), printed
    assert not any(cwd.rglob("notes.txt")), printed
    assert loaded[1].check(payload).decision == "allow"


@pytest.mark.xfail(strict=True, reason="fix48 open: a background job of the session that makes the name later")
def test_open_a_background_job_makes_the_name(loaded: tuple[Path, Engine]) -> None:
    root, engine = loaded
    session = "open-background"
    started = engine.call(
        "terminal",
        {"command": 'sleep 60; mkdir -p "x $HOME"; touch "x $HOME/notes.txt"', "background": True},
        session_id=session,
    )
    assert started.ok, started.error
    pid = str(json.loads(started.output)["process_id"])
    try:
        verdict = session_verdict(root, engine, {}, "rm -f $(find . -name notes.txt)", session)
    finally:
        engine.call("process", {"action": "kill", "process_id": pid}, session_id=session)
    assert verdict != "allow"
