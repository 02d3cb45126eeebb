"""rt12b red team (stop 23): a shell's own arguments are its payload's $0, $1….

`bash -c TEXT NAME A B` runs TEXT with $0=NAME, $1=A, $2=B; `bash -s A B` reads its commands
from stdin with $1=A, $2=B. The -c text was judged with its positional parameters unknown, so
`bash -c 'rm -rf "$1"' _ ~` was a grantable ask while a real bash deletes the home. The analyzer
now reads the text with those words as its parameters (the table's `positional: true`), as it
does a script's (`bash FILE ARGS`, rt12's run_script).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped, run_confined

PAYLOADS: list[tuple[str, str]] = [
    ("bash -c 'rm -rf \"$1\"' _ ~", "-c TEXT NAME ARG: $1"),
    ("sh -c 'rm -rf \"$1\"' _ ~", "sh"),
    ("dash -c 'rm -rf \"$1\"' _ ~", "dash"),
    ("bash -c 'rm -rf \"$0\"' ~", "$0 is the first word after the text"),
    ("bash -c 'rm -rf \"$2\"' -- a ~", "-- after the text is $0, not an end of options"),
    ("bash -c 'rm -rf \"$@\"' -- a ~", '"$@"'),
    ("bash -c 'rm -rf $*' _ ~", "$*"),
    ("bash -c 'for d; do rm -rf \"$d\"; done' _ build ~", "for with no list: the parameters"),
    ("bash -c 'shift; rm -rf \"$1\"' _ build ~", "shift"),
    ("bash -c -e 'rm -rf \"${1}\"' _ ~", "options between -c and the text, ${1}"),
    ("bash -s -- ~ <<'E'\nrm -rf \"$1\"\nE", "-s -- ARGS with a here-document"),
    ("bash -s ~ <<< 'rm -rf \"$1\"'", "-s ARGS with a here-string"),
    ("echo 'rm -rf \"$1\"' | sh -s ~", "-s ARGS reading a pipe"),
    ('x=~; bash -c \'rm -rf "$1"\' _ "$x"', "an argument the line set"),
    ('f() { bash -c \'rm -rf "$1"\' _ "$1"; }; f ~', "inside a function: the call's $1 passed on"),
    ('bash -c \'sh -c "rm -rf \\"\\$1\\"" _ "$1"\' _ ~', "passed down a second shell"),
]

# The same shapes doing ordinary work: they stay `allow`.
NEAR_MISSES = [
    "bash -c 'echo \"$1\"' _ ~",
    "sh -c 'rm -rf \"$1\"' _ build",
    "sh -c 'rm -rf \"$0\"' build",
    "bash -c 'rm -rf \"$1\"' -- build ~",
    "bash -c 'ls \"$@\"' _ ~ /tmp",
    "bash -s build <<< 'rm -rf \"$1\"'",
    "bash -c 'for f; do gzip -k \"$f\"; done' _ a.log b.log",
    "find build -name '*.o' -exec sh -c 'echo \"$1\"' _ {} \\;",
]


@pytest.mark.parametrize(("command", "why"), PAYLOADS)
def test_shell_positional_payload_is_a_hardline_deny(engine: Engine, command: str, why: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), why


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_shell_positional_near_miss_stays_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


def test_an_argument_known_only_at_run_time_stays_an_ask(engine: Engine) -> None:
    """`"$(cat f)"` as $1: unknown, so asked (as before), never allowed."""
    verdict = judge(engine, 'bash -c \'rm -rf "$1"\' _ "$(cat f)"')
    assert verdict.decision != "allow"


def test_the_line_keeps_its_own_parameters_after(engine: Engine) -> None:
    """The -c text's parameters are its own: after it, the line's `set --` ones are back."""
    verdict = judge(engine, 'set -- build; bash -c \'echo "$1"\' _ ~; rm -rf "$1"')
    assert verdict.decision == "allow"
    verdict = judge(engine, 'set -- ~; bash -c \'echo "$1"\' _ build; rm -rf "$1"')
    assert (verdict.decision, verdict.hardline) == ("deny", True)


@pytest.mark.parametrize(("command", "why"), PAYLOADS)
def test_shell_positional_payloads_are_live(tmp_path: Path, command: str, why: str) -> None:
    """Each payload deletes a fake home under a real bash (HOME and cwd under tmp_path)."""
    home, _, _ = run_confined(tmp_path, command)
    assert not (home / "notes.txt").exists(), why


HARM = [
    "bash -c 'rm -rf \"$1\"' _ ~",
    "bash -s -- ~ <<'E'\nrm -rf \"$1\"\nE",
    "bash -c 'rm -rf \"$0\"' ~",
]


@pytest.mark.parametrize("payload", HARM)
def test_shell_positional_terminal_refuses_and_home_survives(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload)


@pytest.mark.skipif(shutil.which("dash") is None, reason="dash not installed")
def test_dash_payload_is_live_and_refused(tmp_path: Path, work_engine: Engine, fake_home: Path) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, "sh -c 'rm -rf \"$1\"' _ ~", shell=shutil.which("dash") or "")
