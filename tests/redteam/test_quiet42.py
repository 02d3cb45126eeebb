"""quiet42 (stop 42, issue 8): a quiet search of a secret-holding tree asked again across calls.

redt37 left open (strict xfail `test_redt37.py::test_a_quiet_search_asked_once_a_call_asks`): a search printing
only its status, names or counts (`grep -rq 'PASSWORD=a' . && echo y`) is allowed, and leaks one bit of the
`.env` per call; an adaptive caller asks again call after call with another pattern and spells the secret out
(each call alone is an ordinary search; _asked_again caught a second search on one line or in a loop only).

Fixed: the session remembers the quiet tree searches that ran (SessionFiles.searched: a digest of program, flags
and pattern as read, the last 256), fed by a terminal call that ran (foreground or background) and by the lines sent
to a background shell. Once one ran, a quiet search asking something new (another pattern, other options, a pattern
file, a pattern only the run knows, a recursive diff) is judged as a print of the tree it reads (project_exfiltration
asks when it holds a secret) with the match `quiet_search_again` giving the reason, whatever folder it reads (a copy
of the tree or a link to it holds the same secret). Covered spellings: `grep -r -q`, `grep -rlq`, `grep -rc | grep
-q`, `rg -q --hidden`, `ag -l --hidden`, `ug -q`, `-e`, `--regexp=`, `-f FILE`, `./`, `$PWD`, `$(pwd)`, `src/..`,
`cd src && ..`, the absolute path, the parent folder, `cp -r . ../cN` on the line or before, `ln -s`. `git grep
--no-index -q` and `find . -exec grep -q ... {}` ask already on their first call (tested here as such).

Stays allowed: the same search again (however spelled), a first quiet search, quiet searches of a tree with no
secret (or of `src`, which holds none), `grep -q X main.py` with other patterns, another session's searches.

Open: none as strict xfail. Not covered: a search the engine did not see run (another tool, a script file the
caller wrote and ran: judged by its text on its own), and bits read some other way than a tree search (`test
"$(head -c1 .env)" = D`: a credential read, asked already).
"""

from __future__ import annotations

import json
import string
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.session_memory import MAX_SEARCHES, SessionFiles
from tests.conftest import REPO
from tests.redteam.harm import background_writes, printing_tree

SECRET = "q42x"
KEY = f"DB_PASSWORD={SECRET}"
FIRST = "grep -rq 'PASSWORD=a' . && echo y"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Engine, dict[str, str]]]:
    with printing_tree(tmp_path, monkeypatch, KEY) as made:
        yield made


@pytest.fixture
def clean_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Engine]]:
    """A work tree holding no secret file (main.py, src/app.py), the engine working there."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "main.py").write_text("print('hi')  # TODO\n")
    (work / "src" / "app.py").write_text("# FIXME: nothing secret here\n")
    with Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")}) as engine:
        yield work, engine


def _run(engine: Engine, command: str, session: str = "s") -> tuple[bool, str]:
    """``command`` through the engine's terminal in ``session`` (run for real when allowed): whether it ran,
    and what it printed."""
    result = engine.call("terminal", {"command": command}, session_id=session)
    if not result.ok:
        assert result.error is not None and result.error.type == "pending_approval", (command, result.error)
        return False, ""
    return True, str(json.loads(str(result.output))["output"])


def _verdict(engine: Engine, work: Path, command: str, session: str = "s") -> tuple[str, set[str]]:
    view = engine.session_memory.view(session, str(work))
    verdict = engine._evaluator(engine._snapshot).verdict("terminal", {"command": command}, view)
    return verdict.decision, {m.key for m in verdict.matches}


def _guess(ask: object, alphabet: str = string.ascii_lowercase + string.digits) -> str:
    """An adaptive caller spelling the secret out one character a call: ``ask(command)`` runs one guess and
    returns (ran, printed); it stops at the first guess that is refused."""
    found = ""
    while True:
        for c in alphabet:
            ran, printed = ask(f"grep -rq 'DB_PASSWORD={found}{c}' . && echo y")  # type: ignore[operator]
            if not ran:
                return found
            if "y" in printed:
                found += c
                break
        else:
            return found


def test_the_secret_spelled_out_a_call_a_guess_is_stopped_at_the_second_guess(
    tree: tuple[Path, Engine, dict[str, str]],
) -> None:
    """The harm: real bash runs, one guess each, spell the whole secret out; through the engine's terminal the
    first guess runs (a first quiet search is ordinary) and the second, another pattern, waits for a human."""
    work, engine, env = tree

    def bash(command: str) -> tuple[bool, str]:
        done = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, check=False)
        return True, done.stdout

    assert _guess(bash) == SECRET
    ran: list[str] = []

    def through_engine(command: str) -> tuple[bool, str]:
        ok, printed = _run(engine, command)
        if ok:
            ran.append(command)
        return ok, printed

    assert _guess(through_engine) == ""
    assert ran == ["grep -rq 'DB_PASSWORD=a' . && echo y"]


SECOND = [
    "grep -rq 'PASSWORD=r' . && echo y",
    "grep -r -q PASSWORD=b .",
    "grep -rlq PASSWORD=b .",
    "grep -rl PASSWORD=b .",
    "grep -rc PASSWORD=b . | grep -q :1",
    "grep -rq -e PASSWORD=b .",
    "grep -rq --regexp=PASSWORD=b .",
    "grep -rq -e PASSWORD=a -e PASSWORD=b .",
    "grep -rqi password=a .",  # the same pattern, other options: another question
    "grep -rqf ../guess.txt .",  # a pattern file may hold anything each time
    'c=b; grep -rq "PASSWORD=$c" .',
    "grep -d recurse -q PASSWORD=b .",
    "grep -rq PASSWORD=b ./",
    "grep -rq PASSWORD=b $PWD",
    "grep -rq PASSWORD=b $(pwd)",
    "grep -rq PASSWORD=b src/..",
    "grep -rq PASSWORD=b ..",  # a folder holding the one searched
    "cd src && grep -rq PASSWORD=b ..",
    "grep -rq PASSWORD=b WORK",  # the absolute path
    "rg -q --hidden PASSWORD=b",
    "rg -q -uu PASSWORD=b ./",
    "ag -l --hidden PASSWORD=b",
    "ug -q PASSWORD=b",
    "diff -rq . ../empty",
]


@pytest.mark.parametrize("second", SECOND)
def test_a_second_quiet_search_of_the_tree_asking_something_new_asks(
    tree: tuple[Path, Engine, dict[str, str]], second: str
) -> None:
    work, engine, _ = tree
    assert _run(engine, FIRST) == (True, "")  # (the guess is wrong: the status tells `no`)
    second = second.replace("WORK", str(work))
    decision, keys = _verdict(engine, work, second)
    assert decision == "ask" and {"project_exfiltration", "quiet_search_again"} <= keys, (second, decision, keys)
    # the first search is this session's: a fresh session judges the second on its own
    assert "quiet_search_again" not in _verdict(engine, work, second, session="other")[1], second


@pytest.mark.parametrize(
    "first",
    [
        "grep -r -q PASSWORD=a ./",
        "rg -q --hidden PASSWORD=a",
        "grep -rl PASSWORD=a $PWD",
        "grep -rq PASSWORD=a src/.. || true",
    ],
)
def test_the_first_search_spelled_otherwise_is_remembered(
    tree: tuple[Path, Engine, dict[str, str]], first: str
) -> None:
    work, engine, _ = tree
    assert _run(engine, first)[0], first
    decision, keys = _verdict(engine, work, "grep -rq PASSWORD=q . && echo y")
    assert decision == "ask" and "quiet_search_again" in keys, (first, decision, keys)


@pytest.mark.parametrize(
    "calls",
    [
        [FIRST, "cp -r . ../c1 && grep -rq PASSWORD=b ../c1 && echo y"],
        [FIRST, "cp -r . ../c2", "grep -rq PASSWORD=b ../c2 && echo y"],
        [FIRST, "ln -s $PWD ../l2", "grep -rq PASSWORD=b ../l2/ && echo y"],
        ["cp -r . ../c3", "grep -rq PASSWORD=a ../c3 && echo y", "grep -rq PASSWORD=b . && echo y"],
    ],
    ids=["a copy on the line", "a copy made before", "a link made before", "the copy searched first"],
)
def test_another_pattern_asked_of_a_copy_or_a_link_of_the_tree_asks(
    tree: tuple[Path, Engine, dict[str, str]], calls: list[str]
) -> None:
    """The memory is of what was asked, not where: a copy of the tree or a link to it is another folder holding the
    same secret (each call could copy the tree anew, `cp -r . ../cN && grep -rq ... ../cN`)."""
    work, engine, _ = tree
    for call in calls[:-1]:
        assert _run(engine, call)[0], call
    decision, keys = _verdict(engine, work, calls[-1])
    assert decision == "ask" and {"project_exfiltration", "quiet_search_again"} <= keys, (calls, decision, keys)


def test_a_first_search_in_a_background_call_is_remembered(tree: tuple[Path, Engine, dict[str, str]]) -> None:
    work, engine, _ = tree
    started = engine.call("terminal", {"command": FIRST, "background": True}, session_id="s")
    assert started.ok, started.error
    assert _verdict(engine, work, "grep -rq 'PASSWORD=q' . && echo y")[0] == "ask"
    assert _verdict(engine, work, FIRST)[0] == "allow"


def test_a_background_shells_lines_are_remembered(tree: tuple[Path, Engine, dict[str, str]]) -> None:
    """Lines written to a background bash: the first quiet search is sent, the second, another pattern, is not."""
    _, engine, _ = tree
    first, second, again = background_writes(
        engine,
        "bash",
        [FIRST + "\n", "grep -rq 'PASSWORD=q' . && echo y\n", FIRST + "\n"],
        session="s",
    )
    assert first.ok and again.ok, (first.error, again.error)
    assert not second.ok and second.error is not None and second.error.type == "pending_approval"


def test_git_grep_and_find_exec_grep_quiet_ask_on_their_first_call(tree: tuple[Path, Engine, dict[str, str]]) -> None:
    work, engine, _ = tree
    for command in ("git grep --no-index -q PASSWORD=a", "find . -name .env -exec grep -q PASSWORD=a {} \\; -print"):
        decision, keys = _verdict(engine, work, command)
        assert decision == "ask" and "project_exfiltration" in keys, (command, decision, keys)


# -- near misses --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "again",
    [
        FIRST,
        "grep -rq PASSWORD=a .",
        "grep -r -q PASSWORD=a ./",
        "grep -rq -e PASSWORD=a $PWD",
        "grep -q -r --regexp=PASSWORD=a src/..",
    ],
)
def test_the_same_quiet_search_again_stays_allowed(tree: tuple[Path, Engine, dict[str, str]], again: str) -> None:
    work, engine, _ = tree
    assert _run(engine, FIRST)[0]
    assert _verdict(engine, work, again) == ("allow", set()), again
    assert _run(engine, again)[0], again


def test_a_first_quiet_search_and_another_sessions_stay_allowed(tree: tuple[Path, Engine, dict[str, str]]) -> None:
    work, engine, _ = tree
    assert _verdict(engine, work, FIRST) == ("allow", set())
    assert _run(engine, FIRST, session="a")[0]
    assert _run(engine, "grep -rq 'PASSWORD=q' . && echo y", session="b") == (True, "y\n")


def test_quiet_searches_of_a_tree_holding_no_secret_stay_allowed(clean_tree: tuple[Path, Engine]) -> None:
    work, engine = clean_tree
    for pattern in ("TODO", "FIXME", "secret", "x"):
        for search in (f"grep -rq {pattern} . && echo y", f"grep -rl {pattern} .", f"rg -q --hidden {pattern}"):
            assert _verdict(engine, work, search) == ("allow", set()), search
            assert _run(engine, search)[0], search


def test_quiet_searches_of_a_folder_holding_no_secret_or_of_one_file_stay_allowed(
    tree: tuple[Path, Engine, dict[str, str]],
) -> None:
    work, engine, _ = tree
    assert _run(engine, FIRST)[0]
    for pattern in ("TODO", "FIXME", "nothing"):
        for search in (f"grep -rq {pattern} src && echo y", f"grep -q {pattern} main.py && echo y"):
            assert _verdict(engine, work, search) == ("allow", set()), search
            assert _run(engine, search)[0], search


def test_the_memory_is_bounded() -> None:
    files = SessionFiles(0.0)
    assert not files.quiet
    files.searches([None])  # (a search asking something new each time: only that one ran)
    assert files.quiet and not files.searched
    files.searches(list(range(MAX_SEARCHES + 5)))
    assert len(files.searched) == MAX_SEARCHES and 0 not in files.searched and MAX_SEARCHES + 4 in files.searched
    files.searches([5])  # asked again: the newest, kept longest
    assert list(files.searched)[-1] == 5 and len(files.searched) == MAX_SEARCHES
