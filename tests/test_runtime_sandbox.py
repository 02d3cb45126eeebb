"""The sandbox runtime against the real bubblewrap: what a command in the box cannot do."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.runtime import ExecResult, Session
from engine.runtime.sandbox import SandboxRuntime
from tests.services import eventually, gone

SECRET = "sk-hermes-engine-test-secret-0123456789"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    (path / "keep.txt").write_text("keep\n")
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake HOME for the engine, full of files that must survive."""
    path = tmp_path / "home"
    (path / ".ssh").mkdir(parents=True)
    (path / ".ssh" / "id_ed25519").write_text("PRIVATE\n")
    (path / "notes.txt").write_text("mine\n")
    monkeypatch.setenv("HOME", str(path))
    return path


def _session(work: Path, tmp_path: Path, **extra: object) -> Session:
    return Session("s", work, tmp_path / "state", **extra)  # type: ignore[arg-type]


@pytest.fixture
def box(bwrap: str, work: Path, home: Path, tmp_path: Path) -> Iterator[SandboxRuntime]:
    runtime = SandboxRuntime("box", {}, _session(work, tmp_path))
    runtime.start()
    yield runtime
    runtime.close()


def run(runtime: SandboxRuntime, command: str, timeout: float = 20, **env: str) -> ExecResult:
    base = {"PATH": os.environ.get("PATH", os.defpath), "HOME": os.environ["HOME"], "LANG": "C.UTF-8", **env}
    return runtime.exec(command, env=base, timeout=timeout)


def test_commands_run_in_the_workdir_with_their_exit_code(box: SandboxRuntime, work: Path) -> None:
    result = run(box, "pwd; cat keep.txt; echo made > new.txt; exit 3")
    assert result.exit_code == 3
    assert result.output == f"{work}\nkeep\n"
    assert (work / "new.txt").read_text() == "made\n"


def test_a_write_outside_the_workdir_fails_and_leaves_the_host_untouched(
    box: SandboxRuntime, work: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = Path("/usr/hermes-engine-sandbox-probe")
    try:
        result = run(box, f"touch {target}; echo $?; echo x > {outside}/f; echo x > ../escaped")
        assert "Read-only file system" in result.output
        assert result.output.splitlines()[1] != "0"
        assert not target.exists()
    finally:
        target.unlink(missing_ok=True)
    # /tmp is the box's own: a write there never reaches the host's /tmp.
    assert not (outside / "f").exists()
    assert not (work.parent / "escaped").exists()


def test_rm_rf_home_inside_the_sandbox_leaves_the_real_home_intact(box: SandboxRuntime, home: Path) -> None:
    result = run(box, f'rm -rf ~ "$HOME" {home}; ls -a ~; echo done')
    assert result.output.strip().endswith("done")
    assert (home / ".ssh" / "id_ed25519").read_text() == "PRIVATE\n"
    assert (home / "notes.txt").read_text() == "mine\n"


def test_the_home_directory_is_empty_in_the_box(box: SandboxRuntime, home: Path) -> None:
    result = run(box, "ls -A ~; cat ~/.ssh/id_ed25519")
    assert "PRIVATE" not in result.output and "notes.txt" not in result.output


def test_the_engines_environment_is_unreachable(box: SandboxRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_TEST_API_KEY", SECRET)
    probe = (
        "echo ppid=$PPID; tr '\\0' '\\n' < /proc/$PPID/environ; "
        f"cat /proc/{os.getpid()}/environ; cat /proc/{os.getppid()}/environ; "
        "for p in /proc/[0-9]*; do cat $p/environ; done; cat /proc/$PPID/cmdline"
    )
    result = run(box, probe)
    assert SECRET not in result.output
    assert result.output.startswith("ppid=1\n")  # the box's own init, not the engine
    # Neither the engine's command line nor its test-only variables are readable (PATH and HOME may
    # name pyenv's python-build or pytest's temp dirs, so look for what only the engine's process has).
    assert "PYTEST_CURRENT_TEST" not in result.output and "-m\x00pytest" not in result.output
    assert " -m pytest" not in result.output.replace("\0", " ")


def test_the_network_is_off(box: SandboxRuntime) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]
        result = run(box, f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\"")
        assert result.exit_code != 0 and "Connection refused" in result.output
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing reached the host


def test_network_true_lets_commands_connect(bwrap: str, work: Path, tmp_path: Path) -> None:
    runtime = SandboxRuntime("net", {"network": True}, _session(work, tmp_path))
    try:
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen()
            port = server.getsockname()[1]
            result = run(runtime, f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\"")
            assert result.exit_code == 0, result.output
            server.settimeout(5)
            server.accept()[0].close()
    finally:
        runtime.close()


def test_timeout_ends_the_whole_tree_including_setsid_children(box: SandboxRuntime) -> None:
    started = time.monotonic()
    result = run(box, "setsid sh -c 'trap \"\" HUP TERM; exec sleep 4241' & sleep 4242", timeout=0.5)
    assert result.exit_code == 124 and result.timed_out
    assert time.monotonic() - started < 10
    assert gone("4241") and gone("4242")


def test_children_left_in_the_background_end_with_the_command(box: SandboxRuntime) -> None:
    result = run(box, "(sleep 4243 &) ; echo started")
    assert result.output == "started\n"
    assert gone("4243")  # the pid namespace went with the command


def test_the_engines_own_files_stay_read_only_and_its_state_hidden(bwrap: str, work: Path, tmp_path: Path) -> None:
    config = work / "hermes-engine.yaml"
    config.write_text("include_builtin: true\n")
    state = work / ".hermes-engine"
    state.mkdir()
    (state / "audit.jsonl").write_text("record\n")
    runtime = SandboxRuntime("box", {}, _session(work, tmp_path, protected=(config,), hidden=(state,)))
    try:
        result = run(runtime, "echo 'approvals: {yolo: true}' >> hermes-engine.yaml; cat .hermes-engine/audit.jsonl")
        assert "Read-only file system" in result.output
        assert "record" not in result.output
    finally:
        runtime.close()
    assert config.read_text() == "include_builtin: true\n"
    assert (state / "audit.jsonl").read_text() == "record\n"


def test_background_processes_are_ended_at_close(bwrap: str, work: Path, tmp_path: Path) -> None:
    runtime = SandboxRuntime("box", {}, _session(work, tmp_path))
    handle = runtime.spawn("read line; echo got $line; sleep 4244", log=tmp_path / "bg.log", env={"PATH": os.defpath})
    handle.write("hello\n")
    assert eventually(lambda: "got hello" in handle.log.read_text()), handle.log.read_text()
    assert handle.is_alive()
    runtime.close()
    assert not handle.is_alive()
    assert gone("4244")
