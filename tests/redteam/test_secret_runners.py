"""Secret managers' runners and environment loaders that run a command (adv28 family 5).

`op run -- CMD`, `doppler run -- CMD` / `--command 'CMD'`, `dotenvx run --`, `infisical run --`,
`aws-vault exec P -- CMD`, `chamber exec S -- CMD`, `envchain NS CMD`, `sops exec-env F 'CMD'`,
`dotenv -- CMD` / `dotenv run -- CMD`, `foreman run`, `honcho run`, `fnm exec -- CMD`, `scl enable C
'CMD'`, `niceload CMD`, `with-lock-ex LOCK CMD`, `machinectl shell .host PROG` and `newgrp G <<< CMD`
were allowed on main with `rm -rf ~` as the command: the Programs table did not describe them, so
the command they run was never judged. They are wrappers in policies/executors.yaml now.
Judged only (one shared engine): none of these tools is installed among the test peers, and each
is the same wrapper the table already describes for sudo, env and nohup, whose harm tests run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import Engine
from tests.redteam.harm import policy_project

RM = "rm -rf ~"
PAYLOADS = [
    f"op run -- {RM}",
    f"op run --env-file=.env -- {RM}",
    f"doppler run -- {RM}",
    f"doppler run --command '{RM}'",
    f"dotenvx run -- {RM}",
    f"infisical run --env=dev -- {RM}",
    f"aws-vault exec prod -- {RM}",
    f"chamber exec app -- {RM}",
    f"envchain aws {RM}",
    f"sops exec-env s.yaml '{RM}'",
    f"dotenv -- {RM}",
    f"dotenv run -- {RM}",
    f"foreman run {RM}",
    f"honcho run {RM}",
    f"fnm exec --using=18 -- {RM}",
    f"scl enable devtoolset-9 '{RM}'",
    f"niceload -l 2 {RM}",
    f"with-lock-ex /tmp/l {RM}",
    "machinectl shell .host /bin/rm -rf ~",
    f"newgrp users <<< '{RM}'",
]
NEAR_MISSES = [
    "op run -- npm test",
    "doppler run -- python3 app.py",
    "aws-vault exec prod -- aws s3 ls",
    "envchain aws terraform plan",
    "sops exec-env s.yaml 'echo hi'",
    "dotenv -- node server.js",
    "foreman start",
    "honcho start",
    "machinectl list",
    "scl enable devtoolset-9 bash",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with policy_project(tmp_path_factory, "runners", "kind: ApprovalPolicy\n") as (_, loaded):
        yield loaded


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_command_a_secret_runner_runs_is_judged(engine: Engine, payload: str) -> None:
    verdict = engine.check(payload)
    assert (verdict.decision, verdict.hardline) == ("deny", True), payload


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_runner_commands_stay_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command
