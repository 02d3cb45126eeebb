"""git's global options that make it run a command: `-c KEY=CMD`, `--config-env=KEY=VAR`.

A configuration key git executes (core.sshCommand, core.fsmonitor, core.pager, alias.X=!..., a
credential helper, a hooks path ...) is judged as the command it runs. Through `--config-env`
the command is the variable's value: judged when the line sets it, and an escape hatch that
needs approval when it does not (the value is data the detector never sees).
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

HARDLINE = [
    "git -c core.sshCommand='rm -rf ~' fetch",
    "git -c core.sshcommand='sh -c \"rm -rf ~\"' pull",
    "git -c core.fsmonitor='rm -rf ~' status",
    "git -c core.pager='rm -rf /' log",
    "git -c alias.x='!rm -rf ~' x",
    "git -C /srv/app -c core.fsmonitor='rm -rf ~' status",
    "E='rm -rf ~' git --config-env=core.sshCommand=E fetch",
    "E='rm -rf ~'; git --config-env core.pager=E log",
    "export E='rm -rf ~'; git --config-env=alias.x=E x",
    "git --frob x -c core.pager='rm -rf ~' log",
]

ASK = [
    "git --config-env=core.sshCommand=EVIL fetch",
    "git --config-env core.fsmonitor=CMD status",
    "git --config-env=core.pager=P log",
    "git --config-env=alias.st=A st",
    "git --config-env=credential.helper=H push",
    "git --config-env=core.hooksPath=H commit -m x",
    "git --config-env=diff.x.textconv=T diff",
    "git --config-e=core.sshCommand=EVIL fetch",  # a unique prefix of --config-env
]

NEAR_MISSES = [
    "git -c user.name=x commit -m hi",
    "git --config-env=user.name=GIT_NAME commit -m hi",
    "git --config-env=user.email=EMAIL commit -m hi",
    "git -c core.fsmonitor=false status",
    "git -c core.pager=less log",
    "git -c alias.co=checkout co main",
    "git --no-pager log --oneline",
    "git log --grep='core.sshCommand=rm'",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_a_command_git_runs_from_its_configuration_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), (command, verdict.as_dict())


@pytest.mark.parametrize("command", ASK)
def test_a_command_git_would_run_from_data_needs_approval(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_configuration_that_runs_nothing_stays_allowed(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "allow", (command, verdict.as_dict())
