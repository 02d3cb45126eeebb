"""open35 (stop 35, issue 8): redt34's and exfil34's known-open cases, closed.

- POSITIONAL: a value spliced into a shell's text through a function's positional parameter was read as
  the word `$1`: `f() { sh -c "echo $1"; }; f "$(readlink l)"` ran `a;rm -rf ~`. A call's (or `set --`'s,
  a script's) argument whose word splices in a substitution's output or a value the line set marks its
  positional parameter so (Analyzer.spliced_args, read in the caller; `shift` keeps the mark), and
  Analyzer.spliced_code reads the mark: data runs (asks). `f "$USER"`, `f hello` stay allowed.
- INLINE: a value spliced into an interpreter's program text is parsed as that language's code
  (`python3 -c "print('$x')"` with x = `');import os;os.system('rm -rf ~');('`): follow._SPLICED_KINDS reads
  an inline program's text (`-c`, `-e`, awk's program) as a shell's is read (Follower._spliced). awk's
  pipes to a computed command (`awk -v c="$(cmd)" 'BEGIN{print | c}'`, `c | getline`, `print | $0`) were
  allowed: policies/exec.yaml inline_computed_call has a row for them (a literal's pipe stays read as
  the shell line it is).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, live_then_stopped, verdict_cases

P = "rm -rf ~"
L = "ln -s 'a;rm -rf ~' l; "  # a link whose target is the text a later command splices in
# a link whose target closes a quoted string of an interpreter's program and runs a command
PY = "ln -s \"');import os;os.system('rm -rf ~');('\" l; "

POSITIONAL: dict[str, Case] = {
    "sh -c $1": ({}, L + 'f() { sh -c "echo $1"; }; f "$(readlink l)"'),
    "eval $1": ({}, L + 'f() { eval "echo $1"; }; f "$(readlink l)"'),
    "bash -c $@": ({}, L + 'f() { bash -c "echo $@"; }; f "$(readlink l)"'),
    "$* with a second argument": ({}, L + 'f() { sh -c "echo $*"; }; f a "$(readlink l)"'),
    "${2}": ({}, L + 'f() { sh -c "echo ${2}"; }; f a "$(readlink l)"'),
    "after a shift": ({}, L + 'f() { shift; sh -c "echo $1"; }; f a "$(readlink l)"'),
    "a read value": ({}, 'read y; f() { bash -c "ls $1"; }; f "$y"'),
    "through two functions": ({}, L + 'g() { sh -c "echo $1"; }; f() { g "$1"; }; f "$(readlink l)"'),
    "set --": ({}, L + 'set -- "$(readlink l)"; sh -c "echo $1"'),
    "a local copy": ({}, L + 'f() { local v=$1; eval "echo $v"; }; f "$(readlink l)"'),
    "function keyword": ({}, L + 'function f { sh -c "echo $1"; }; f "$(readlink l)"'),
    "a script's $1": ({}, L + 'echo \'sh -c "echo $1"\' > x.sh; bash x.sh "$(readlink l)"'),
    "sh -c's own $1": ({}, L + 'sh -c \'eval "echo $1"\' _ "$(readlink l)"'),
    "a glob loop's name": ({}, f'touch \'x;{P}\'; f() {{ sh -c "echo $1"; }}; for w in *; do f "$w"; done'),
    "a substitution loop's value": ({}, 'f() { sh -c "echo $1"; }; for w in $(ls); do f "$w"; done'),
}

# A function defined inside a compound (`{ }`, `if`, a loop's body) is read at its definition only, with
# unknown arguments; its calls there are not read with theirs (_define_functions splits the compound):
# `{ f() { rm -rf "$1"; }; f ~; }` asks (outside the work tree) where `f() {...}; f ~` is denied.
POSITIONAL_OPEN: dict[str, Case] = {
    "defined in a loop's body": ({}, L + 'for w in a; do f() { sh -c "echo $1"; }; f "$(readlink l)"; done'),
    "defined in a group": ({}, L + '{ f() { sh -c "echo $1"; }; f "$(readlink l)"; }'),
    "defined in an if": ({}, L + 'if true; then f() { sh -c "echo $1"; }; fi; f "$(readlink l)"'),
}

POSITIONAL_NEAR: dict[str, Case] = {
    "a literal argument": ({}, 'f() { sh -c "echo $1"; }; f hello'),
    "an environment variable": ({}, 'f() { sh -c "echo $1"; }; f "$USER"'),
    "quoted as $1 of the inner shell": ({}, 'f() { sh -c \'echo "$1"\' _ "$1"; }; f "$(readlink l)"'),
    "no shell reads it": ({}, 'f() { echo "$1"; }; f "$(readlink l)"'),
    "the other argument": ({}, 'f() { sh -c "echo $2"; }; f "$(readlink l)" b'),
    "a known value later": ({}, 'f() { sh -c "ls $1"; }; x=src; f "$x"'),
    "set -- of words": ({}, 'set -- a b; sh -c "echo $1"'),
}

INLINE: dict[str, Case] = {
    "awk system of a spliced text": ({}, L + 'x=$(readlink l); awk "BEGIN{system(\\"echo $x\\")}"'),
    "python os.system": ({}, L + "x=$(readlink l); python3 -c \"import os; os.system('echo $x')\""),
    "python print closes the string": ({}, PY + "x=$(readlink l); python3 -c \"print('$x')\""),
    "python a substitution": ({}, PY + "python3 -c \"print('$(readlink l)')\""),
    "perl": ({}, "read x; perl -e \"print '$x'\""),
    "ruby": ({}, "read x; ruby -e \"puts '$x'\""),
    "node": ({}, "read x; node -e \"console.log('$x')\""),
    "php": ({}, L + "x=$(readlink l); php -r \"echo '$x';\""),
    "awk's pipe to -v": ({}, L + 'awk -v c="$(readlink l)" \'BEGIN{print "" | c}\''),
    "awk's getline from -v": ({}, L + "awk -v c=\"$(readlink l)\" 'BEGIN{while ((c | getline l) > 0) print l}'"),
    "gawk's coprocess": ({}, L + 'gawk -v c="$(readlink l)" \'BEGIN{print "x" |& c}\''),
    "awk's pipe to a field": ({}, f"echo '{P}' | awk '{{print \"\" | $0}}'"),
    "awk's computed getline": ({}, "awk '{ (\"wc -l \" $1) | getline n }' f"),
    "xargs -I{} python -c": ({}, "ls | xargs -I{} python3 -c \"print('{}')\""),
    "in a function": ({}, PY + 'f() { python3 -c "print(\'$1\')"; }; f "$(readlink l)"'),
}

INLINE_NEAR: dict[str, Case] = {
    "an environment variable": ({}, "python3 -c \"print('$HOME')\""),
    "awk fields": ({}, "awk '{print $1}' f"),
    "an escaped field": ({}, 'awk "{print \\$1}" f'),
    "a known column": ({}, 'n=3; awk "{print \\$$n}" f'),
    "a value as an argument": ({}, "python3 -c 'import sys; print(sys.argv[1])' \"$(readlink l)\""),
    "a value through -v": ({}, "awk -v n=\"$(wc -l < f)\" 'BEGIN{print n}'"),
    "awk's literal pipe": ({}, "awk '{print $1 | \"sort\"}' f"),
    "awk's literal getline": ({}, "awk 'BEGIN{while ((\"date\" | getline l) > 0) print l}'"),
    "awk's alternation": ({}, "awk '/a|b/ {print $2}' f"),
    "awk's | separator": ({}, "awk -F'|' '{print $1 \"|\" $2}' f"),
    "awk's or": ({}, "awk '{print ($1 || $2)}' f"),
}


@pytest.mark.parametrize(
    ("case", "allowed", "session"),
    verdict_cases({**POSITIONAL, **INLINE}, {**POSITIONAL_NEAR, **INLINE_NEAR}),
)
def test_spliced_values_reaching_code_are_judged(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.parametrize("case", list(POSITIONAL_OPEN.values()), ids=list(POSITIONAL_OPEN))
@pytest.mark.xfail(
    strict=True,
    reason="open35 open: a function defined inside a compound is read with unknown arguments only "
    "(_define_functions splits the compound; its calls there are not read with their arguments)",
)
def test_open_functions_defined_in_a_compound(plain_project: tuple[Path, Engine], case: Case) -> None:
    assert_verdict(plain_project, case, False, f"open-{case[1][:40]}")


HARM = {
    "a function's $1": L + 'f() { sh -c "echo $1"; }; f "$(readlink l)"',
    "a function's $1 into eval": L + 'f() { eval "echo $1"; }; f "$(readlink l)"',
    "set -- then sh -c": L + 'set -- "$(readlink l)"; sh -c "echo $1"',
    "python os.system": L + "x=$(readlink l); python3 -c \"import os; os.system('echo $x')\"",
    "python print": PY + "x=$(readlink l); python3 -c \"print('$x')\"",
    "awk system": L + 'x=$(readlink l); awk "BEGIN{system(\\"echo $x\\")}"',
    "awk's pipe to -v": L + 'awk -v c="$(readlink l)" \'BEGIN{print "" | c}\'',
    "awk's getline from -v": L + "awk -v c=\"$(readlink l)\" 'BEGIN{c | getline}'",
    "perl": PY.replace("import os;os.system(", "system(") + "x=$(readlink l); perl -e \"print('$x')\"",
}


@pytest.mark.parametrize("payload", list(HARM.values()), ids=list(HARM))
def test_spliced_code_does_not_run(tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str) -> None:
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, payload)
