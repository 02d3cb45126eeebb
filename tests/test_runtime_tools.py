"""The builtin tools through the Engine, with terminal.runtime set to a sandbox, a container or an ssh host.

Every ask is approved here (a human said yes): what is tested is the second layer, the
runtime, and the assertions are about the harm that did not happen.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from tests.services import DockerDaemon, SshServer, eventually, gone

SECRET = "sk-hermes-engine-runtime-tools-0123456789"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    (path / ".ssh").mkdir(parents=True)
    (path / ".ssh" / "id_ed25519").write_text("PRIVATE\n")
    (path / "notes.txt").write_text("mine\n")
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.setenv("HERMES_TEST_API_KEY", SECRET)
    return path


def _engine(write_project: Callable[..., Path], tmp_path: Path, runtime: str) -> Engine:
    root = write_project(
        {
            "hermes-engine.yaml": f"state_dir: {tmp_path / 'state'}\nterminal: {{runtime: box}}\n",
            "manifests/runtime.yaml": runtime,
        }
    )
    (root / "work").mkdir()
    engine = Engine.load(root, config={"workdir": "work"})
    engine.set_approval_callback(lambda request: "once")
    return engine


def call(engine: Engine, tool: str, **args: Any) -> Any:
    result = engine.call(tool, args, session_id="s1")
    assert result.ok, result.output
    try:
        return json.loads(result.output)
    except json.JSONDecodeError:
        return result.output


# -- sandbox ---------------------------------------------------------------------------------


@pytest.fixture
def sandboxed(bwrap: str, write_project: Callable[..., Path], tmp_path: Path, home: Path) -> Iterator[Engine]:
    engine = _engine(write_project, tmp_path, "kind: Runtime\nname: box\ntype: sandbox\n")
    yield engine
    engine.close()


def test_sandbox_terminal_cannot_reach_home_or_the_engines_environment(sandboxed: Engine, home: Path) -> None:
    out = call(
        sandboxed, "terminal", command="cat ~/.ssh/id_ed25519; rm -f ~/notes.txt; tr '\\0' '\\n' < /proc/$PPID/environ"
    )
    assert "PRIVATE" not in out["output"] and SECRET not in out["output"]
    assert (home / "notes.txt").read_text() == "mine\n"
    assert (home / ".ssh" / "id_ed25519").read_text() == "PRIVATE\n"


def test_sandbox_terminal_keeps_the_working_directory_and_its_confinement(sandboxed: Engine) -> None:
    workdir = sandboxed.workdir
    (workdir / "sub").mkdir()
    assert call(sandboxed, "terminal", command="pwd", cwd="sub")["output"] == f"{workdir / 'sub'}\n"
    refused = sandboxed.call("terminal", {"command": "pwd", "cwd": "../.."}, session_id="s1")
    assert refused.error is not None and "outside the working directory" in refused.error.message


def test_execute_code_in_the_sandbox_cannot_write_outside_the_workdir(sandboxed: Engine, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    config = (sandboxed.root / "hermes-engine.yaml").read_text()
    code = (
        "import pathlib\n"
        "pathlib.Path('inside.txt').write_text('ok')\n"
        # The config's name is put together at run time: spelled out (or joined from literals, which the
        # policy reads as one name), the policy refuses the call before the sandbox is reached (the
        # engine's own files are hardline); this tests the sandbox.
        f"name = '{sandboxed.root}/hermes-'\n"
        "name += 'engine.yaml'\n"
        f"for p in ['{outside}/x', name, '/usr/hermes-x']:\n"
        "    try:\n"
        "        open(p, 'a').write('x')\n"
        "        print('wrote', p)\n"
        "    except OSError as e:\n"
        "        print('refused', p, e.strerror)\n"
    )
    out = call(sandboxed, "execute_code", code=code)
    assert (sandboxed.workdir / "inside.txt").read_text() == "ok"
    assert not (outside / "x").exists() and not Path("/usr/hermes-x").exists()
    assert (sandboxed.root / "hermes-engine.yaml").read_text() == config
    assert out["output"].count("refused") == 3 and "wrote" not in out["output"]


def test_sandbox_background_processes_run_boxed_and_end_with_the_engine(sandboxed: Engine, home: Path) -> None:
    started = call(sandboxed, "terminal", command="read x; echo got $x; ls -A ~; exec sleep 4291", background=True)
    key = started["process_id"]
    call(sandboxed, "process", action="write", process_id=key, input="hi\n")
    assert eventually(lambda: "got hi" in call(sandboxed, "process", action="log", process_id=key))
    assert "notes.txt" not in call(sandboxed, "process", action="log", process_id=key)
    sandboxed.close()
    assert gone("sleep 4291")


def test_execute_code_runs_javascript_too(sandboxed: Engine) -> None:
    out = call(sandboxed, "execute_code", code="console.log(6 * 7)", language="javascript")
    assert out == {"exit_code": 0, "output": "42\n"}


def test_execute_code_is_judged_like_an_inline_program(sandboxed: Engine, home: Path) -> None:
    sandboxed.set_approval_callback(None)
    result = sandboxed.call("execute_code", {"code": "import os; os.system('rm -rf ~')"}, session_id="s1")
    assert result.error is not None and result.error.type == "denied"
    assert "recursive" in result.error.message
    assert (home / "notes.txt").exists()


# -- docker ----------------------------------------------------------------------------------


@pytest.fixture
def contained(
    docker_daemon: DockerDaemon, write_project: Callable[..., Path], tmp_path: Path, home: Path
) -> Iterator[Engine]:
    runtime = (
        f"kind: Runtime\nname: box\ntype: docker\nimage: {docker_daemon.image}\nhost: {docker_daemon.host}\n"
        "mounts: [{source: /usr, target: /usr}]\nidle_timeout: 300\n"
    )
    engine = _engine(write_project, tmp_path, runtime)
    yield engine
    engine.close()
    assert docker_daemon.containers() == []


def test_docker_terminal_and_execute_code_run_inside_the_container(contained: Engine) -> None:
    out = call(contained, "terminal", command="test -f /.dockerenv && echo inside; cd /tmp")
    assert out["output"] == "inside\n" and out["cwd"] == "/tmp"
    code = "import os, socket; print(os.path.exists('/.dockerenv'), os.getcwd(), os.environ.get('HERMES_TEST_API_KEY'))"
    out = call(contained, "execute_code", code=code)
    assert out["output"] == "True /tmp None\n"
    out = call(
        contained, "execute_code", code="console.log(require('fs').existsSync('/.dockerenv'))", language="javascript"
    )
    assert out["output"].endswith("true\n")  # (node may warn about the host CA file it was pointed at)


def test_docker_file_tools_act_on_the_containers_files(contained: Engine) -> None:
    assert "wrote /workspace/notes/a.txt" in call(contained, "write_file", path="notes/a.txt", content="one\ntwo\n")
    assert not (contained.workdir / "notes").exists()
    assert call(contained, "read_file", path="notes/a.txt") == "     1|one\n     2|two"
    assert "-two\n+three" in call(contained, "patch", path="notes/a.txt", old_string="two", new_string="three")
    assert call(contained, "list_dir", path="notes").splitlines()[1] == "a.txt  (10 bytes)"
    assert "notes/a.txt:2:three" in call(contained, "search_files", pattern="thr")
    assert call(contained, "terminal", command="cat /workspace/notes/a.txt")["output"] == "one\nthree\n"


def test_docker_search_skips_secrets_as_the_host_search_does(contained: Engine) -> None:
    """The runtime's own search read every file: `.env`, `~/.ssh` and keys were printed."""
    for path in (".env", "deploy/server.pem", "deploy/.aws/credentials", "src/app.py"):
        call(contained, "write_file", path=path, content=f"TOKEN={SECRET}\n")  # approved once, by the fixture
    contained.set_approval_callback(None)
    out = call(contained, "search_files", pattern="TOKEN")
    assert "src/app.py:1:TOKEN=" in out
    assert out.count(SECRET) == 1, out  # only the ordinary file's line


def test_docker_background_processes_end_with_the_engine(docker_daemon: DockerDaemon, contained: Engine) -> None:
    started = call(contained, "terminal", command="read x; echo got $x; exec sleep 4271", background=True)
    key = started["process_id"]
    call(contained, "process", action="write", process_id=key, input="hi\n")
    assert eventually(lambda: "got hi" in call(contained, "process", action="log", process_id=key))
    assert call(contained, "process", action="poll", process_id=key)["status"] == "running"
    other = contained.call("process", {"action": "poll", "process_id": key}, session_id="someone-else")
    assert other.error is not None  # a process belongs to the session that started it
    assert len(docker_daemon.containers()) == 1
    contained.close()
    assert docker_daemon.containers() == []


# -- ssh -------------------------------------------------------------------------------------


@pytest.fixture
def remote(sshd_server: SshServer, write_project: Callable[..., Path], tmp_path: Path, home: Path) -> Iterator[Engine]:
    remote_dir = tmp_path / "remote"
    remote_dir.mkdir()
    settings = sshd_server.settings(workdir=str(remote_dir))
    runtime = "kind: Runtime\nname: box\ntype: ssh\n" + "".join(f"{k}: {json.dumps(v)}\n" for k, v in settings.items())
    engine = _engine(write_project, tmp_path, runtime)
    yield engine
    engine.close()


def test_ssh_terminal_tracks_the_remote_directory_and_files_use_sftp(remote: Engine, tmp_path: Path) -> None:
    remote_dir = tmp_path / "remote"
    assert call(remote, "terminal", command="mkdir -p deep && cd deep")["cwd"] == str(remote_dir / "deep")
    assert call(remote, "terminal", command="pwd")["output"] == f"{remote_dir / 'deep'}\n"
    call(remote, "write_file", path="hello.txt", content="hi\n")
    assert (remote_dir / "hello.txt").read_text() == "hi\n"
    assert call(remote, "execute_code", code="import os; print(os.getcwd())")["output"] == f"{remote_dir / 'deep'}\n"


def test_ssh_timeout_ends_the_remote_tree_and_close_ends_the_rest(remote: Engine) -> None:
    out = call(remote, "terminal", command="setsid sleep 4281 & sleep 4282", timeout=0.5)
    assert out["exit_code"] == 124 and out["timed_out"] is True
    assert gone("sleep 4281") and gone("sleep 4282")
    call(remote, "terminal", command="sleep 4283", background=True)
    remote.close()
    assert gone("sleep 4283")


def test_an_unreachable_runtime_makes_the_terminal_unavailable(
    write_project: Callable[..., Path], tmp_path: Path, home: Path
) -> None:
    engine = _engine(write_project, tmp_path, "kind: Runtime\nname: box\ntype: ssh\nhost: 127.0.0.1\nport: 1\n")
    try:
        result = engine.call("terminal", {"command": "echo hi"}, session_id="s1")
        assert result.error is not None and result.error.type == "unavailable"
        assert "cannot reach 127.0.0.1:1" in result.error.message
        assert os.environ["HOME"] == str(home)
    finally:
        engine.close()
