"""Shell functions run their body with the call's arguments.

`f() { gh "$@"; }; f auth token` runs `gh auth token`: the body is read again at each call with
the arguments as $1.., "$@" and "$*" (`set --` and `shift` set them too). A variable a body sets
is unknown after it (`local` keeps the old value; a branch may not run).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge, strictness
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    'f() { rm -rf "$@"; }; f ~',
    'f() { rm "$@"; }; f -rf /',
    "function g { bash -c \"$1\"; }; g 'rm -rf ~'",
    "g() ( sh -c \"$*\" ); g rm -rf '~'",
    'g() { f "$@"; }; f() { rm -rf "$@"; }; g ~',
    'f() { shift; rm "$@"; }; f x -rf ~',
    'set -- -rf ~; rm "$@"',
    "x=rm; f() { local x=ls; }; f; $x -rf ~",
    "f() { X=rm; }; f; $X -rf ~",
    'f()\n{\n  rm -rf "$1"\n}\nf ~',
    'f() { rm -rf "${@:1}"; }; f ~',
    'f() if true; then rm -rf "$1"; fi; f ~',
    'f() { for d; do rm -rf "$d"; done; }; f ~',
    'set -- ~; for d; do rm -rf "$d"; done',
    'f() { while [ $# -gt 0 ]; do rm -rf "$1"; shift; done; }; f ~',
    "eval 'f() { rm -rf \"$@\"; }'; f ~",
    'f() { rm -rf "$@"; }; c=f; $c ~',
]

ASK = [
    'f() { gh "$@"; }; f auth token',
    'f() { gh "${@}"; }; f auth token',
    "f(){ gh $*; }; f auth token",
    'f() ( gh "$@" ); f auth token',
    'f() { shift; gh "$@"; }; f x auth token',
    'set -- auth token; gh "$@"',
    'f() { git "$@"; }; f push --force origin main',
    'f() { git "$@"; }; f reset --hard',
    'f() { cat "$@"; }; f ~/.ssh/id_ed25519',
]

NEAR_MISSES = [
    'f() { echo "$@"; }; f rm -rf ~',
    'f() { ls "$@"; }; f -la',
    'f() { git "$@"; }; f status',
    'f() { f "$@"; }; f x',
    "set -e; set -o pipefail; ls",
    'greet() { printf "hi %s\\n" "$1"; }; greet rm',
]


@pytest.mark.parametrize("command", HARDLINE)
def test_a_function_call_is_judged_as_its_body_with_its_arguments(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", ASK)
def test_a_dangerous_call_through_a_function_is_not_allowed(engine: Engine, command: str) -> None:
    assert strictness(judge(engine, command)) >= strictness(judge(engine, "gh auth token")), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_harmless_functions_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


HARM = ['f() { rm -rf "$@"; }; f ~', 'f() { cat "$@"; }; f ~/.ssh/id_ed25519']


@pytest.mark.parametrize("payload", HARM)
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload, shell="/bin/sh")
