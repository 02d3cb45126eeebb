"""rt10 red team (stop 21, triaged stop 22): open misses against
option variables (TAR_OPTIONS, MAKEFLAGS, PS4 under xtrace, npm/cargo runners).

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
    ("TAR_OPTIONS='--to-command=rm\\ -rf\\ ~' tar xf a.tar", "tar splits TAR_OPTIONS with backslash escapes"),
    (
        "export TAR_OPTIONS=--checkpoint=1\\ --checkpoint-action=exec='rm\\ -rf\\ ~'; tar xf a.tar",
        "--checkpoint-action=exec runs a shell command",
    ),
    (
        "printf -v TAR_OPTIONS %s '\"--to-command=rm -rf ~\"'; export TAR_OPTIONS; tar xf a.tar",
        "printf -v then export sets TAR_OPTIONS",
    ),
    (
        "echo 'export TAR_OPTIONS=\"--to-command=sh\\ -c\\ rm\\ -rf\\ ~\"' > e.sh; . ./e.sh; tar xf a.tar",
        "a file written and sourced on the line exports TAR_OPTIONS",
    ),
    (
        "export TAR_OPTIONS; read -r TAR_OPTIONS <<< '\"--to-command=rm -rf ~\"'; tar xf a.tar",
        "export first, then read the value",
    ),
    ("export MAKEFLAGS; MAKEFLAGS='--eval=$(shell rm -rf ~)'; make", "export first, then assign"),
    ("MAKEFLAGS='--eval=$(shell rm -rf ~)' make", "GNU make reads --eval from MAKEFLAGS"),
    ("GNUMAKEFLAGS='--eval=$(shell rm -rf ~)' make", "GNU make reads GNUMAKEFLAGS"),
    ("set -x; PS4='$(rm -rf ~)'; true", "xtrace expands PS4 before each traced command"),
    ("PS4='$(rm -rf ~)'; set -x; true", "xtrace expands PS4 before each traced command"),
    ("export npm_config_script_shell='sh -c \"rm -rf ~\" #'; npm run build", "npm runs scripts with that shell"),
    ("export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER='rm -rf ~ #'; cargo run", "cargo runs the runner"),
]

# today: a grantable ask (or an ask after stop 21's fix); harm is hardline-class
ASKED: list[tuple[str, str]] = []


@pytest.mark.parametrize(("command", "why"), ALLOWED + ASKED)
@pytest.mark.xfail(strict=True, reason="rt10: not a hardline deny today; bash runs hardline-class harm")
def test_rt10_miss(engine: Engine, command: str, why: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), why


LIVE = ["set -x; PS4='$(rm -rf ~)'; true"]


@pytest.mark.parametrize("payload", LIVE)
def test_rt10_payloads_are_live(tmp_path: Path, payload: str) -> None:
    """The payloads delete a fake home under a real bash (HOME and cwd under tmp_path)."""
    assert payload in dict(ALLOWED + ASKED)
    home, _, _ = run_confined(tmp_path, payload)
    assert not home.exists(), payload
