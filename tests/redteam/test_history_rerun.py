"""A shell re-running lines of its own history (adv27 family 6).

bash's `fc -s [old=new]` and `fc -e EDITOR` run a command of the shell's history (edited), and
once `set -H` turns history expansion on, `!!` or `!:1-3` on a later line stands for words of an
earlier one. In a background shell each line is judged as it is sent: `set -o history`, a
harmless `: rm -rf ~`, then `fc -s :=` (or `!:1-3`) ran `rm -rf ~`. fc re-running entries the
line did not add (`history -s …`) is now an escape hatch (engine/policy/shell.py _fix_command; fc
has a Programs entry so a line naming it is read), the entries it did add are judged with fc's
`old=new` edits applied, and turning history expansion on asks (policies/exec.yaml
history_rerun). Listing history (`fc -l`, `history`) and ordinary `set` options stay allowed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import RUN_SECONDS, home_intact, judge, make_home, shell_writes

PAYLOADS = [
    "fc -s :=",
    "fc -s",
    "fc -e - :=",
    "fc -e ed",
    "fc",
    "set -H",
    "set -o histexpand",
    "set -eH",
    "fc -s rm=rm",
]
NEAR_MISSES = [
    "fc -l",
    "fc -ln -5",
    "history",
    "history 10",
    "history -s 'make test'; fc -s",
    "set -e",
    "set +H",
    "set -o history",
    "set -euo pipefail",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_rerunning_history_asks(engine: Engine, payload: str) -> None:
    assert judge(engine, payload).decision != "allow", payload


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_listing_history_stays_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


RERUNS = [
    ["set -o history\n", ": rm -rf ~\n", "fc -s :=\n"],
    ["set -o history; set -H\n", ": rm -rf ~\n", "!:1-3\n"],
]


@pytest.mark.parametrize("lines", RERUNS)
def test_a_background_shell_does_not_rerun_a_line(
    session: Engine, work: Path, fake_home: Path, lines: list[str]
) -> None:
    sent = shell_writes(session, work, fake_home, lines, "touch {done}\n")
    assert not all(sent)
    assert home_intact(fake_home), "the fake home was deleted"


def test_the_payload_is_live(tmp_path: Path) -> None:
    """The unguarded control: a real bash fed the same lines deletes a fake home (HOME under tmp_path)."""
    for index, lines in enumerate(RERUNS):
        home = make_home(tmp_path / str(index))
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        subprocess.run(
            ["bash"],
            input="".join(lines),
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=RUN_SECONDS,
            check=False,
        )
        assert not home_intact(home), lines
