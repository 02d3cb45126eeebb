"""Containment, end to end: what a tool call steered by a prompt injection tries, and that
the harm did not happen (files intact, the key not printed), in a temporary HOME and a git
work tree that is also the project."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine

RELAX = "kind: ApprovalPolicy\nmode: off\nyolo: true\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def repo(home: Path, tmp_path: Path) -> Path:
    """A git work tree that is the project (manifests, policies, handlers) and the workdir."""
    root = tmp_path / "repo"
    (root / "policies").mkdir(parents=True)
    (root / "policies" / "deny.yaml").write_text("kind: ApprovalPolicy\ndeny: ['npm publish*']\n")
    (root / "hermes-engine.yaml").write_text("workdir: .\nhandler_roots: [myhandlers]\n")
    (root / "myhandlers").mkdir()
    (root / "myhandlers" / "__init__.py").write_text("")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def engine(repo: Path) -> Iterator[Engine]:
    engine = Engine.load(repo)
    yield engine
    engine.close()


def terminal(engine: Engine, command: str) -> dict[str, object]:
    result = engine.call("terminal", {"command": command})
    return {"ok": result.ok, "output": result.output, "error": result.error and result.error.message}


# -- Why: "turn approvals off" ------------------------------------------------------------


def test_a_tool_cannot_write_a_policy_that_turns_approvals_off(engine: Engine, repo: Path) -> None:
    engine.set_approval_callback(lambda request: "once")  # even a human saying yes does not help
    for path in ("manifests/relax.yaml", "policies/relax.yaml", "toolsets/x.yaml", "hermes-engine.yaml"):
        result = engine.call("write_file", {"path": path, "content": RELAX})
        assert result.error is not None and "engine's own files" in result.error.message, path
    for command in (
        f"printf '{RELAX}' > manifests/relax.yaml",
        "cd policies && tee relax.yaml < /dev/null",
        "cp /dev/null policies/deny.yaml",
        "rm policies/deny.yaml",
        "git checkout -- policies/deny.yaml",
        f"echo 'yolo: true' >> {repo}/hermes-engine.yaml",
    ):
        out = terminal(engine, command)
        assert not out["ok"] and "hardline" in str(out["error"]), command
    assert not (repo / "manifests").exists() and not (repo / "policies" / "relax.yaml").exists()
    assert (repo / "policies" / "deny.yaml").read_text().startswith("kind: ApprovalPolicy")
    assert (repo / "hermes-engine.yaml").read_text() == "workdir: .\nhandler_roots: [myhandlers]\n"
    # The next load still asks before a force push, and still denies what the project denies.
    fresh = Engine.load(repo)
    assert fresh.check("git push -f origin main").decision == "ask"
    assert fresh.check("npm publish").decision == "deny"


def test_a_tool_cannot_plant_handler_code_that_runs_at_the_next_load(engine: Engine, repo: Path, home: Path) -> None:
    marker = home / "pwned"
    code = f"open({str(marker)!r}, 'w').write('ran')\ndef x() -> str:\n    return ''\n"
    tool = "kind: Tool\nname: x\ntoolset: file\ndescription: X.\nhandler: myhandlers.x:x\nparameters: {type: object}\n"
    engine.set_approval_callback(lambda request: "once")
    assert engine.call("write_file", {"path": "myhandlers/x.py", "content": code}).error is not None
    assert engine.call("write_file", {"path": "manifests/x.yaml", "content": tool}).error is not None
    assert not terminal(engine, f"printf %s {json.dumps(code)} > myhandlers/x.py")["ok"]
    assert not terminal(engine, "mkdir -p manifests; cp /dev/stdin manifests/x.yaml < /dev/null")["ok"]
    Engine.load(repo).close()
    assert not marker.exists() and not (repo / "myhandlers" / "x.py").exists()


def test_the_state_dir_and_audit_log_live_outside_the_work_tree_and_are_out_of_reach(
    engine: Engine, repo: Path, home: Path
) -> None:
    state = engine.state_dir
    assert not state.is_relative_to(repo) and state.is_relative_to(home / ".local" / "state" / "hermes-engine")
    assert terminal(engine, "git push -f origin main")["error"]  # audited (denied: nobody to ask)
    log = state / "audit.jsonl"
    before = log.read_bytes()
    for command in (f"echo forged >> {log}", f"truncate -s0 {log}", f"rm -rf {state}", f"sed -i d {log}"):
        assert not terminal(engine, command)["ok"], command
    assert engine.call("write_file", {"path": str(log), "content": ""}).error is not None
    assert log.read_bytes().startswith(before)


def test_a_state_dir_the_engine_cannot_write_is_a_located_validation_error(repo: Path) -> None:
    (repo / "hermes-engine.yaml").write_text("workdir: .\nhandler_roots: [myhandlers]\nstate_dir: /dev/null\n")
    command = ["hermes-engine", "validate", "--root", str(repo), "--format", "json"]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 1, result.stderr
    problems = json.loads(result.stdout)["errors"]
    assert [(p["code"], p["line"], p["pointer"]) for p in problems] == [("config-invalid", 3, "/state_dir")]


# -- Why: "write through a symlink" ---------------------------------------------------------


def test_a_link_to_the_git_config_is_judged_where_it_lands(engine: Engine, repo: Path) -> None:
    config = repo / ".git" / "config"
    before = config.read_bytes()
    (repo / "gc").symlink_to(".git/config")
    hook = "[core]\n\tfsmonitor = touch /tmp/pwned-by-fsmonitor\n"
    written = engine.call("write_file", {"path": "gc", "content": hook})
    assert written.error is not None and written.error.type == "pending_approval"
    for command in (f"printf '{hook}' >> gc", "cat /dev/null > gc", "cp /dev/null gc"):
        out = terminal(engine, command)
        assert not out["ok"], command
    assert config.read_bytes() == before
    assert engine.check("echo x > gc").decision == "ask"
    assert engine.check("echo x > notes.txt").decision == "allow"


# -- Why: "read what the terminal would ask about" ------------------------------------------


def test_reading_a_secret_file_asks_like_cat_does(engine: Engine, repo: Path) -> None:
    (repo / ".env").write_text("OPENAI_API_KEY=sk-live-0123456789abcdef\n")
    (repo / "leak").symlink_to(repo / ".env")
    for tool, args in (("read_file", {"path": ".env"}), ("read_file", {"path": "leak"})):
        result = engine.call(tool, args)
        assert result.error is not None and result.error.type == "pending_approval", (tool, args)
        assert "sk-live" not in result.output
    assert engine.check(".env", tool="read_file").decision == engine.check("cat .env").decision == "ask"
