"""Inline programs that call a command runner by another name or with an argument list.

`from os import system as s; s('rm -rf ~')`, `s = os.system`, `const {execSync: x} = …`
were allowed: a call is read under every name the program gives it. A list of arguments
(`pty.spawn(['sh', '-c', 'rm -rf ~'])`, perl's `system "sh", "-c", …`) is one word per item, so
`sh -c` gets its whole script. Interpreters the table lacked: `R -e`, `tclsh` reading its input,
`julia -e`, and `toybox` as a wrapper like busybox.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    "python3 -c \"from os import system as s; s('rm -rf ~')\"",
    "python3 -c \"import os; s = os.system; s('rm -rf ~')\"",
    "python3 -c \"import subprocess; f=subprocess.call; f(['rm','-rf','/'])\"",
    "python3 -c \"from subprocess import run as go; go('rm -rf ~', shell=True)\"",
    "node -e \"const {execSync: x} = require('child_process'); x('rm -rf ~')\"",
    "node -e \"const cp = require('child_process'); const e = cp.execSync; e('rm -rf ~')\"",
    "python3 -c \"import pty; pty.spawn(['sh','-c','rm -rf ~'])\"",
    'perl -e \'system "sh", "-c", "rm -rf ~"\'',
    "node -e \"require('child_process').spawnSync('sh', ['-c', 'rm -rf ~'])\"",
    "R --vanilla -e 'system(\"rm -rf ~\")'",
    "tclsh <<< 'exec rm -rf ~'",
    "echo 'exec rm -rf ~' | tclsh",
    "julia -e 'run(`rm -rf ~`)'",
    "toybox rm -rf ~",
]

NEAR_MISSES = [
    "python3 -c \"from os import path as p; print(p.join('a','b'))\"",
    'python3 -c "import numpy as np; np.array([1])"',
    "python3 -c \"x = {'run': 1}; print(x)\"",
    'node -e "const o = {a: 1, run: 2}; console.log(o)"',
    "python3 -c \"import subprocess; subprocess.run(['echo', 'rm -rf ~'])\"",
    "python3 -c \"import subprocess; subprocess.run(['git', 'commit', '-m', 'it is done'])\"",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_a_renamed_or_listed_call_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_inline_programs_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize(
    "payload",
    [
        "python3 -c \"from os import system as s; s('rm -rf ~')\"",
        "python3 -c \"import pty; pty.spawn(['sh','-c','rm -rf ~'])\"",
    ],
)
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload, live=payload + " </dev/null")
