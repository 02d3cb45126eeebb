"""Aliases and functions named like builtins, name references, and what a function body sets.

bash looks a command word up as an alias first (when it reads the line, the word unquoted), then
as a function, then as a builtin: `alias cd='rm -rf'` then `cd ~`, and `cd() { rm -rf "$@"; }; cd ~`,
delete home, where the analyzer only followed the builtin cd (rt10). `builtin cd`, `command cd`
skip the function; `\\cd` and `'cd'` skip the alias (not the function). An alias is read live
whether or not the shell expands aliases (an interactive one does; the engine cannot tell), in the
shell it was defined in (not in a `bash -c` it starts). `declare -n r=d; r=~` sets d; a function
call sets the variables its body sets (not its `local` ones); a command that may not run
(`false && d=x`) leaves what it sets unknown.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge, strictness
from tests.redteam.harm import live_then_stopped

# Every builtin the analyzer models, and reserved words: an alias of that name runs its text.
_ALIASED = [
    "cd", "set", "read", "export", "pushd", "popd", "unset", "declare", "local", "shift", "eval",
    "source", ".", "exec", "command", "builtin", "let", "printf", "mapfile", "test", "[", "alias",
    "if", "while", "{", "!", "time",
]  # fmt: skip

HARDLINE = [
    *(f"shopt -s expand_aliases\nalias {name}='rm -rf'\n{name} ~" for name in _ALIASED),
    "alias cd='rm -rf'; cd ~",
    "alias cd='rm -rf'; X=1 cd ~",
    "alias cd='rm -rf'\ntime cd ~",
    "alias cd='rm -rf'\ntime -p cd ~",
    "alias cd='rm -rf'\n! cd ~",
    "alias s='sudo '; alias cd='rm -rf'; s cd ~",  # a text ending in a blank: the next word too
    "alias t='time '\nalias cd='rm -rf'\nt cd ~",
    "alias a=b; alias b='rm -rf'; a ~",
    "alias cd='true; rm -rf'; cd ~",
    "alias x='f() { rm -rf \"$@\"; }; f'; x ~",
    "alias x='for d in ~; do rm -rf $d; done'; x",
    "eval \"alias cd='rm -rf'\"; cd ~",
    "echo \"alias cd='rm -rf'\" > a.sh; . ./a.sh; cd ~",
    "alias cd='rm -rf'; unalias cd; cd ~",  # bash expanded cd when it read the line
    'f() { rm -rf "$@"; }; alias g=f; g ~',
    'cd() { rm -rf "$@"; }; cd ~',
    'set() { rm -rf "$2"; }; set -- ~',
    'test() { rm -rf "$@"; }; test ~',
    '[() { rm -rf "$1"; }; [ ~ ]',
    'function cd { rm -rf "$@"; }; cd ~',
    'cd () { rm -rf "$@"; }; cd ~',
    'cd() { rm -rf "$@"; }; \\cd ~',
    "cd() { rm -rf \"$@\"; }; 'cd' ~",
    'export() { rm -rf "$@"; }; export ~',
    'eval() { rm -rf "$@"; }; eval ~',
    'pushd() { rm -rf "$@"; }; pushd ~',
    'f() { rm -rf "$@"; }; time f ~',
    'd=x; declare -n r=d; r=~; rm -rf "$d"',
    'd=x; typeset -n r=d; r=~; rm -rf "$d"',
    'd=~; declare -n r=d; rm -rf "$r"',
    'declare -n r=d; d=~; rm -rf "$r"',
    'd=x; declare -n r; r=d; r=~; rm -rf "$d"',
    'd=x; declare -n r=d; declare r=~; rm -rf "$d"',
    'f() { local -n r=$1; r=~; }; d=x; f d; rm -rf "$d"',
    'f() { a=$1; }; f ~; rm -rf "$a"',
    'd=x; f() { d=~; }; f; rm -rf "$d"',
    "f() { export TAR_OPTIONS='\"--to-command=rm -rf ~\"'; }; f; tar xf a.tar",
    'f() { local x=a; d=$1; }; f ~; rm -rf "$d"',
    'set -- ~ a; shift -- 0; rm -rf "$1"',
    'f() { rm -rf "${@: -1}"; }; f a ~',
    'f() { rm -rf "${!#}"; }; f a ~',
    'f() { rm -rf "${@:$#}"; }; f a ~',
    'f() { rm -rf "${@:$# - 1:1}"; }; f ~ a',
    'f() { shift $(( $# - 1 )); rm -rf "$1"; }; f a ~',
    'set -- a ~; rm -rf "${@: -1}"',
    "f() { rm -rf $1/; }; f",
    'f() { rm -rf "${1:-/}"; }; f',
    'f() { rm -rf "${1-/}"; }; f',
    'f() { rm -rf "${1:-$HOME}"; }; f',
    'f() { rm -rf "${2:-~}"; }; f a',
    'f() { rm -rf "${1:+$HOME}"; }; f a',
    "set -- a; rm -rf $2/*",
    # the shell's other tables of names: a command path, an alias array, a function a child imports
    "hash -p /bin/rm ls; ls -rf ~",
    "hash -p /bin/rm ls; 'ls' -rf ~",
    "hash -p /bin/rm ls; c=ls; $c -rf ~",
    "BASH_CMDS[ls]=/bin/rm; ls -rf ~",
    "shopt -s expand_aliases\nBASH_ALIASES[cd]='rm -rf'\ncd ~",
    "env 'BASH_FUNC_f%%=() { rm -rf ~; }' bash -c f",
    "env 'BASH_FUNC_cd%%=() { rm -rf \"$@\"; }' bash -c 'cd ~'",
    'command_not_found_handle() { rm -rf "$3"; }; nosuchcommand x ~',
]

# Each may or may not run what it names: never allowed.
NOT_ALLOWED = [
    'd=~; false && d=x; rm -rf "$d"',
    'd=~; true || d=x; rm -rf "$d"',
    'd=~; d=x | cat; rm -rf "$d"',
    'd=~; f() { d=x; }; false && f; rm -rf "$d"',
    'd=~; f() { false && d=x; }; f; rm -rf "$d"',
    'd=~; declare -n r=$1; r=x; rm -rf "$d"',
    'alias cd="$X"; cd ~',
    'alias "$X"; cd ~',
    'd=~; f() { d=x; }; f() { :; }; f; rm -rf "$d"',  # the second body runs
    "BASH_ALIASES=([cd]='rm -rf'); cd ~",
]

# What runs is the first command, not an alias or a function: judged as it.
SAME_AS = [
    ("shopt -s expand_aliases\nalias cd='rm -rf'\nbuiltin cd ~", "builtin cd ~"),
    ("shopt -s expand_aliases\nalias cd='rm -rf'\ncommand cd ~", "command cd ~"),
    ("shopt -s expand_aliases\nalias cd='rm -rf'\n\\cd ~", "cd ~"),
    ("shopt -s expand_aliases\nalias cd='rm -rf'\n'cd' ~", "cd ~"),
    ("alias cd='rm -rf'; bash -c 'cd ~'", "bash -c 'cd ~'"),
    ("alias cd='rm -rf'; sudo cd ~", "sudo cd ~"),
    ("alias x='rm -rf'; echo x ~", "echo x ~"),
    ('cd() { builtin cd "$@" && ls; }; cd src; rm -rf build', "cd src; ls; rm -rf build"),
]

NEAR_MISSES = [
    "alias ll='ls -l'; ll",
    "alias ll='ls -l'\nll src",
    "alias gs='git status'; gs",
    "alias ls='ls --color=auto'; ls -la",
    "alias ..='cd ..'; ..",
    'cd() { builtin cd "$@" && ls; }; cd src',
    'pushd() { command pushd "$@" > /dev/null; }; pushd src; ls',
    'f() { local x=$1; echo "$x"; }; f ~',
    'f() { a=$1; }; f build; rm -rf "$a"',
    'x=1; [ -n "$y" ] && x=2; echo $x',
    'declare -n r=d; r=hello; echo "$d"',
    'd=build; declare -n r=d; rm -rf "$r"',
    'set -- a b; shift -- 1; echo "$1"',
    'set -- a ~; echo "${@: -1}"',
    'f() { ls "${@: -1}"; }; f a ~',
    'f() { echo "${1:-default}"; }; f',
    'f() { ls "${1:-.}"; }; f',
    "if true; then ls; fi",
    "hash -p /usr/bin/git g; g status",
    "hash ls; ls",
    "env 'BASH_FUNC_f%%=() { ls; }' bash -c f",
    'command_not_found_handle() { echo "no $1" >&2; }; ls',
]


@pytest.mark.parametrize("command", HARDLINE)
def test_what_bash_runs_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NOT_ALLOWED)
def test_what_may_or_may_not_run_is_not_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize(("command", "runs"), SAME_AS)
def test_a_skipped_alias_or_function_is_no_harm(engine: Engine, command: str, runs: str) -> None:
    assert strictness(judge(engine, command)) == strictness(judge(engine, runs)), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_aliases_and_functions_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


HARM = [
    "shopt -s expand_aliases\nalias cd='rm -rf'\ncd ~",
    "shopt -s expand_aliases\nalias export='rm -rf'\nexport ~",
    'cd() { rm -rf "$@"; }; cd ~',
    'd=x; declare -n r=d; r=~; rm -rf "$d"',
    'f() { a=$1; }; f ~; rm -rf "$a"',
    'd=~; false && d=x; rm -rf "$d"',
    'f() { rm -rf "${@: -1}"; }; f a ~',
    'f() { rm -rf "${1:-$HOME}"; }; f',
    "hash -p /bin/rm ls; ls -rf ~",
    "env 'BASH_FUNC_f%%=() { rm -rf ~; }' bash -c f",
    'command_not_found_handle() { rm -rf "$3"; }; nosuchcommand x ~',
]


@pytest.mark.parametrize("payload", HARM)
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload)
