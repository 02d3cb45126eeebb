"""A `${...}` with an operator is not the variable's value.

`x=; ${x:-rm} -rf ~` runs rm: the defaulting operators (`:-`, `-`, `:=`, `=`, `:+`, `+`) are
expanded when the line makes them knowable; every other operator (`${x/ls/rm}`, `${!x}`,
`${x:1}`, `${x,,}`, `${x#x}`) gives a word known only at run time (fail closed). Before, each
of these was read as the plain variable (`ls`, `foo`...), and allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    "x=; ${x:-rm} -rf ~",
    "x=; ${x:=rm} -rf ~",
    "x=foo; ${x:+rm} -rf ~",
    "x=foo; ${x+rm} -rf ~",
    "x=ls; ${x/ls/rm} -rf ~",
    "x=lsrm; ${x//ls/} -rf ~",
    "y=rm; x=y; ${!x} -rf ~",
    "x=RM; ${x,,} -rf ~",
    "x=xrm; ${x#x} -rf ~",
    "x=rmx; ${x%x} -rf ~",
    "x=arm; ${x:1} -rf ~",
    "d=; rm -rf ${d:-~}",
    "x=; echo ${x:=rm} >/dev/null; $x -rf ~",
]

NEAR_MISSES = [
    "x=ls; ${x:-rm} -la",
    "x=ls; ${x} -la",
    "x=a.txt; cat ${x%.txt}.md",
    "echo ${HOME}",
    "echo ${#x}",
    "X=; echo ${X:-default}",
    "f=build; rm -rf ${f:-build}",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_an_operator_is_expanded_or_unknown(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_harmless_expansions_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize("payload", ["x=; ${x:-rm} -rf ~", "x=ls; ${x/ls/rm} -rf ~"])
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload)
