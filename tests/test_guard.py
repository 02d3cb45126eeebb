"""`hermes-engine guard`: agents' hook events judged by the policy, answered in their protocols.

Samples of real hook payloads live in tests/data/guard (see its README for their sources).
Nothing here runs the commands it judges; HOME and the XDG dirs point into temporary dirs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.cli import cli
from engine.guard import cache, hook
from engine.policy.audit import audit_path, verify

DATA = Path(__file__).resolve().parent / "data" / "guard"
REPO = Path(__file__).resolve().parent.parent

APPROVAL = """kind: ApprovalPolicy
name: project
description: Ask before deploying through the infra MCP server.
rules:
  mcp__infra__deploy:
    ask: [{environment: "production"}]
"""


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("guard-homes")
    out = {name: base / name for name in ("home", "state", "config")}
    for path in out.values():
        path.mkdir()
    return out


@pytest.fixture(autouse=True)
def _env(homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    # One key and state dir for the module, so the compiled project is built once, not per test.
    monkeypatch.setenv("HOME", str(homes["home"]))
    monkeypatch.setenv("XDG_STATE_HOME", str(homes["state"]))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(homes["config"]))


def make_project(root: Path, approval: str = APPROVAL) -> Path:
    (root / "policies").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "hermes-engine.yaml").write_text("include_builtin: true\n")
    (root / "policies" / "approval.yaml").write_text(approval)
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("guarded") / "proj")


def event(name: str, root: Path, home: Path) -> bytes:
    text = (DATA / f"{name}.json").read_text()
    return text.replace("@ROOT@", str(root)).replace("@HOME@", str(home)).encode()


def run_guard(agent: str, data: bytes, root: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["guard", "--for", agent, "--root", str(root)], input=data)
    return result.exit_code, result.stdout, result.stderr


def decision_of(agent: str, out: str) -> str:
    answer = json.loads(out)
    if agent == "gemini":
        return str(answer.get("decision", "defer"))
    specific = answer.get("hookSpecificOutput")
    return "defer" if specific is None else str(specific["permissionDecision"])


CASES = [
    # (sample, expected decision, engine tool it was judged as)
    ("claude-code-bash-ls", "allow", "terminal"),
    ("claude-code-bash-rm-home", "deny", "terminal"),
    ("claude-code-bash-curl-sh", "ask", "terminal"),
    ("claude-code-write-src", "allow", "write_file"),
    ("claude-code-write-policy", "deny", "write_file"),
    ("claude-code-edit-bashrc", "ask", "patch"),
    ("claude-code-multiedit-hooks", "ask", "patch"),
    ("claude-code-read-env", "ask", "read_file"),
    ("claude-code-read-src", "allow", "read_file"),
    ("claude-code-mcp-deploy", "ask", "mcp__infra__deploy"),
    ("claude-code-task", "defer", "Task"),
    ("codex-bash-rm-root", "deny", "terminal"),
    ("codex-bash-curl-sh", "deny", "terminal"),  # Codex cannot ask: refused, with the reason
    ("codex-bash-ls", "defer", "terminal"),  # allowed: Codex's own approval rules still apply
    ("codex-apply-patch-policy", "deny", "write_file"),
    ("codex-apply-patch-src", "defer", "patch"),
    ("gemini-shell-rm-home", "deny", "terminal"),
    ("gemini-shell-ls", "allow", "terminal"),
    ("gemini-write-policy", "deny", "write_file"),
    ("gemini-replace-bashrc", "ask", "patch"),
    ("gemini-read-env", "ask", "read_file"),
]


def last_audit(root: Path) -> dict[str, Any]:
    project, _ = cache.load_project(root)
    assert project is not None
    lines = audit_path(project.config).read_text().splitlines()
    record: dict[str, Any] = json.loads(lines[-1])
    return record


@pytest.mark.parametrize(("sample", "expected", "engine_tool"), CASES)
def test_each_mapped_tool(project: Path, homes: dict[str, Path], sample: str, expected: str, engine_tool: str) -> None:
    agent = (
        sample.split("-bash", maxsplit=1)[0].split("-", maxsplit=1)[0]
        if not sample.startswith("claude-code")
        else "claude-code"
    )
    code, out, err = run_guard(agent, event(sample, project, homes["home"]), project)
    assert code == 0, err
    assert decision_of(agent, out) == expected
    if expected in ("ask", "deny"):
        answer = json.loads(out)
        reason = answer.get("reason") or answer["hookSpecificOutput"]["permissionDecisionReason"]
        assert "hermes-engine" in reason
    record = last_audit(project)
    assert record["tool"] == engine_tool
    assert record["agent"] == agent
    assert record["session_id"]


def test_every_decision_is_in_the_verifiable_audit_log(project: Path, homes: dict[str, Path]) -> None:
    for sample in ("claude-code-bash-ls", "claude-code-bash-rm-home", "gemini-read-env"):
        agent = "gemini" if sample.startswith("gemini") else "claude-code"
        assert run_guard(agent, event(sample, project, homes["home"]), project)[0] == 0
    project_obj, _ = cache.load_project(project)
    assert project_obj is not None
    log = audit_path(project_obj.config)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert {"guard-allow", "guard-deny", "guard-ask"} <= {r["outcome"] for r in records}
    assert verify(log).intact


# -- fail closed -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'{"tool_input": {}}',
        b'{"tool_name": "Bash", "tool_input": "rm -rf /"}',
        b'{"tool_name": "Bash", "tool_input": {"command": 42}}',
        b'{"tool_name": "Write", "tool_input": {}}',
        b'{"tool_name": "Bash", "hook_event_name": "PostToolUse", "tool_input": {"command": "ls"}}',
        b"\xff\xfe garbage",
    ],
)
def test_garbage_input_blocks_with_exit_2(project: Path, data: bytes) -> None:
    code, out, err = run_guard("claude-code", data, project)
    assert code == 2
    assert out == ""
    assert "blocked" in err


def test_a_directory_that_is_not_a_project_blocks(tmp_path: Path, homes: dict[str, Path]) -> None:
    code, _, err = run_guard("claude-code", event("claude-code-bash-ls", tmp_path, homes["home"]), tmp_path)
    assert code == 2
    assert "not a hermes-engine project" in err


def test_a_broken_project_blocks(tmp_path: Path, homes: dict[str, Path]) -> None:
    root = make_project(tmp_path / "broken")
    (root / "policies" / "bad.yaml").write_text("kind: DangerPatterns\nname: bad\npatterns: [{key: 1}]\n")
    code, _, err = run_guard("claude-code", event("claude-code-bash-ls", root, homes["home"]), root)
    assert code == 2
    assert "does not load" in err


def test_an_internal_exception_blocks(project: Path, homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(hook, "judge", boom)
    code, out, err = run_guard("claude-code", event("claude-code-bash-ls", project, homes["home"]), project)
    assert (code, out) == (2, "")
    assert "internal error (RuntimeError: bug)" in err


def _process(args: list[str], data: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], input=data, capture_output=True, env=env, timeout=120, check=False
    )


def test_the_real_process_fails_closed_and_answers(project: Path, homes: dict[str, Path]) -> None:
    env = {**os.environ, "HOME": str(homes["home"]), "XDG_STATE_HOME": str(homes["state"])}
    env["XDG_CONFIG_HOME"] = str(homes["config"])
    bad = _process(["guard", "--for", "claude-code", "--root", str(project)], b"{", env)
    assert bad.returncode == 2 and bad.stdout == b"" and b"blocked" in bad.stderr
    no_agent = _process(["guard", "--root", str(project)], b"{}", env)
    assert no_agent.returncode == 2
    good = _process(
        ["guard", "--for", "claude-code", "--root", str(project)],
        event("claude-code-bash-rm-home", project, homes["home"]),
        env,
    )
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


# -- the compiled-project cache -----------------------------------------------------------


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Path]:
    yield make_project(tmp_path / "fresh", approval=APPROVAL)


def _check(root: Path, command: str) -> str:
    result = CliRunner().invoke(cli, ["check", "--root", str(root), command])
    return result.stdout.splitlines()[0]


def test_a_warm_start_reads_the_cache_and_an_edit_is_seen_on_the_next_call(fresh: Path) -> None:
    patterns = fresh / "policies" / "mine.yaml"
    patterns.write_text(
        "kind: DangerPatterns\nname: mine\ndescription: d\npatterns:\n"
        "  - {key: deploy, description: deploying, severity: dangerous, match: {command: [deploy-prod]},\n"
        "     examples: {match: [deploy-prod now], not_match: [deploy-staging]}}\n"
    )
    assert _check(fresh, "deploy-prod now") == "ask"
    project, result = cache.load_project(fresh)
    assert project is not None and project.from_cache and result is None
    patterns.write_text(patterns.read_text().replace("dangerous", "hardline"))
    # An edit nobody approved (a tool may have made it) is not loaded, from the cache or from source.
    refused = CliRunner().invoke(cli, ["check", "--root", str(fresh), "deploy-prod now"])
    assert refused.exit_code == 1 and "unapproved-change" in refused.output
    _trust(fresh)
    assert _check(fresh, "deploy-prod now") == "deny (hardline)"
    patterns.unlink()
    _trust(fresh)
    assert _check(fresh, "deploy-prod now") == "allow"


def _trust(root: Path) -> None:
    result = CliRunner().invoke(cli, ["trust", "--root", str(root), "--yes"])
    assert result.exit_code == 0, result.output


def test_a_corrupt_cache_is_rebuilt_and_the_verdict_stays_right(fresh: Path) -> None:
    assert _check(fresh, "rm -rf ~") == "deny (hardline)"
    path = cache.cache_path(fresh.resolve())
    for damage in (b"", b"garbage", path.read_bytes()[:-100], path.read_bytes()[:60] + b"x" + path.read_bytes()[61:]):
        path.write_bytes(damage)
        assert _check(fresh, "rm -rf ~") == "deny (hardline)"
        project, _ = cache.load_project(fresh)
        assert project is not None and project.from_cache  # written again, and read back


def test_a_tampered_cache_is_never_unpickled(fresh: Path, tmp_path: Path) -> None:
    """A pickle that would run code, or one that drops every pattern, under a MAC it cannot forge."""
    assert _check(fresh, "rm -rf ~") == "deny (hardline)"
    path = cache.cache_path(fresh.resolve())
    raw = path.read_bytes()
    magic, mac_end = len(cache._MAGIC), len(cache._MAGIC) + 32
    header = raw[mac_end : raw.index(b"\n", mac_end) + 1]
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> Any:
            return (os.system, (f"touch {marker}",))

    import pickle

    for body in (pickle.dumps(Evil()), pickle.dumps(None)):
        path.write_bytes(raw[:magic] + b"\0" * 32 + header + body)
        assert _check(fresh, "rm -rf ~") == "deny (hardline)"
        assert not marker.exists()
    # Signed with another key (a key the tool wrote itself): still refused.
    path.write_bytes(raw)
    (Path(os.environ["XDG_CONFIG_HOME"]) / "hermes-engine" / "audit" / "compiled-project.key").write_text("00" * 32)
    assert cache._from_cache(fresh.resolve(), path) is None


def test_the_cache_is_out_of_reach_of_the_tools_it_guards(project: Path, homes: dict[str, Path]) -> None:
    path = cache.cache_path(project.resolve())
    assert path.is_relative_to(homes["state"])
    write = {"tool_name": "Write", "cwd": str(project), "tool_input": {"file_path": str(path), "content": "x"}}
    bash = {"tool_name": "Bash", "cwd": str(project), "tool_input": {"command": f"echo x > {path}"}}
    read = {"tool_name": "Read", "cwd": str(project), "tool_input": {"file_path": str(path)}}
    for payload, expected in ((write, "deny"), (bash, "deny"), (read, "deny")):  # engine state: hardline for file tools
        code, out, _ = run_guard("claude-code", json.dumps(payload).encode(), project)
        assert code == 0
        assert decision_of("claude-code", out) == expected


def test_a_warm_guard_imports_only_what_it_uses(project: Path, homes: dict[str, Path]) -> None:
    env = {**os.environ, "HOME": str(homes["home"]), "XDG_STATE_HOME": str(homes["state"])}
    env["XDG_CONFIG_HOME"] = str(homes["config"])
    data = event("claude-code-bash-ls", project, homes["home"])
    _process(["guard", "--for", "claude-code", "--root", str(project)], data, env)  # warm the cache
    probe = (
        "import sys, io\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[2].encode()))\n"
        "from engine.cli import main\n"
        "try:\n    main(['guard', '--for', 'claude-code', '--root', sys.argv[1]])\n"
        "except SystemExit:\n    pass\n"
        "heavy = ('cerberus', 'jinja2', 'watchfiles', 'jsonschema_rs', 'engine.adapters', 'engine.compile.loader',\n"
        "         'engine.engine', 'engine.mcp.client', 'yaml', 'asyncio', 'engine.runtime', 'filelock', 'click',\n"
        # RE2's extension: built on when a long text or a flat scan needs it (engine.policy.regexes).
        "         're2._re2')\n"
        "print(' '.join(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
        # Imported by the standard library for calls a guard never makes: never run (engine.guard.deferred).
        "ran = [m for m in ('inspect', 'ipaddress') if type(sys.modules.get(m)).__name__ == 'module']\n"
        "print(' '.join(ran), file=sys.stderr)\n"
        # Collections held while it starts only (engine.guard.deferred.hold_collection): on while it judges.
        "import gc\n"
        "print('' if gc.isenabled() and gc.get_freeze_count() else 'gc off or none frozen', file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(project), data.decode()],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert done.stderr.decode().strip() == ""


# -- install / uninstall ------------------------------------------------------------------

OTHER_HOOKS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/lint-bash.sh"}]}],
        "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}],
    },
    "model": "opus",
}


def test_install_and_uninstall_round_trip(tmp_path: Path, project: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = json.dumps(OTHER_HOOKS, indent=2)
    settings.write_text(original)
    runner = CliRunner()
    args = ["guard", "--root", str(project), "install", "--for", "claude-code", "--settings", str(settings)]
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    data = json.loads(settings.read_text())
    assert data["hooks"]["PostToolUse"] == OTHER_HOOKS["hooks"]["PostToolUse"]
    assert data["permissions"] == OTHER_HOOKS["permissions"] and data["model"] == "opus"
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == OTHER_HOOKS["hooks"]["PreToolUse"][0]
    ours = pre[1]["hooks"][0]
    assert pre[1]["matcher"] == "*" and "guard --for claude-code" in ours["command"] and str(project) in ours["command"]
    backups = list(settings.parent.glob("settings.json.bak-*"))
    assert len(backups) == 1 and backups[0].read_text() == original
    installed = settings.read_text()
    again = runner.invoke(cli, args)
    assert "already installed" in again.output and settings.read_text() == installed
    removed = runner.invoke(cli, ["guard", "uninstall", "--settings", str(settings)])
    assert removed.exit_code == 0, removed.output
    assert json.loads(settings.read_text()) == OTHER_HOOKS
    assert "no guard hook" in runner.invoke(cli, ["guard", "uninstall", "--settings", str(settings)]).output


def test_install_creates_and_uninstall_empties_a_new_file(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    runner = CliRunner()
    assert runner.invoke(cli, ["guard", "install", "--settings", str(settings)]).exit_code == 0
    assert "PreToolUse" in json.loads(settings.read_text())["hooks"]
    assert runner.invoke(cli, ["guard", "uninstall", "--settings", str(settings)]).exit_code == 0
    assert json.loads(settings.read_text()) == {}


@pytest.mark.parametrize("content", ["{not json", "[1]", '{"hooks": []}', '{"hooks": {"PreToolUse": {}}}'])
def test_install_never_clobbers_a_file_it_cannot_read(tmp_path: Path, content: str) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(content)
    for command in ("install", "uninstall"):
        result = CliRunner().invoke(cli, ["guard", command, "--settings", str(settings)])
        assert result.exit_code != 0
        assert "left as it is" in result.output
        assert settings.read_text() == content
    assert not list(tmp_path.glob("*.bak-*"))


# -- serve --------------------------------------------------------------------------------


def test_serve_answers_on_loopback_with_a_token(project: Path, homes: dict[str, Path]) -> None:
    import threading
    import urllib.error
    import urllib.request

    from engine.errors import UsageError
    from engine.guard.serve import make_server

    with pytest.raises(UsageError):
        make_server(project, 0, "short")
    token = "t0k3n-" + "x" * 20
    server = make_server(project.resolve(), 0, token)
    assert server.server_address[0] == "127.0.0.1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/guard/"

    def post(agent: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
        request = urllib.request.Request(url + agent, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    auth = {"Authorization": f"Bearer {token}"}
    try:
        rm = event("claude-code-bash-rm-home", project, homes["home"])
        assert post("claude-code", rm, {})[0] == 401
        assert post("claude-code", rm, {"Authorization": "Bearer " + "y" * 26})[0] == 401
        assert post("claude-code", rm, {**auth, "Origin": "http://evil.example"})[0] == 403
        assert post("nobody", rm, auth)[0] == 404
        status, answer = post("claude-code", rm, auth)
        assert status == 200 and answer["hookSpecificOutput"]["permissionDecision"] == "deny"
        status, answer = post("gemini", event("gemini-shell-ls", project, homes["home"]), auth)
        assert status == 200 and answer["decision"] == "allow"
        status, answer = post("claude-code", b"garbage", auth)  # fails closed, in the protocol
        assert status == 200 and answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("args", "parsed"),
    [
        (["guard", "--for", "codex"], ("codex", None, False)),
        (["guard", "--root", "/p", "--for=gemini"], ("gemini", "/p", False)),
        (["guard", "--builtin", "--for", "claude-code"], ("claude-code", None, True)),
        (["guard", "--for", "claude-code", "--for", "codex"], None),
        (["guard", "--for", "nobody"], None),
        (["guard", "--for", "codex", "--root", "/p", "--builtin"], None),
        (["guard", "--for", "codex", "--serve"], None),
        (["guard", "install", "--for", "claude-code"], None),
        (["guard", "--for"], None),
        (["guard", "--root="], None),
    ],
)
def test_the_hook_form_is_read_without_the_full_parser(args: list[str], parsed: object) -> None:
    """What an agent runs per call skips click; every other form goes to the full parser."""
    from engine.cli import _hook_call

    assert _hook_call(args) == parsed
