"""lead39 (stop 39, issue 8): the per-check work cut for the median target, held to what it replaced.

1. follow_unknown read every option word of every command against each option run of the `*` entry (a regex
   full match per run and word); it now looks the option name up in a memo of the runs that take it, kept per
   runs tuple (by identity, the tuple kept alive with it). Another policy's `*` entry is another tuple: a name
   remembered for one is not answered for the other.
2. The candidates gate searches its literal fragments on an Aho-Corasick automaton in a long-lived engine
   (tests/test_policy_gate.py holds it to the `re` trie).
3. _table_writes reads the command's own reading (the one follow_program made), not a second parse. Found
   on the way: `sort -o FILE` was no writer (`sort -o out.sh in.txt && sh out.sh` was allowed): it is one now.
"""

from __future__ import annotations

import pytest

from engine import Engine
from engine.policy import follow
from tests.redteam.harm import assert_allowed, assert_not_allowed


def test_an_option_name_remembered_for_one_runs_tuple_is_not_answered_for_another(engine: Engine) -> None:
    """The memo is kept per runs tuple (another policy's `*` entry is another tuple): `-o` is taken by the
    builtin entry's `o` run; a tuple without that run, asked after, does not answer from the first's memo."""
    anyone = engine._evaluator(engine._snapshot).policy.programs.anyone
    assert anyone is not None
    runs = anyone.option_word_runs
    assert follow._runs_naming(runs, follow._option_runs(runs), "o")  # remembered: taken
    others = tuple(run for run in runs if not follow._runs_naming((run,), {}, "o"))
    assert others and others != runs
    assert follow._option_runs(others).get("o") is None  # not the first tuple's answer
    assert follow._runs_naming(others, follow._option_runs(others), "o") == ()
    assert follow._option_runs(runs)["o"]  # and the first's answer stands


@pytest.mark.parametrize(
    "command",
    [
        "mytool --on-exit='rm -rf ~'",
        "mytool --pre 'rm -rf ~'",
        "mytool -o ProxyCommand='rm -rf ~' host",
        "mytool --post-hook=sh",
        "mytool --exec-cmd 'rm -rf ~'",
        "git --exec-path=x push -f",  # a described program's undeclared option: read as before
    ],
)
def test_option_words_of_undescribed_programs_still_run(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)
    assert_not_allowed(engine, command)  # the second time through the memo


def test_the_memo_is_bounded(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(follow, "_MAX_OPTION_NAMES", 40)
    # (adv39) the memos earlier checks filled under the default bound are not this test's: start from none
    monkeypatch.setattr(follow, "_OPTION_RUNS", {})
    for n in range(90):
        engine.check(f"rm x; mytool --opt{n}=1")
    anyone = engine._evaluator(engine._snapshot).policy.programs.anyone
    assert anyone is not None
    assert 0 < len(follow._option_runs(anyone.option_word_runs)) <= 40
    assert_not_allowed(engine, "mytool --on-exit='rm -rf ~'")


@pytest.mark.parametrize(
    ("command", "near"),
    [
        ("cc x.c && ./a.out", "cc x.c && ls"),
        ("uniq in.txt out.sh && sh out.sh", "uniq in.txt out.sh && cat out.sh"),
        ("sort -o out.sh in.txt && sh out.sh", "sort -o out.txt in.txt && cat out.txt"),
        ("sort -o ~/.bashrc x", "sort -u -o names.txt names.txt"),
    ],
)
def test_a_file_a_program_writes_is_still_remembered(engine: Engine, command: str, near: str) -> None:
    """_table_writes on the command's own reading: a written file run later on the line still asks."""
    assert_not_allowed(engine, command)
    assert_allowed(engine, near)
