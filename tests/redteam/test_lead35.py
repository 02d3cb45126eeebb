"""lead35 (stop 35, issue 8): a service named by a path; tar's archive over a start-up file.

A service named by a path runs that file.
`service NAME ACTION` runs /etc/init.d/NAME (Debian's init-system-helpers, OpenRC's rc-service and
invoke-rc.d alike): `service ../../tmp/x start` runs /tmp/x, a file the session may have written, as
root under `sudo`. It was allowed (`service nginx start` is); a service word holding a `/` now asks
(policies/system.yaml service_control), and ordinary service calls keep their verdicts.

tar's archive over a start-up file: `tar cf ~/.profile F` was allowed (tar is left out of the
write_sensitive_file row for output options, its -f being read by listings and extractions), and a
login `dash` runs the archive's text: a member named `x\nCMD\n` is a line CMD. Creating, appending or
updating an archive named as a start-up or credential file now asks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import decision_and_keys, home_intact
from tests.redteam.harm import blocked, run_confined, written_then_stopped

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


TAR_WRITES = [
    "tar cf ~/.profile x",
    "tar -cf ~/.bashrc x",
    "tar --create --file=$HOME/.zshrc x",
    "tar -c --file ~/.profile x",
    "tar rf ~/.profile x",
    "tar -uf ~/.bash_profile x",
    "bsdtar -cf ~/.profile x",
    "sudo tar cf /root/.profile x",
]

TAR_NEAR_MISSES = [
    "tar czf ~/backup.tgz src",
    "tar tf ~/.bashrc",
    "tar tzf ~/.profile.tgz",
    "tar cf dist/app.tar build",
]


@pytest.mark.parametrize("command", TAR_WRITES)
def test_an_archive_written_over_a_start_up_file_asks(engine: Engine, command: str) -> None:
    decision, keys = decision_and_keys(engine, command)
    assert decision == "ask" and "write_sensitive_file" in keys, (command, keys)


@pytest.mark.parametrize("command", TAR_NEAR_MISSES)
def test_other_archives_keep_their_verdict(engine: Engine, command: str) -> None:
    assert decision_and_keys(engine, command) == ("allow", []), command


@pytest.mark.skipif(shutil.which("dash") is None, reason="no dash here")
def test_an_archive_over_the_profile_runs_at_the_next_login(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    """Unguarded, the archive of a file named `x\ncd; rm -r .ssh\nx` written over ~/.profile deletes the
    key at the next `dash -l`; through the engine the same line is refused and the home intact."""
    engine, home, _ = plain_harm
    payload = "touch \"$(printf 'x\\ncd; rm -r .ssh\\nx')\"; tar cf ~/.profile x*"
    live, cwd, _ = run_confined(tmp_path, payload)
    assert home_intact(live)
    env = {"HOME": str(live), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(["dash", "-l", "-c", "true"], env=env, cwd=cwd, capture_output=True, timeout=30, check=False)
    assert not home_intact(live), "the archive should run at login"
    blocked(engine, home, payload)
