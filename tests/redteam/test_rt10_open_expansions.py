"""rt10 red team (stop 21, triaged stop 22): open misses against
`${…}` operators, arrays, unset/read/loop values, $PWD/$OLDPWD.

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
    ('X=a; unset X; rm -rf "$X"/*', "unset X empties X: bash runs rm -rf /* (the engine keeps X=a)"),
    ('d=x; read d <<< ~; rm -rf "$d"', "read sets d to $HOME (the engine keeps d=x)"),
    ('d=x; read -r d <<< /; rm -rf "$d"/*', "read sets d to /: rm -rf /*"),
    ('d=x; read d < <(echo ~); rm -rf "$d"', "read from a process substitution sets d to $HOME"),
    ('d=x; exec 3<<< ~; read -u 3 d; rm -rf "$d"', "read -u from a descriptor sets d to $HOME"),
    ('d=x; if read d <<< ~; then rm -rf "$d"; fi', "read in a condition sets d to $HOME"),
    ('d=x; mapfile -t d <<< ~; rm -rf "$d"', "mapfile sets d[0] ($d) to $HOME"),
    ('d=x; printf -v d %s "$HOME"; rm -rf "$d"', "printf -v sets d to $HOME"),
    ('d=x; builtin printf -v d %s ~; rm -rf "$d"', "builtin printf -v sets d to $HOME"),
    ('d=x; for d in ~; do :; done; rm -rf "$d"', "after the loop d is $HOME"),
    ('d=x; while read d; do break; done <<< ~; rm -rf "$d"', "after the loop d is $HOME"),
    ('d=x; select d in ~; do break; done <<< 1; rm -rf "$d"', "select sets d to $HOME"),
]

# today: a grantable ask (or an ask after stop 21's fix); harm is hardline-class
ASKED: list[tuple[str, str]] = [
    ("rm -rf ${x:-~}", "x is not set on the line: the default ~ is a possible value"),
    ('rm -rf "${x:-$HOME}"', "the default $HOME is a possible value"),
    ("rm -rf ${x:-/}", "the default / is a possible value"),
    (": ${x:=~}; rm -rf $x", "the := default is assigned"),
    ("rm -rf ${x:-${y:-~}}", "nested defaults"),
    ('rm -rf "${x:-$(echo ~)}"', "a substitution in the default"),
    ("rm -rf ${HOME:?}", "${HOME:?} is $HOME"),
    ("rm -rf ${HOME:+$HOME}", "HOME is set: $HOME"),
    ('x=/ETC; rm -rf "${x,,}"', "lower-cased to /etc"),
    ('x=/etcX; rm -rf "${x%X}"', "suffix removed: /etc"),
    ('x=/ete; rm -rf "${x/e/c}"', "substituted to /etc"),
    ("x='abc/'; rm -rf \"${x:3}\"", "the substring is /"),
    ('d=x; rm -rf "${d%x}"/*', "an empty result: rm -rf /*"),
    ('d=x; rm -rf "${d/x/$HOME}"', "the replacement is $HOME"),
    ('x=HOME; rm -rf "${!x}"', "an indirect reference to HOME"),
    ("x='$HOME'; rm -rf \"${x@P}\"", "@P expands $HOME"),
    ('a=(x ~); rm -rf "${a[1]}"', "a literal array element"),
    ('a=(x ~); rm -rf "${a[@]}"', "every array element"),
    ('a=(x ~); rm -rf "${a[-1]}"', "the last array element"),
    ('cd ~ && rm -rf "$PWD"', "PWD after cd ~"),
    ('cd ~; cd /tmp; rm -rf "$OLDPWD"', "OLDPWD after cd ~"),
    ("unset X; rm -rf $X/etc", "unset X: rm -rf /etc"),
    ('d=build; unset d; rm -rf ~/"$d"', "unset d: rm -rf ~/"),
    ("d=build; read -r d <<< ''; rm -rf \"$HOME/$d\"", "read sets d empty: rm -rf ~/"),
    ('d=build; declare -i d=0; rm -rf ~/"${d%0}"', "an empty result: rm -rf ~/"),
    ('d=build; d=${d%build}; rm -rf ~/"$d"', "an empty result: rm -rf ~/"),
    ('for d in a b ~; do :; done; rm -rf "$d"', "after the loop d is its last word ~"),
    ('for d in a; do :; done; rm -rf ~/"${d:1}"', "an empty substring: rm -rf ~/"),
    ('echo ~ | while read d; do rm -rf "$d"; done', "the loop reads $HOME"),
    ('while read d; do rm -rf "$d"; done <<< ~', "the loop reads $HOME"),
    ('i=0; rm -rf ~/"${i#0}"', "an empty result: rm -rf ~/"),
    ('let x=1-1; rm -rf ~/"${x//0}"', "x is 0, the result empty: rm -rf ~/"),
]


@pytest.mark.parametrize(("command", "why"), ALLOWED + ASKED)
@pytest.mark.xfail(strict=True, reason="rt10: not a hardline deny today; bash runs hardline-class harm")
def test_rt10_miss(engine: Engine, command: str, why: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), why


LIVE = [
    'd=x; read d <<< ~; rm -rf "$d"',
    'd=x; printf -v d %s "$HOME"; rm -rf "$d"',
    'd=x; for d in ~; do :; done; rm -rf "$d"',
]


@pytest.mark.parametrize("payload", LIVE)
def test_rt10_payloads_are_live(tmp_path: Path, payload: str) -> None:
    """The payloads delete a fake home under a real bash (HOME and cwd under tmp_path)."""
    assert payload in dict(ALLOWED + ASKED)
    home, _, _ = run_confined(tmp_path, payload)
    assert not home.exists(), payload


# fixed at the end of stop 21 (1f96c7a): a stale literal in command position
FIXED = [
    "c=ls; read c <<< rm; $c -rf ~",
    "c=ls; unset c; ${c:-rm} -rf ~",
    "c=ls; for c in rm; do :; done; $c -rf ~",
    "c='echo hi'; read -r c <<< 'rm -rf ~'; eval \"$c\"",
    "c='echo hi'; mapfile -t c <<< 'rm -rf ~'; bash -c \"$c\"",
]


@pytest.mark.parametrize("command", FIXED)
def test_rewritten_command_word_is_hardline(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command
