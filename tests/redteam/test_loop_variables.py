"""A loop's variable takes each word of its list: `for d in ~; do rm -rf "$d"; done` is `rm -rf ~`.

It was only an ask (the body read with the variable unknown); the body is now read again with
each literal value (the first 16), as well as unknown.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    'for d in ~; do rm -rf "$d"; done',
    'for d in ~/*; do rm -rf "$d"; done',
    "select d in ~; do rm -rf $d; done",
    "for f in a b ~; do rm -rf $f; done",
    "for c in rm; do $c -rf ~; done",
    "for x in a; do for y in ~; do rm -rf $y; done; done",
    "for d in ~\ndo\n  rm -rf $d\ndone",
]

NEAR_MISSES = ["for i in 1 2 3; do echo $i; done", 'for f in *.log; do gzip "$f"; done']


@pytest.mark.parametrize("command", HARDLINE)
def test_a_loop_body_is_judged_with_each_value(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_loops_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


def test_the_payload_is_live_and_the_engine_stops_it(tmp_path: Path, work_engine: Engine, fake_home: Path) -> None:
    payload = 'for d in ~; do rm -rf "$d"; done'
    live_then_stopped(tmp_path, work_engine, fake_home, payload)
