"""The docker runtime against a real dockerd started by the tests (tests/services.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.registry.specs import Source
from engine.runtime import RuntimeFailure, RuntimeManager, RuntimeSpec, RuntimeTypes, RuntimeUnavailable, Session
from engine.runtime.docker import DockerRuntime
from tests.services import DockerDaemon, eventually

ENV = {"PATH": "/host/only/bin", "HOME": "/host/home", "LANG": "C.UTF-8", "ALLOWED": "yes"}


def _settings(daemon: DockerDaemon, **extra: object) -> dict[str, object]:
    return {"image": daemon.image, "host": daemon.host, **extra}


@pytest.fixture(scope="module")
def box(docker_daemon: DockerDaemon, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DockerRuntime]:
    base = tmp_path_factory.mktemp("docker")
    runtime = DockerRuntime("box", _settings(docker_daemon), Session("s", base, base / "state"))
    runtime.start()
    yield runtime
    runtime.close()
    assert docker_daemon.containers() == []


def test_commands_run_inside_the_container_with_their_exit_code(box: DockerRuntime) -> None:
    result = box.exec("cat /.dockerenv && echo inside; hostname; exit 4", env=ENV, timeout=30)
    assert result.exit_code == 4
    lines = result.output.splitlines()
    assert lines[0] == "inside" and box.container_id is not None and box.container_id.startswith(lines[1])


def test_a_container_without_bash_runs_its_sh(box: DockerRuntime) -> None:
    """(stop 58) bash where the container has it; the busybox image has none: its /bin/sh runs the command."""
    result = box.exec('echo "${BASH_VERSION:-sh}"; command -v bash || echo none', timeout=30)
    assert result.exit_code == 0 and result.output == "sh\nnone\n"


def test_the_host_environment_stays_on_the_host(box: DockerRuntime) -> None:
    result = box.exec("echo $PATH; echo $HOME; echo $ALLOWED; echo $LANG", env=ENV, timeout=30)
    path, home, allowed, lang = result.output.splitlines()
    assert "/host" not in path and home == "/root"
    assert (allowed, lang) == ("yes", "C.UTF-8")


def test_the_working_directory_is_tracked_across_calls(box: DockerRuntime) -> None:
    assert box.exec("pwd", timeout=30).output == "/workspace\n"
    result = box.exec("mkdir -p /tmp/deeper && cd /tmp/deeper", timeout=30)
    assert result.cwd == "/tmp/deeper"
    assert box.exec("pwd", timeout=30).output == "/tmp/deeper\n"
    assert box.exec("pwd", cwd="sub/..", timeout=30).output == "/workspace\n"
    box.exec("cd /workspace", timeout=30)


def test_input_reaches_the_command(box: DockerRuntime) -> None:
    assert box.exec("cat | wc -c", stdin=b"12345\x00", timeout=30).output.strip() == "6"


def test_a_missing_cwd_is_an_error_result(box: DockerRuntime) -> None:
    result = box.exec("pwd", cwd="/nowhere", timeout=30)
    assert result.exit_code == 126 and "nowhere" in result.output


def test_timeout_ends_the_command_and_its_setsid_children(box: DockerRuntime) -> None:
    result = box.exec("setsid sh -c 'sleep 4251' & sleep 4252", timeout=0.5)
    assert result.exit_code == 124 and result.timed_out
    assert "sleep 425" not in box.exec("ps", timeout=30).output


def test_a_child_left_in_the_background_does_not_hold_the_call(box: DockerRuntime) -> None:
    result = box.exec("sleep 4253 & echo quick", timeout=20)
    assert result.output == "quick\n" and result.exit_code == 0
    box.exec("kill $(pidof sleep); true", timeout=30)
    # killed and reaped (the container's init waits for orphans), not left a zombie
    assert eventually(lambda: "4253" not in box.exec("ps -o pid,stat,args", timeout=30).output)


def test_killing_every_process_leaves_the_container_usable(box: DockerRuntime) -> None:
    box.write_file("kept.txt", b"kept")
    box.exec("kill -9 -1; kill -9 1; true", timeout=30)
    result = box.exec("cat kept.txt", timeout=30)
    assert (result.exit_code, result.output) == (0, "kept")


def test_output_is_capped(box: DockerRuntime) -> None:
    result = box.exec("yes | head -c 3000000; echo; echo last", timeout=30, max_output=10_000)
    assert result.omitted > 2_900_000
    assert len(result.output) < 11_000 and result.output.endswith("last\n")


def test_background_processes_take_input_and_end_when_killed(box: DockerRuntime, tmp_path: Path) -> None:
    handle = box.spawn("read line; echo got $line; exec sleep 4254", log=tmp_path / "bg.log")
    handle.write("hello\n")
    assert eventually(lambda: "got hello" in handle.log.read_text()), handle.log.read_text()
    assert handle.is_alive()
    handle.kill()
    assert not handle.is_alive()
    assert "4254" not in box.exec("ps", timeout=30).output


def test_files_live_in_the_container(box: DockerRuntime, tmp_path: Path) -> None:
    box.write_file("notes/a.txt", b"one\x00two")
    assert box.read_file("notes/a.txt", 100) == b"one\x00two"
    assert box.read_file("/workspace/notes/a.txt", 3) == b"one"
    assert [(e.name, e.kind, e.size) for e in box.list_dir("notes")] == [("a.txt", "file", 7)]
    assert not (tmp_path / "notes").exists()
    with pytest.raises(RuntimeFailure, match="No such file"):
        box.read_file("notes/missing.txt", 10)
    with pytest.raises(RuntimeFailure, match="directory"):
        box.read_file("notes", 10)


def test_close_removes_the_container_and_its_processes(docker_daemon: DockerDaemon, tmp_path: Path) -> None:
    runtime = DockerRuntime("c", _settings(docker_daemon), Session("close", tmp_path, tmp_path / "state"))
    handle = runtime.spawn("sleep 4255", log=tmp_path / "bg.log")
    container = runtime.container_id
    assert container in docker_daemon.containers()
    runtime.close()
    assert container not in docker_daemon.containers()
    assert handle.wait(10) and not handle.is_alive()


def test_an_idle_container_is_removed(docker_daemon: DockerDaemon, tmp_path: Path) -> None:
    spec = RuntimeSpec("idle", "docker", _settings(docker_daemon, idle_timeout=0.3), Source("t.yaml", 1))
    manager = RuntimeManager(RuntimeTypes())
    try:
        with manager.use(spec, Session("idle", tmp_path, tmp_path / "state")) as runtime:
            assert runtime.exec("true", timeout=30).exit_code == 0
            container = runtime.container_id  # type: ignore[attr-defined]
            assert container in docker_daemon.containers()
        assert manager.wait_reaped("idle", "idle", 30)
        assert container not in docker_daemon.containers()
    finally:
        manager.close()


def test_a_missing_image_or_daemon_is_unavailable_with_the_reason(docker_daemon: DockerDaemon, tmp_path: Path) -> None:
    reason = DockerRuntime.check({"image": "hermes-test:absent", "host": docker_daemon.host})
    assert reason is not None and "hermes-test:absent" in reason and "not present" in reason
    reason = DockerRuntime.check({"image": "x", "host": f"unix://{tmp_path}/none.sock"})
    assert reason is not None and "Docker daemon" in reason
    runtime = DockerRuntime(
        "x", {"image": "hermes-test:absent", "host": docker_daemon.host}, Session("x", tmp_path, tmp_path)
    )
    before = docker_daemon.containers()
    with pytest.raises(RuntimeUnavailable, match="hermes-test:absent"):
        runtime.start()
    runtime.close()
    assert docker_daemon.containers() == before


def test_containers_left_by_a_dead_engine_are_removed_when_a_runtime_starts(
    docker_daemon: DockerDaemon, tmp_path: Path
) -> None:
    import socket
    import subprocess

    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs
    client = docker_daemon.client()
    try:
        labels = {"hermes-engine": "1", "hermes-engine.host": socket.gethostname(), "hermes-engine.pid": str(dead.pid)}
        orphan = client.containers.run(docker_daemon.image, ["sleep", "600"], detach=True, labels=labels)
        runtime = DockerRuntime("o", _settings(docker_daemon), Session("orphans", tmp_path, tmp_path / "state"))
        runtime.start()
        try:
            assert orphan.id not in docker_daemon.containers()
            assert runtime.container_id in docker_daemon.containers()
        finally:
            runtime.close()
    finally:
        client.close()
