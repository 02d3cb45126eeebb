"""A case statement's later clauses: their patterns are no commands, their bodies are.

Only the first clause's pattern was recognised: after `;;` (or `;&`, `;;&`) the next pattern was
read as a command, so `case "$1" in start) ...;; *) echo usage;; esac` ran the command `*` (a
glob: any program) and was a hardline deny, and `stop|restart)` piped `stop` into `restart`.
Patterns are now skipped up to their `)` (a substitution in one still runs and is judged), and
every clause's body is judged as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from engine.policy.shell import parse
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

NEAR_MISSES = [
    'case "$1" in start) echo starting;; stop|restart) echo stopping;; *) echo "usage: $0 start|stop";; esac',
    "case $x in a|b) echo ab;; (c) echo c;; *) echo other;; esac",
    "case $(uname -s) in Linux) echo linux;; Darwin) echo mac;; *) echo other;; esac",
    "case x in\n  a)\n    echo a\n    ;;\n  *)\n    ls\n    ;;\nesac",
    "case x in a) echo a;& b) echo b;;& *) echo c;; esac",
    "echo $(case $1 in a|b) echo ab;; *) echo other;; esac)",
]

PAYLOADS = [
    "case $1 in a) echo a;; *) rm -rf ~;; esac",
    "case $1 in a) echo a;; b|c) reboot;; esac",
    "case x in\n  a)\n    echo a\n    ;;\n  *)\n    reboot\n    ;;\nesac",
    "case $1 in a) echo a;; $(rm -rf ~)) echo b;; esac",
    "case x in a) case y in b) echo b;; *) echo c;; esac;; *) echo d;; esac; reboot",
]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_case_statements_with_several_clauses_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize("command", PAYLOADS)
def test_every_clause_body_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


def test_patterns_are_no_commands() -> None:
    names = [c.argv for c in parse("case $1 in a|b) echo ab;; stop|restart) echo r;; (*) echo o;; esac")]
    assert ("echo", "ab") in names and ("echo", "r") in names and ("echo", "o") in names
    assert not any(argv[0] in ("b", "stop", "restart", "*") for argv in names)


def test_a_later_clause_deleting_home_is_stopped(tmp_path: Path, session: Engine, fake_home: Path) -> None:
    live_then_stopped(tmp_path, session, fake_home, 'case x in a) echo a;; *) rm -rf "$HOME";; esac')
