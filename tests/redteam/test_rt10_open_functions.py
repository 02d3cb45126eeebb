"""rt10 red team (stop 21, triaged stop 22): open misses against
aliases and functions named like builtins, namerefs, function positionals.

Each payload is hardline-class harm (bash runs `rm -rf ~`, `rm -rf /*` or a home-deleting hook).
Strict xfails: a fix turns one into a pass, and then the entry moves out of the xfail list into
an ordinary assertion (tests/redteam/test_*.py of the family).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import run_confined

# today: allow (or an ask after stop 21's fix); harm is hardline-class
ALLOWED: list[tuple[str, str]] = []

# today: a grantable ask (or an ask after stop 21's fix); harm is hardline-class
# (merge of sec2's value model: the rest are ordinary assertions below)
ASKED: list[tuple[str, str]] = []

# fixed by sec2's value model merged with sec1's functions (read from literal input, ${!N})
FIXED: list[tuple[str, str]] = [
    ('d=x; f() { read d <<< ~; }; f; rm -rf "$d"', "a function body's read sets the global d"),
    ('f() { local x; read x <<< "$1"; rm -rf "$x"; }; f ~', "read inside the body"),
    ('set -- a ~; i=2; rm -rf "${!i}"', "an indirect positional"),
]


@pytest.mark.parametrize(("command", "why"), ALLOWED + ASKED)
@pytest.mark.xfail(strict=True, reason="rt10: not a hardline deny today; bash runs hardline-class harm")
def test_rt10_miss(engine: Engine, command: str, why: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), why


@pytest.mark.parametrize(("command", "why"), FIXED)
def test_rt10_fixed(engine: Engine, command: str, why: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), why


LIVE = ['d=x; f() { read d <<< ~; }; f; rm -rf "$d"']


@pytest.mark.parametrize("payload", LIVE)
def test_rt10_payloads_are_live(tmp_path: Path, payload: str) -> None:
    """The payloads delete a fake home under a real bash (HOME and cwd under tmp_path)."""
    assert payload in dict(ALLOWED + ASKED + FIXED)
    home, _, _ = run_confined(tmp_path, payload)
    assert not home.exists(), payload
