"""walk24: csh/tcsh/fish `-c TEXT ARGS` (rt12's leftover). The words after the text are its `$1`…
(csh, tcsh) and `$argv` (csh, tcsh, fish), not `$0`-first as for sh: `tcsh -c 'rm -rf $1' ~` deletes
home. The Programs field `positional: argv` says so; the payload is read with `$argv[N]`/`$argv`
spelled as sh's positionals. Harm runs under the real shells (when installed) in a fake HOME."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import live_then_stopped

PAYLOADS = [
    ("csh", "csh -c 'rm -rf $1' ~"),
    ("tcsh", "tcsh -c 'rm -rf $argv[1]' ~"),
    ("tcsh", "tcsh -c 'rm -rf $argv[2]' x ~"),
    ("tcsh", "tcsh -c 'rm -rf $argv' ~"),
    ("tcsh", "tcsh -fc 'rm -rf $1' ~"),
    ("fish", "fish -c 'rm -rf $argv[1]' ~"),
    ("fish", "fish -c 'rm -rf $argv' ~"),
    ("fish", "fish --command='rm -rf $argv[2]' x ~"),
]


@pytest.mark.parametrize(("shell", "payload"), PAYLOADS)
def test_a_c_shell_or_fish_payloads_arguments_are_read(work_engine: Engine, shell: str, payload: str) -> None:
    assert work_engine.check(payload).hardline, payload


@pytest.mark.parametrize(("shell", "payload"), PAYLOADS)
def test_the_payload_deletes_home_live_and_is_refused(
    tmp_path: Path, work_engine: Engine, fake_home: Path, shell: str, payload: str
) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    live_then_stopped(tmp_path, work_engine, fake_home, payload)


@pytest.mark.parametrize(
    "payload",
    ["tcsh -c 'rm -rf $1' build ~", "fish -c 'rm -rf $argv[1]' build", "csh -c 'echo $argv' ~", "fish -c 'ls $argv' ."],
)
def test_near_miss_arguments_that_are_not_home(work_engine: Engine, payload: str) -> None:
    assert work_engine.check(payload).decision == "allow", payload
