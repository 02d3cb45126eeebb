"""The ssh runtime against a real sshd on a loopback port, started by the tests (tests/services.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.runtime import RuntimeFailure, RuntimeUnavailable, Session
from engine.runtime.ssh import SshRuntime
from tests.services import SshServer, eventually, gone

ENV = {"PATH": "/host/only/bin", "HOME": "/host/home", "LANG": "C.UTF-8", "ALLOWED": "yes"}


@pytest.fixture
def remote_dir(tmp_path: Path) -> Path:
    path = tmp_path / "remote"
    path.mkdir()
    return path


@pytest.fixture
def remote(sshd_server: SshServer, remote_dir: Path, tmp_path: Path) -> Iterator[SshRuntime]:
    runtime = SshRuntime("remote", sshd_server.settings(workdir=str(remote_dir)), Session("s", tmp_path, tmp_path))
    runtime.start()
    yield runtime
    runtime.close()


def test_commands_run_on_the_host_with_their_exit_code(remote: SshRuntime, remote_dir: Path) -> None:
    result = remote.exec("pwd; echo out; echo err >&2; exit 5", env=ENV, timeout=20)
    assert (result.exit_code, result.output) == (5, f"{remote_dir}\nout\nerr\n")


def test_commands_run_in_bash_where_the_host_has_it(remote: SshRuntime) -> None:
    """(stop 58) The shell the policies read every line as: `x+=2` appends in bash (dash reads a command `x+=2`), and
    its variables kept across the line."""
    result = remote.exec('x=1; x+=2; echo "$x ${BASH_VERSION:+bash}"', env=ENV, timeout=20)
    assert result.output == "12 bash\n"


def test_only_the_sanitised_names_travel(remote: SshRuntime) -> None:
    result = remote.exec("echo $ALLOWED $LANG; echo $PATH; echo $HOME", env=ENV, timeout=20)
    first, path, home = result.output.splitlines()
    assert first == "yes C.UTF-8" and "/host" not in path and home != "/host/home"


def test_the_remote_working_directory_is_tracked(remote: SshRuntime, remote_dir: Path) -> None:
    (remote_dir / "sub").mkdir()
    assert remote.exec("cd sub", timeout=20).cwd == str(remote_dir / "sub")
    assert remote.exec("pwd", timeout=20).output == f"{remote_dir / 'sub'}\n"
    missing = remote.exec("pwd", cwd="nowhere", timeout=20)
    assert missing.exit_code == 126 and "nowhere" in missing.output
    assert remote.exec("pwd", timeout=20).output == f"{remote_dir / 'sub'}\n"  # a failed cwd moves nothing
    # cwd is relative to the working directory and acts as a cd before the command
    assert remote.exec("pwd", cwd=".", timeout=20).output == f"{remote_dir}\n"
    assert remote.exec("pwd", timeout=20).output == f"{remote_dir}\n"


def test_input_reaches_the_command(remote: SshRuntime) -> None:
    assert remote.exec("wc -c", stdin=b"ab\x00\n\xffz", timeout=20).output.strip() == "6"


def test_timeout_ends_the_command_and_its_setsid_children(remote: SshRuntime) -> None:
    started = time.monotonic()
    result = remote.exec("setsid sh -c 'sleep 4261' & sleep 4262", timeout=0.5)
    assert result.exit_code == 124 and result.timed_out
    assert time.monotonic() - started < 15
    assert gone("sleep 4261") and gone("sleep 4262")
    assert remote.exec("echo still", timeout=20).output == "still\n"


def test_a_warm_connection_runs_commands_quickly(remote: SshRuntime) -> None:
    remote.exec("true", timeout=20)
    started = time.monotonic()
    for _ in range(5):
        remote.exec("true", timeout=20)
    # No channel (and no login shell) per command: ~10 ms each here; the bound is loose for a loaded CI machine.
    assert (time.monotonic() - started) / 5 < 2.0


def test_background_processes_take_input_and_end_when_killed(remote: SshRuntime, tmp_path: Path) -> None:
    handle = remote.spawn("read line; echo got $line; exec sleep 4263", log=tmp_path / "bg.log", env=ENV)
    handle.write("hello\n")
    assert eventually(lambda: "got hello" in handle.log.read_text()), handle.log.read_text()
    assert handle.is_alive()
    handle.kill()
    assert not handle.is_alive() and gone("sleep 4263")


def test_close_ends_everything_the_session_started(sshd_server: SshServer, tmp_path: Path) -> None:
    runtime = SshRuntime("r", sshd_server.settings(), Session("s", tmp_path, tmp_path))
    runtime.spawn("sleep 4264", log=tmp_path / "bg.log")
    runtime.exec("(setsid sleep 4265 &) ; echo left", timeout=20)
    runtime.close()
    assert gone("sleep 4264") and gone("sleep 4265")


def test_files_go_through_sftp(remote: SshRuntime, remote_dir: Path) -> None:
    remote.write_file("a/b.txt", b"one\x00two")
    assert (remote_dir / "a" / "b.txt").read_bytes() == b"one\x00two"
    assert remote.read_file("a/b.txt", 3) == b"one"
    assert [(e.name, e.kind, e.size) for e in remote.list_dir("a")] == [("b.txt", "file", 7)]
    with pytest.raises(RuntimeFailure):
        remote.read_file("a/missing", 10)
    with pytest.raises(RuntimeFailure, match="directory"):
        remote.read_file("a", 10)


def test_the_connection_comes_back_after_the_server_restarts(
    sshd_server: SshServer,
    remote: SshRuntime,
    remote_dir: Path,
) -> None:
    assert remote.exec("echo before", timeout=20).output == "before\n"
    sshd_server.restart()
    result = remote.exec("echo after; pwd", timeout=20)
    assert result.output == f"after\n{remote_dir}\n"
    remote.write_file("again.txt", b"x")
    assert (remote_dir / "again.txt").read_bytes() == b"x"


def test_an_unreachable_host_is_unavailable_with_the_reason(sshd_server: SshServer, tmp_path: Path) -> None:
    with pytest.raises(RuntimeUnavailable, match="cannot connect"):
        SshRuntime("r", sshd_server.settings(port=1), Session("s", tmp_path, tmp_path)).start()


def test_an_unknown_host_key_is_refused(sshd_server: SshServer, tmp_path: Path) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    runtime = SshRuntime("r", sshd_server.settings(known_hosts=str(empty)), Session("s", tmp_path, tmp_path))
    with pytest.raises(RuntimeUnavailable, match="cannot connect"):
        runtime.start()
    runtime.close()


def test_settings_from_the_environment(
    sshd_server: SshServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = sshd_server.settings(host="${HERMES_TEST_SSH_HOST}")
    assert SshRuntime.check(settings) == "environment variable HERMES_TEST_SSH_HOST is not set"
    monkeypatch.setenv("HERMES_TEST_SSH_HOST", "127.0.0.1")
    assert SshRuntime.check(settings) is None
    runtime = SshRuntime("r", settings, Session("s", tmp_path, tmp_path))
    try:
        assert runtime.exec("echo ok", timeout=20).output == "ok\n"
    finally:
        runtime.close()
