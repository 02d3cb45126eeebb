"""Unquoted expansions are split into words as the shell splits them.

`CMD="rm -rf /home"; $CMD` runs rm with two arguments; `rm${IFS}-rf${IFS}/` is three words;
an empty unquoted expansion vanishes. Quoted expansions stay one word.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.test_policy_shell import parse

SPLIT_INTO_A_COMMAND = [
    'CMD="rm -rf /home"; $CMD',
    "CMD='rm -rf ~'; $CMD",
    'X="-rf ~"; rm $X',
    "A=rm; B=-rf; C=~; $A $B $C",
    "export CMD='rm -rf ~'; $CMD",
    "declare -x X='rm -rf ~'; $X",
    "local X='rm -rf ~' 2>/dev/null; $X",
    "CMD=$(echo rm -rf ~); $CMD",
    "CMD=`printf 'rm -rf ~'`; $CMD",
    "IFS=,; CMD=rm,-rf,/home; $CMD",
    "rm${IFS}-rf${IFS}~",
    "rm$IFS-rf$IFS/",
    "rm${IFS:0:1}-rf /",
    "mkfs${IFS}.ext4 /dev/sda",
    "E=; $E rm -rf ~",
    'P="sudo rm"; $P -rf /',
    "X='rm -rf'; sudo $X ~",
]

NEAR_MISSES = [
    'X="echo hello"; $X',
    "X=ls; $X -la",
    'CMD="git status"; $CMD',
    'MSG="rm -rf ~"; echo "$MSG"',
    "FILES='a.txt b.txt'; cat $FILES",
    'X="rm -rf ~"; printf "%s\\n" "$X"',
    "echo $IFSACONFIG",
    "OPTS='-la'; ls $OPTS",
]


@pytest.mark.parametrize("command", SPLIT_INTO_A_COMMAND)
def test_split_words_are_judged_as_the_command_they_make(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_quoted_or_harmless_expansions_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


def test_fields_follow_ifs_and_quotes() -> None:
    assert parse('X="a  b"; echo $X "$X"')[-1].argv == ("echo", "a", "b", "a  b")
    assert parse("X='a,b'; IFS=,; echo $X")[-1].argv == ("echo", "a", "b")
    assert parse('E=; echo $E "$E" x')[-1].argv == ("echo", "", "x")
    assert parse("X='1 2'; Y=$X; echo $Y")[-1].argv == ("echo", "1", "2")  # assignments are not split
