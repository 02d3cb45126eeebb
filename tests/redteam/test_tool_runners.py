"""Build and VCS tools that run a program named by an option.

`git archive --remote='ext::…'`, `git send-email --sendmail-cmd=CMD`, `git instaweb --httpd=CMD`,
`cargo run --config 'target.X.runner="CMD"'`, `go run -exec CMD`, `go build -toolexec CMD`:
each was allowed.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

HARDLINE = [
    "git send-email --sendmail-cmd='rm -rf ~' x.patch",
    "git instaweb --httpd='rm -rf ~'",
    "cargo run --config 'target.x.runner=\"rm -rf ~\"'",
    "cargo --config 'target.x.runner=\"rm -rf ~\"' test",
    "go run -exec 'rm -rf ~' .",
    "go build -toolexec 'rm -rf ~' .",
]

NEAR_MISSES = [
    "go run .",
    "go test ./...",
    "go build -o bin/x .",
    "cargo run --release",
    "cargo build --config 'profile.release.lto=true'",
    "git send-email --to=x@y.z a.patch",
    "git archive --format=tar HEAD",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_a_program_named_by_an_option_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


def test_a_remote_helper_command_is_not_allowed(engine: Engine) -> None:
    assert judge(engine, "git archive --remote='ext::sh -c rm% -rf% ~' HEAD").decision != "allow"


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_builds_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
