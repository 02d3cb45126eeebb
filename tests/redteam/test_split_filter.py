"""GNU split's --filter=CMD pipes each piece to CMD through $SHELL -c. split has a grammar in
policies/writers.yaml, so the `*` program's option-name rule (which reads `--filter`, `--command` ...
of programs no table describes) never saw it: `split --filter='rm -rf ~' n.txt` deleted HOME. The
split entry now runs its filter as a shell command, an escape hatch (`--filter=sh` reads the pieces
as a program: asked).

Each payload is run under bash first (HOME and cwd under tmp_path) to show the harm, then through
the engine's terminal, where the fake home stays and the key is not printed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import RUN_SECONDS, home_intact, judge, make_home
from tests.redteam.harm import SECRET

PIECES = {"n.txt": "1\n2\n3\n"}
COMMANDS = {"cmds.txt": "rm -rf ~\n"}

PAYLOADS = {
    # adv26's payloads
    "--filter=": ("split --filter='rm -rf ~' n.txt", PIECES),
    "--filter WORD, printing": ("split -n2 --filter 'cat ~/.ssh/id_ed25519' n.txt", PIECES),
    # spellings the first set does not name
    "abbreviated --fil": ("split -l1 --fil='rm -rf \"$HOME\"' n.txt", PIECES),
    "the pieces read by a shell": ("split -l1 --filter=sh cmds.txt", COMMANDS),
    "the pieces read by bash, with a prefix": ("split -n1 --filter='bash -s' cmds.txt part_", COMMANDS),
}


def _live(tmp_path: Path, files: dict[str, str], payload: str) -> bool:
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    for name, text in files.items():
        (cwd / name).write_text(text)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        ["bash", "-c", payload], env=env, cwd=cwd, capture_output=True, text=True, timeout=RUN_SECONDS, check=False
    )
    return not home_intact(home) or SECRET in done.stdout + done.stderr


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_split_filter_runs_a_command(
    work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    if shutil.which("split") is None:
        pytest.skip("split is not installed")
    payload, files = PAYLOADS[name]
    monkeypatch.chdir(work)
    assert _live(tmp_path, files, payload), "the payload does no harm unguarded: the test proves nothing"
    for file, text in files.items():
        written = work_engine.call("write_file", {"path": file, "content": text}, session_id="s1")
        assert written.ok, written.error
    result = work_engine.call("terminal", {"command": payload}, session_id="s1")
    printed = (result.output or "") + (result.error.message if result.error else "")
    assert home_intact(fake_home), "the fake home was deleted"
    assert SECRET not in printed, "the key was printed"


NEAR_MISSES = [
    "split -l 1000 big.log part_",
    "split -n 4 --additional-suffix=.csv data.csv chunk_",
    "split -b 1k x.txt",
    "split -l 100 --filter='wc -l' big.log",
    "split -n l/4 --filter='gzip -c > part.gz' big.log",
]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "allow", (command, verdict.reason)
