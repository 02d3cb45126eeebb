"""Variables set before a command that change what it does.

A program that reads options from a variable (`TAR_OPTIONS`, `MAKEFLAGS`, `ZIPOPT`, `LESS`,
`RSYNC_RSH` as `--rsh=`, `GIT_WORK_TREE`/`GIT_DIR` as `--work-tree=`/`--git-dir=`,
`DOCKER_HOST` as `--host=`) is judged with those options before its own (Programs table,
`as: options`). An interactive shell runs `ENV`, `PROMPT_COMMAND` and the substitutions of
its prompts; ask-pass helpers, browsers and remote shells named by a variable run; start-up
files and preloaded modules of interpreters (`PYTHONSTARTUP`, `NODE_OPTIONS=--require`,
`PERL5OPT=-M`, `RUBYOPT=-r`) are code. Each of these was allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    "TAR_OPTIONS='--checkpoint=1 \"--checkpoint-action=exec=rm -rf ~\"' tar cf /dev/null x",
    "TAR_OPTIONS='\"--to-command=rm -rf ~\"' tar xf a.tar",
    "export TAR_OPTIONS='\"--to-command=rm -rf ~\"'; tar xf a.tar",
    "ZIPOPT='-T -TT \"rm -rf ~\"' zip z.zip x",
    "LESS='-R +!rm -rf ~' less x",
    "RSYNC_RSH='sh -c \"rm -rf ~\"' rsync a host:b",
    "RSYNC_CONNECT_PROG='rm -rf ~' rsync rsync://h/m x",
    "PROMPT_COMMAND='rm -rf ~' bash -i",
    "export PROMPT_COMMAND='rm -rf ~'; bash -i",
    "PS1='$(rm -rf ~)' bash -i",
    "PS0='`rm -rf ~`' bash -i",
    "PS4='$(rm -rf ~)' bash -x -c true",
    "SSH_ASKPASS='rm -rf ~' SSH_ASKPASS_REQUIRE=force ssh host",
    "BROWSER='rm -rf ~' python3 -m webbrowser x",
    "CVS_RSH='rm -rf ~' cvs up",
    "SVN_SSH='rm -rf ~' svn up",
]

ASK = [
    "GIT_WORK_TREE=~ git checkout -f",
    "export GIT_WORK_TREE=~; git checkout -f",
    "GIT_WORK_TREE=~ GIT_DIR=/tmp/r.git git checkout -f HEAD",
    "MAKEFLAGS='SHELL=/tmp/x' make",
    "ENV=x.sh sh -i",
    "PYTHONSTARTUP=x.py python3",
    "NODE_OPTIONS='--require /tmp/evil.js' node a.js",
    "PERL5OPT='-I/tmp -Mevil' perl x.pl",  # (stop 56: a module by name, -Mevil alone, is found in @INC as perl -M's)
    "RUBYOPT='-r/tmp/evil' ruby a.rb",
]

NEAR_MISSES = [
    "GIT_DIR=.git git status",
    "GIT_WORK_TREE=. git status",
    "TAR_OPTIONS=-v tar xf a.tar -C build",
    "MAKEFLAGS=-j4 make",
    "LESS=-R less f",
    "ENV=production npm start",
    "PS1='\\u@\\h$ ' bash -i",
    "NODE_OPTIONS=--max-old-space-size=4096 node a.js",
    "PERL5OPT=-w perl x.pl",
    "BROWSER=firefox python3 -m webbrowser x",
    "RUBYOPT=-W0 ruby a.rb",
    "DOCKER_HOST=unix:///run/docker.sock docker ps",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_what_a_variable_makes_a_program_run_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", ASK)
def test_a_variable_that_redirects_or_loads_code_is_not_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_variables_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


HARM = [
    "TAR_OPTIONS='--checkpoint=1 \"--checkpoint-action=exec=rm -rf ~\"' tar cf /dev/null . </dev/null",
    "PROMPT_COMMAND='rm -rf ~' bash -i </dev/null",
]


@pytest.mark.parametrize("payload", HARM)
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload)
