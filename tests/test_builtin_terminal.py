"""terminal and process through the engine: cwd, exit codes, timeouts, secrets, background jobs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "sub").mkdir(parents=True)
    return root


@pytest.fixture
def engine(work: Path, tmp_path: Path) -> Engine:
    engine = Engine.load(
        REPO,
        config={
            "workdir": str(work),
            "state_dir": str(tmp_path / "state"),
            "terminal": {"env_allowlist": ["HERMES_TEST_ALLOWED_TOKEN"]},
        },
    )
    yield engine
    engine.close()


def run(engine: Engine, **args: object) -> dict:
    result = engine.call("terminal", args)
    assert result.ok, result.output
    return json.loads(result.output)


def test_command_output_and_exit_code(engine: Engine) -> None:
    out = run(engine, command="echo out; echo err >&2; exit 7")
    assert out == {"exit_code": 7, "output": "out\nerr\n"}


def test_runs_in_the_working_directory_or_a_confined_cwd(engine: Engine, work: Path) -> None:
    assert run(engine, command="pwd")["output"].strip() == str(work)
    assert run(engine, command="pwd", cwd="sub")["output"].strip() == str(work / "sub")
    result = engine.call("terminal", {"command": "pwd", "cwd": "../.."})
    assert result.error is not None and "outside the working directory" in result.error.message


def test_timeout_stops_the_whole_process_group_with_exit_124(engine: Engine, work: Path) -> None:
    marker = work / "survived"
    started = time.monotonic()
    out = run(engine, command=f"(sleep 2; touch {marker}) & sleep 30", timeout=0.5)
    assert out["exit_code"] == 124 and out["timed_out"] is True
    assert "timed out after 0.5s" in out["message"]
    assert time.monotonic() - started < 10
    time.sleep(2.5)
    assert not marker.exists(), "a child of the timed-out command kept running"


def test_only_allowlisted_variables_reach_the_child(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-1234567890abcdefghij")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "t0k3n")
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    monkeypatch.setenv("DATABASE_URL", "postgres://user:pw@db/x")
    monkeypatch.setenv("INNOCENT_LOOKING", "ghp_abcdefghijklmnopqrstuvwxyz0123456789")
    monkeypatch.setenv("REDIS_URL", "redis://:s3cret-pass@cache:6379/0")
    monkeypatch.setenv("SLACK_HOOK", "https://hooks.slack.com/services/T000/B000/XXXX")
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/ssh-agent.sock")
    monkeypatch.setenv("HERMES_TEST_ALLOWED_TOKEN", "allowed")
    monkeypatch.setenv("PLAIN_SETTING", "not on the list")
    monkeypatch.setenv("LC_TIME", "C")
    env = run(engine, command="env")["output"]
    for secret in ("sk-test", "t0k3n", "hunter2", "user:pw", "ghp_", "s3cret-pass", "hooks.slack", "ssh-agent"):
        assert secret not in env
    assert "HERMES_TEST_ALLOWED_TOKEN=allowed" in env
    assert "PLAIN_SETTING" not in env
    assert "LC_TIME=C" in env and "PATH=" in env and "HOME=" in env


def test_background_process_lifecycle(engine: Engine) -> None:
    started = run(engine, command="echo ready; read line; echo got $line; sleep 30", background=True)
    pid_key = started["process_id"]
    listed = json.loads(engine.call("process", {"action": "list"}).output)["processes"]
    assert [p["process_id"] for p in listed] == [pid_key]
    wrote = json.loads(engine.call("process", {"action": "write", "process_id": pid_key, "input": "hello\n"}).output)
    assert wrote["written"] == 6
    deadline = time.monotonic() + 90
    while "got hello" not in engine.call("process", {"action": "log", "process_id": pid_key}).output:
        assert time.monotonic() < deadline, "the process never read its input"
        time.sleep(0.05)
    polled = json.loads(engine.call("process", {"action": "poll", "process_id": pid_key}).output)
    assert polled["status"] == "running"
    killed = json.loads(engine.call("process", {"action": "kill", "process_id": pid_key}).output)
    assert killed["status"] == "exited"


def test_wait_returns_the_exit_code(engine: Engine) -> None:
    pid_key = run(engine, command="echo bye; exit 3", background=True)["process_id"]
    waited = json.loads(engine.call("process", {"action": "wait", "process_id": pid_key, "timeout": 90}).output)
    assert waited["status"] == "exited" and waited["exit_code"] == 3
    assert "bye" in waited["tail"]


def test_wait_returns_the_output_the_log_copier_had_not_written_yet(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen under load: the process had exited but the thread copying its output had not written
    it yet, so `wait` answered with an empty tail. A slow copier stands in for the load here."""
    from engine.runtime import output

    write = output.CappedLog.write

    def slow_write(self: output.CappedLog, data: bytes) -> None:
        time.sleep(0.3)
        write(self, data)

    monkeypatch.setattr(output.CappedLog, "write", slow_write)
    pid_key = run(engine, command="echo bye; exit 3", background=True)["process_id"]
    waited = json.loads(engine.call("process", {"action": "wait", "process_id": pid_key, "timeout": 90}).output)
    assert waited["status"] == "exited" and waited["exit_code"] == 3
    assert "bye" in waited["tail"]


def test_process_errors_are_clear(engine: Engine) -> None:
    result = engine.call("process", {"action": "poll", "process_id": "proc_99"})
    assert result.error is not None and "no background process 'proc_99'" in result.error.message
    result = engine.call("process", {"action": "poll"})
    assert result.error is not None and "process_id is required" in result.error.message


def test_close_kills_background_processes(engine: Engine, work: Path) -> None:
    pid = run(engine, command="sleep 60", background=True)["pid"]
    engine.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("the background process outlived engine.close()")
