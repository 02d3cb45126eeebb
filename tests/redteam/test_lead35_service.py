"""lead35 (stop 35, issue 8): a service named by a path runs that file.

`service NAME ACTION` runs /etc/init.d/NAME (Debian's init-system-helpers, OpenRC's rc-service and
invoke-rc.d alike): `service ../../tmp/x start` runs /tmp/x, a file the session may have written, as
root under `sudo`. It was allowed (`service nginx start` is); a service word holding a `/` now asks
(policies/system.yaml service_control), and ordinary service calls keep their verdicts.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import decision_and_keys
from tests.redteam.harm import written_then_stopped

ASKED = [
    "service ../../tmp/x start",
    "sudo service ../../tmp/x start",
    "service ../..$PWD/x start",
    "sudo -E service ../../home/u/.cache/x restart",
    "invoke-rc.d --quiet ../../tmp/x start",
    "rc-service ../../tmp/x start",
    "env -i service ./x status",
    "nohup service /tmp/x start",
]

NEAR_MISSES = [
    "service nginx start",
    "service ssh status",
    "sudo service postgresql reload",
    "service --status-all",
    "invoke-rc.d cron start",
    "rc-service sshd status",
]


@pytest.mark.parametrize("command", ASKED)
def test_a_service_named_by_a_path_asks(engine: Engine, command: str) -> None:
    assert decision_and_keys(engine, command) == ("ask", ["service_control"]), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_service_calls_keep_their_verdict(engine: Engine, command: str) -> None:
    assert decision_and_keys(engine, command) == ("allow", []), command


SBIN = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


@pytest.mark.skipif(shutil.which("service", path=SBIN) is None, reason="no service(8) here")
def test_a_written_file_run_as_a_service_does_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unguarded, the real service(8) runs the written file (it clears the environment: the file
    finds the fake home beside its own folder); through the engine it is refused, the home intact."""
    monkeypatch.setenv("PATH", SBIN)
    engine, home, _ = plain_harm
    script = '#!/bin/sh\nrm -rf "${0%/*}/../home"\n'
    # an action of no init system's own, so service(8) runs the file itself even where systemd runs
    written_then_stopped(tmp_path, engine, home, {"x": script}, "service ../..$PWD/x go", mode=0o755)
