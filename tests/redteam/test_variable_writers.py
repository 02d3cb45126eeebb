"""Builtins that give a variable a new value (found by rt10): the analyzer kept the literal the
line assigned before, so `d=x; read d <<< ~; rm -rf "$d"` was judged as `rm -rf x` (allowed)
while bash deletes the home. A variable such a builtin names is now known only at run time."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

WRITTEN_AGAIN = [
    'X=a; unset X; rm -rf "$X"/*',
    'd=x; read d <<< ~; rm -rf "$d"',
    'd=x; builtin read d <<< ~; rm -rf "$d"',
    'd=x; read -r d < <(echo ~); rm -rf "$d"',
    'd=x; if true; then read d <<< ~; fi; rm -rf "$d"',
    'd=x; printf -v d %s "$HOME"; rm -rf "$d"',
    'd=x; mapfile -t d <<< ~; rm -rf "$d"',
    'd=x; readarray -t d <<< ~; rm -rf "$d"',
    'd=x; for d in ~; do :; done; rm -rf "$d"',
    'd=x; f() { read d <<< ~; }; f; rm -rf "$d"',
    "c=ls; read c <<< rm; $c -rf ~",
    "c='echo hi'; read -r c <<< 'rm -rf ~'; eval \"$c\"",
]

NEAR_MISSES = ['d=build; rm -rf "$d"', 'read -r name; echo "$name"', "X=a; unset X; echo $X", "printf '%s\\n' hi"]


@pytest.mark.parametrize("command", WRITTEN_AGAIN)
def test_a_variable_a_builtin_wrote_is_not_the_literal_assigned_before(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_reads_and_assignments_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize("payload", ['d=x; read d <<< ~; rm -rf "$d"', 'd=x; for d in ~; do :; done; rm -rf "$d"'])
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload)
