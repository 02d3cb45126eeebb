"""What a variable holds where the line uses it: `${…}` operators, arrays, unset, read, loops, $PWD.

Found by rt10 (stop 21): each payload ran hardline-class harm in bash (`rm -rf ~`, `rm -rf /*`,
`rm -rf /etc`) and was a grantable ask, or allowed, because the analyzer took the value for
unknown or kept a stale one. Now:

- a variable the line never set may be unset: `${x:-~}` is read both ways (x's unknown value,
  and the default ~), the strictest reading wins; `: ${x:=~}` carries the default on;
- string operators on known values are evaluated (`${x,,}`, `${x%X}`, `${x/%e/c}`, `${x:3}`,
  `${!x}`, `${x@P}` …), or known only at run time when uncertain (a glob bash evaluates otherwise);
- arrays, `unset` (empty), `read`/`mapfile` from a literal input, a loop's variable after it,
  `declare -i/-l/-u`, `let`, and `$PWD`/`$OLDPWD` after `cd` have their values.

Near misses (the same shapes, harmless) stay allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge, strictness
from tests.redteam.harm import live_then_stopped, run_confined

HARDLINE = [
    # defaults of variables the line never sets
    "rm -rf ${x:-~}",
    'rm -rf "${x:-$HOME}"',
    "rm -rf ${x:-/}",
    ": ${x:=~}; rm -rf $x",
    "rm -rf ${x:-${y:-~}}",
    'rm -rf "${x:-$(echo ~)}"',
    "rm -rf ${HOME:?}",
    "rm -rf ${HOME:+$HOME}",
    "rm -rf ${x+/}",
    "x=$(true); rm -rf ${x:-~}",
    # string operators on known values
    'x=/ETC; rm -rf "${x,,}"',
    'x=/etcX; rm -rf "${x%X}"',
    'x=/etcX; rm -rf "${x%[X]}"',
    'x=/ete; rm -rf "${x/%e/c}"',
    "x='abc/'; rm -rf \"${x:3}\"",
    'd=x; rm -rf "${d%x}"/*',
    'd=x; rm -rf "${d/x/$HOME}"',
    'x=HOME; rm -rf "${!x}"',
    "x='$HOME'; rm -rf \"${x@P}\"",
    'd=build; d=${d%build}; rm -rf ~/"$d"',
    'for d in a; do :; done; rm -rf ~/"${d:1}"',
    'i=0; rm -rf ~/"${i#0}"',
    # attributes and arithmetic
    'd=build; declare -i d=0; rm -rf ~/"${d%0}"',
    'declare -i d; d=1-1; rm -rf ~/"${d%0}"',
    "declare -l x=/ETC; rm -rf $x",
    'let x=1-1; rm -rf ~/"${x//0}"',
    'x=1; (( x = 0 )); rm -rf ~/"${x#0}"',
    "readonly X=/etc; X=build; rm -rf $X",
    'declare -i d; read d <<< 1-1; rm -rf ~/"${d%0}"',
    'declare -i d; for d in 1-1; do :; done; rm -rf ~/"${d%0}"',
    'declare -i d; : ${d:=1-1}; rm -rf ~/"${d%0}"',
    # arrays
    'a=(x ~); rm -rf "${a[1]}"',
    'a=(x ~); rm -rf "${a[@]}"',
    'a=(x ~); rm -rf "${a[-1]}"',
    'a=(x); a+=(~); rm -rf "${a[1]}"',
    'a=(x build); a[1]=~; rm -rf "${a[1]}"',
    'declare -a a=(x ~); rm -rf "${a[1]}"',
    # unset: empty
    'X=a; unset X; rm -rf "$X"/*',
    "unset X; rm -rf $X/etc",
    'd=build; unset d; rm -rf ~/"$d"',
    "readonly X=/etc; unset X; rm -rf $X",
    # read / mapfile / printf -v
    'd=x; read d <<< ~; rm -rf "$d"',
    'd=x; read -r d <<< /; rm -rf "$d"/*',
    'd=x; read d < <(echo ~); rm -rf "$d"',
    'd=x; exec 3<<< ~; read -u 3 d; rm -rf "$d"',
    'd=x; if read d <<< ~; then rm -rf "$d"; fi',
    'd=x; mapfile -t d <<< ~; rm -rf "$d"',
    'd=x; printf -v d %s "$HOME"; rm -rf "$d"',
    'd=x; builtin printf -v d %s ~; rm -rf "$d"',
    "d=build; read -r d <<< ''; rm -rf \"$HOME/$d\"",
    # loops
    'd=x; for d in ~; do :; done; rm -rf "$d"',
    'for d in a b ~; do :; done; rm -rf "$d"',
    'd=x; while read d; do break; done <<< ~; rm -rf "$d"',
    'd=x; select d in ~; do break; done <<< 1; rm -rf "$d"',
    'echo ~ | while read d; do rm -rf "$d"; done',
    'while read d; do rm -rf "$d"; done <<< ~',
    "printf '%s\\n' build ~ | while read d; do rm -rf \"$d\"; done",
    "d=/etc; echo build | while read d; do :; done; rm -rf $d",
    "for d in ~ x; do break; done; rm -rf $d",
    'for d in ~ x; do $(echo YnJlYWs= | base64 -d); done; rm -rf "$d"',  # an encoded break
    'f() { break; }; for d in ~ x; do f; done; rm -rf "$d"',
    "for d in x ~; do break; done; : ${a:-} ${b:-}; rm -rf $d",
    # $PWD / $OLDPWD
    'cd ~ && rm -rf "$PWD"',
    'cd ~; cd /tmp; rm -rf "$OLDPWD"',
    "unset PWD; rm -rf $PWD/etc",
    "unset P''WD; rm -rf $PWD/etc",
    "read PWD <<< /; rm -rf $PWD/etc",
    "PWD=/; rm -rf $PWD/etc",
    "n=PWD; unset $n; rm -rf $PWD/etc",
    # what a child process, a subshell, a branch or a command's own NAME=VALUE did does not last
    "x=/etc; bash -c 'x=build'; rm -rf $x",
    "x=/etc; y=$(x=build); rm -rf $x",
    "x=/etc; (x=build); rm -rf $x",
    "x=/etc; false && x=build; rm -rf $x",
    "x=/etc; x=build true; rm -rf $x",
    "x=/etc; if false; then x=build; fi; rm -rf $x",
    "x=/etc; true || export x=build; rm -rf $x",
    "x=/etc; x=build :; rm -rf $x",
    # a stale literal in command position (fixed at the end of stop 21)
    "c=ls; read c <<< rm; $c -rf ~",
    "c=ls; unset c; ${c:-rm} -rf ~",
    "c=ls; for c in rm; do :; done; $c -rf ~",
    "c='echo hi'; read -r c <<< 'rm -rf ~'; eval \"$c\"",
    "c='echo hi'; mapfile -t c <<< 'rm -rf ~'; bash -c \"$c\"",
]

# Not certain: never a literal, never allowed (a wrong literal would turn harm into `allow`).
NOT_ALLOWED = [
    "declare -n r=PWD; r=/; rm -rf $PWD/etc",
    "read PWD; rm -rf $PWD/etc",
    'unset "$n"; rm -rf $PWD/etc',
    'd=$PWD; cd /tmp; rm -rf "$d"',
    'x=/etcX; rm -rf "${x%+(X)}"',
    'x=/etcXY; rm -rf "${x%[[:upper:]]*}"',
    'x=ABC; rm -rf "${x/b/z}"',
    "rm -rf ${HOME%/*}",
    'x=1; : $((x=0)); rm -rf ~/"${x#1}"',
    'i=build; let i++; rm -rf ~/"$i"',
    "X=/etc; unset -f X; rm -rf $X",
    'X=build; n=X; declare -n r=$n; r=/; rm -rf "$X"',
    "set -- /etc b; rm -rf ${@:1:1}",  # a slice of the arguments, not of their joined text
    "a=(/etc b); rm -rf ${a[@]:0:1}",
    'env -C "$(mktemp -d)" rm -rf "$PWD/.git"',  # $PWD is where the shell is, not where env goes
    'd=build; while read d; do :; done <<< build; rm -rf ~/"$d"',  # the last read empties d
]

NEAR_MISSES = [
    "x=build && rm -rf $x",
    "cd src && X=1 make",
    "[ -d build ] && d=build; echo $d",
    'for d in ~ x; do :; done; rm -rf "$d"',  # after the loop d is x
    "for i in 1 2 3 4 5 6; do for j in a b c d e f; do echo $i$j; done; done",
    "echo ${PORT:-8080} ${PORT:-8080} ${HOST:-localhost}",
    'for d in build dist; do rm -rf "$d"; done',
    'a=(build dist); rm -rf "${a[@]}"',
    'rm -rf "${PWD}/build"',
    'rm -rf "$PWD/dist"',
    "docker run -v $PWD/hl:/h alpine ls",
    'cd /tmp && rm -rf "$PWD"/x',
    'x=build; rm -rf "${x%/}"',
    'x=build.tar.gz; rm -f "${x%%.*}.log"',
    'x=Build; rm -rf "${x,,}"',
    'x=abc; echo "${x^^}" "${#x}" "${x:1:1}"',
    'x=bete; rm -rf "${x/e/c}"',  # bcte: bash replaces the first e
    'a=(x ~); a[1]=build; rm -rf "${a[1]}"',
    'read -r d <<< build; rm -rf "$d"',
    "while read -r f; do rm -f \"$f\"; done <<< 'a.o'",
]

ASKED_NOT_HARDLINE = [
    'rm -rf "${DIR:?}"/*',  # the shell stops when DIR is unset: no `rm -rf /*` reading
]


@pytest.mark.parametrize("command", HARDLINE)
def test_the_value_is_known_and_hardline(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NOT_ALLOWED)
def test_an_uncertain_value_is_never_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_harmless_values_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize("command", ASKED_NOT_HARDLINE)
def test_the_error_operator_has_no_unset_reading(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "ask" and not verdict.hardline, command


LIVE = [
    "rm -rf ${x:-~}",  # defaults
    'x=HOME; rm -rf "${!x}"',  # operators
    'a=(x ~); rm -rf "${a[1]}"',  # arrays
    'd=x; read d <<< ~; rm -rf "$d"',  # read
    'for d in a b ~; do :; done; rm -rf "$d"',  # loops
    'cd ~ && rm -rf "$PWD"',  # $PWD
]


@pytest.mark.parametrize("payload", LIVE)
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload)


@pytest.mark.parametrize(
    "payload", ['d=build; unset d; rm -rf ~/"$d"', 'd=build; while read d; do :; done <<< build; rm -rf ~/"$d"']
)
def test_an_emptied_variable_deletes_home_unguarded(tmp_path: Path, payload: str) -> None:
    """bash empties the variable (the engine now reads it so): the fake home goes."""
    home, _, _ = run_confined(tmp_path, payload)
    assert not home.exists(), payload


def test_pwd_reads_as_the_working_directory(tmp_path: Path, work: Path, work_engine: Engine, fake_home: Path) -> None:
    """`$PWD/hl` is `./hl`: a folder linked to the home is judged alike (rt9: `-v $PWD/hl:/h` was
    allowed while `-v ./hl:/h` asked)."""
    (work / "hl").symlink_to(fake_home)
    for command in ("docker run -v $PWD/hl:/h alpine ls", 'docker run -v "$PWD"/hl:/h alpine ls'):
        spelled = command.replace("$PWD", ".").replace('"."', ".")
        assert strictness(judge(work_engine, command)) == strictness(judge(work_engine, spelled)), command
        assert judge(work_engine, command).decision != "allow", command
    assert judge(work_engine, "rm -rf $PWD/hl/").hardline


# $PWD the line made empty or gave another value: bash runs `rm -rf /etc` (merge of sec2 with
# sec1/sec3; a leading $PWD read as "." for every spelling reopened these)
PWD_UNSET = [
    "unset PWD; rm -rf $PWD/etc",
    'unset PWD; rm -rf "${PWD}/etc"',
    "read PWD <<< /; rm -rf $PWD/etc",
    "f() { unset PWD; }; f; rm -rf $PWD/etc",
    'unset P""WD; rm -rf $PWD/etc',
    "x=PWD; unset $x; rm -rf $PWD/etc",
    'eval "unset PWD"; rm -rf $PWD/etc',
]


@pytest.mark.parametrize("command", PWD_UNSET)
def test_a_pwd_the_line_changed_is_not_the_working_directory(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


def test_a_pwd_the_line_did_not_change_is_the_working_directory(engine: Engine) -> None:
    assert judge(engine, 'rm -rf "$PWD/build"').decision == "allow"
