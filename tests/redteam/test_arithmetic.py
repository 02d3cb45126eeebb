"""Arithmetic evaluation runs the command substitutions in what it evaluates.

bash evaluates `let` words, `(( ))`, `$(( ))`, `[[ A -eq B ]]`, `declare -i` values and array
subscripts (`${a[x]}`, and the variable names `read`, `printf -v`, `mapfile`, `unset` and
`[[ -v ]]` take) as arithmetic, and a variable named there is evaluated again: a subscript in
it runs its `$(...)`. `x='a[$(rm -rf ~)]'; echo $((x))` deletes the home; so does
`let 'a[$(rm -rf ~)]'`, whose quotes keep the substitution from the parser. Each was allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    "let 'a[$(rm -rf ~)]'",
    "x='a[$(rm -rf ~)]'; echo $((x))",
    "x='a[$(rm -rf ~)]'; (( x ))",
    "x='a[$(rm -rf ~)]'; [[ $x -eq 1 ]]",
    "x='a[$(rm -rf ~)]'; y=x; (( y + 1 ))",
    "declare -i n='a[$(rm -rf ~)]'",
    "printf -v 'a[$(rm -rf ~)]' x",
    "read 'a[$(rm -rf ~)]' <<< x",
    "unset 'a[$(rm -rf ~)]'",
    "x='a[$(rm -rf ~)]'; echo ${y[x]}",
    "x='a[`rm -rf ~`]'; let x",
    "mapfile -t 'a[$(rm -rf ~)]' < /dev/null",
    "[[ -v 'a[$(rm -rf ~)]' ]]",
]

NEAR_MISSES = [
    "let i=i+1",
    "(( i++ ))",
    "x=5; echo $((x * 2))",
    "[[ $n -eq 1 ]] && echo one",
    "read -p 'Continue [y/N]? ' ans",
    "declare -a arr=(1 2 3); echo ${arr[1]}",
    "x='$(rm -rf ~)'; echo \"$x\"",
    "for ((i=0;i<3;i++)); do echo $i; done",
    "a=b; b=c; c=3; echo $((a + 1))",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_what_arithmetic_evaluates_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_plain_arithmetic_stays_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize(
    "payload", ["let 'a[$(rm -rf ~)]'", "x='a[$(rm -rf ~)]'; echo $((x))", "x='a[$(rm -rf ~)]'; [[ $x -eq 1 ]]"]
)
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload)
