"""Programs that run a command they are given, which the Programs table lacked.

`chronic`, `tsp`, `run-one`, `dbus-launch`, `ssh-agent CMD`, `setpriv --reuid=0 CMD`, `retry`,
`sem`, `perf record|stat|trace`, `reflex -- CMD`, `entr -s 'CMD'`, `hyperfine 'CMD'` (and its
hooks), `watchexec`/`nodemon --exec`, `lldb -o 'platform shell CMD'`, `cmake -E rm`: each ran
`rm -rf ~` and was allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    "chronic rm -rf ~",
    "tsp rm -rf ~",
    "run-one rm -rf ~",
    "dbus-launch rm -rf ~",
    "ssh-agent rm -rf ~",
    "setpriv --reuid=0 rm -rf ~",
    "retry -t 3 -- rm -rf ~",
    "sem -j 2 rm -rf ~",
    "perf record -- rm -rf ~",
    "perf stat rm -rf ~",
    "reflex -- sh -c 'rm -rf ~'",
    "entr -s 'rm -rf ~' <<< x",
    "hyperfine 'rm -rf ~'",
    "hyperfine --prepare 'rm -rf ~' true",
    "watchexec 'rm -rf ~'",
    "nodemon --exec 'rm -rf ~'",
    "lldb -o 'platform shell rm -rf ~'",
    "cmake -E rm -rf ~",
]

NEAR_MISSES = [
    "hyperfine 'sleep 0.1'",
    "watchexec -e py pytest",
    "nodemon app.js",
    "entr -r python app.py",
    "perf stat ls",
    "chronic make",
    "ssh-agent bash",
    "cmake -E echo hi",
    "cmake -S . -B build",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_the_command_a_wrapper_runs_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_uses_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


def test_the_payload_is_live_and_the_engine_stops_it(tmp_path: Path, work_engine: Engine, fake_home: Path) -> None:
    payload = "ssh-agent rm -rf ~"
    live_then_stopped(tmp_path, work_engine, fake_home, payload)
