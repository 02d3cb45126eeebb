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
ALLOWED: list[tuple[str, str]] = [
    ('d=x; declare -n r=d; r=~; rm -rf "$d"', "assigning through a nameref sets d to $HOME"),
    ('d=x; f() { read d <<< ~; }; f; rm -rf "$d"', "a function body's read sets the global d"),
    ("shopt -s expand_aliases\nalias cd='rm -rf'\ncd ~", "the alias makes cd ~ run rm -rf ~"),
    ("shopt -s expand_aliases\nalias set='rm -rf'\nset ~", "the alias makes set ~ run rm -rf ~"),
    ("shopt -s expand_aliases\nalias read='rm -rf'\nread ~", "the alias makes read ~ run rm -rf ~"),
    ("shopt -s expand_aliases\nalias export='rm -rf'\nexport ~", "the alias makes export ~ run rm -rf ~"),
]

# today: a grantable ask (or an ask after stop 21's fix); harm is hardline-class
ASKED: list[tuple[str, str]] = [
    ('f() { rm -rf "${@: -1}"; }; f a ~', "the last positional is ~"),
    ('f() { rm -rf "${!#}"; }; f a ~', "${!#} is the last positional"),
    ('f() { rm -rf "${@:$#}"; }; f a ~', "the slice from $# is the last positional"),
    ('f() { shift $(( $# - 1 )); rm -rf "$1"; }; f a ~', "an arithmetic shift"),
    ("f() { rm -rf $1/; }; f", "an empty $1 makes rm -rf /"),
    ('f() { rm -rf "${1:-/}"; }; f', "the default of an absent $1"),
    ('f() { rm -rf "${1:-$HOME}"; }; f', "the default of an absent $1"),
    ('f() { a=$1; }; f ~; rm -rf "$a"', "the body sets the global a to $HOME"),
    ('d=x; f() { d=~; }; f; rm -rf "$d"', "the body sets the global d to $HOME"),
    ('f() { local x; read x <<< "$1"; rm -rf "$x"; }; f ~', "read inside the body"),
    ('cd() { rm -rf "$@"; }; cd ~', "a function named cd shadows the builtin"),
    ('set() { rm -rf "$2"; }; set -- ~', "a function named set shadows the builtin"),
    ('test() { rm -rf "$@"; }; test ~', "a function named test shadows the builtin"),
    ('set -- ~ a; shift -- 0; rm -rf "$1"', "shift -- 0 shifts nothing"),
    ('set -- a ~; i=2; rm -rf "${!i}"', "an indirect positional"),
]


@pytest.mark.parametrize(("command", "why"), ALLOWED + ASKED)
@pytest.mark.xfail(strict=True, reason="rt10: not a hardline deny today; bash runs hardline-class harm")
def test_rt10_miss(engine: Engine, command: str, why: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), why


LIVE = ["shopt -s expand_aliases\nalias cd='rm -rf'\ncd ~"]


@pytest.mark.parametrize("payload", LIVE)
def test_rt10_payloads_are_live(tmp_path: Path, payload: str) -> None:
    """The payloads delete a fake home under a real bash (HOME and cwd under tmp_path)."""
    assert payload in dict(ALLOWED + ASKED)
    home, _, _ = run_confined(tmp_path, payload)
    assert not home.exists(), payload
