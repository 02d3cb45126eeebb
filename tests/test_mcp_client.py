"""McpServer manifests: other MCP servers' tools in the engine, against real servers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine import Engine
from engine.cli import cli
from engine.reload.events import ReloadEvent
from tests.peers import npm_bin, python_bin

HOSTILE = Path(__file__).resolve().parent / "mcp_servers" / "hostile.py"
BOUND = 60.0

LOCAL = {
    "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [local]\n",
    "local/__init__.py": "def echo(text: str) -> str:\n    return 'local: ' + text\n",
    "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
    "manifests/local.yaml": """
        kind: Tool
        name: mcp__hostile__echo
        toolset: t
        description: A local tool that a server's tool must not replace.
        handler: local:echo
        parameters:
          type: object
          properties: {text: {type: string}}
          required: [text]
    """,
}


def server_manifest(name: str, command: str, args: list[str], **extra: Any) -> str:
    doc = {"kind": "McpServer", "name": name, "transport": "stdio", "command": command, "args": args, **extra}
    return json.dumps(doc)


@pytest.fixture
def engines() -> Iterator[list[Engine]]:
    made: list[Engine] = []
    yield made
    for engine in made:
        engine.close()


def load(root: Path, engines: list[Engine]) -> Engine:
    engine = Engine.load(root)
    engines.append(engine)
    from engine.mcp.client import settle

    assert settle(engine, BOUND), "the MCP servers did not settle"
    return engine


def cli_json(*args: str) -> Any:
    result = CliRunner().invoke(cli, [*args])
    assert result.exit_code == 0, result.output + (result.stderr or "")
    return json.loads(result.stdout)


def children(name: str) -> list[int]:
    """Processes started by this one whose command line mentions ``name``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and name in cmdline:
            found.append(int(entry))
    return found


# -- real servers -------------------------------------------------------------------------


def test_mcp_server_time_tools_appear_in_list_and_calls_work(write_project: Callable[..., Path]) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\n",
            "manifests/time.yaml": server_manifest(
                "time", python_bin("mcp-server-time"), ["--local-timezone", "UTC"], exclude=["convert_*"]
            ),
        }
    )
    rows = cli_json("list", "--json", "--root", str(root))
    by_name = {r["name"]: r for r in rows}
    assert by_name["mcp__time__get_current_time"]["available"] is True
    assert by_name["mcp__time__get_current_time"]["source"] == "time (mcp)"
    assert by_name["mcp__time__get_current_time"]["toolset"] == "mcp-time"
    assert "mcp__time__convert_time" not in by_name  # excluded
    result = CliRunner().invoke(
        cli, ["call", "--root", str(root), "mcp__time__get_current_time", '{"timezone": "Asia/Tokyo"}']
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["timezone"] == "Asia/Tokyo"
    # The toolset and its alias select the server's tools.
    for selection in ("mcp-time", "time"):
        names = [d["function"]["name"] for d in cli_json("schema", "--enable", selection, "--root", str(root))]
        assert names == ["mcp__time__get_current_time"]


def test_mcp_server_git_include_holds_and_calls_go_through_validation(
    write_project: Callable[..., Path], tmp_path: Path, engines: list[Engine]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new.txt").write_text("hello")
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\n",
            "manifests/git.yaml": server_manifest(
                "git", python_bin("mcp-server-git"), ["--repository", str(repo)], include=["git_status", "git_log"]
            ),
        }
    )
    engine = load(root, engines)
    names = sorted(n for n in engine.tools if n.startswith("mcp__git__"))
    assert names == ["mcp__git__git_log", "mcp__git__git_status"]
    status = engine.call("mcp__git__git_status", {"repo_path": str(repo)})
    assert status.ok, status.output
    assert "new.txt" in status.output
    # Arguments are validated against the server's schema before anything is sent.
    invalid = engine.call("mcp__git__git_status", {"repo_path": 5, "unexpected": True})
    assert not invalid.ok and invalid.error is not None and invalid.error.type == "invalid_arguments"
    excluded = engine.call("mcp__git__git_add", {"repo_path": str(repo), "files": ["new.txt"]})
    assert not excluded.ok and excluded.error is not None and excluded.error.type == "unknown_tool"
    assert "new.txt" in subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True, check=True
    ).stdout.replace("?? ", "")


def test_server_everything_over_stdio_with_include_and_exclude(
    write_project: Callable[..., Path], engines: list[Engine]
) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\n",
            "manifests/everything.yaml": server_manifest(
                "everything",
                npm_bin("mcp-server-everything"),
                ["stdio"],
                include=["echo", "get-sum", "get-tiny-image"],
                exclude=["get-tiny-image"],
            ),
        }
    )
    engine = load(root, engines)
    names = sorted(n for n in engine.tools if n.startswith("mcp__everything__"))
    assert names == ["mcp__everything__echo", "mcp__everything__get_sum"]
    echoed = engine.call("mcp__everything__echo", {"message": "through the engine"})
    assert echoed.ok and "through the engine" in echoed.output
    summed = engine.call("mcp__everything__get_sum", {"a": 2, "b": 40})
    assert summed.ok and "42" in summed.output


def test_a_killed_server_makes_its_tools_unavailable_and_it_comes_back(
    write_project: Callable[..., Path], engines: list[Engine]
) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\n",
            "manifests/time.yaml": server_manifest("time", python_bin("mcp-server-time"), []),
        }
    )
    engine = load(root, engines)
    name = "mcp__time__get_current_time"
    assert engine.call(name, {"timezone": "UTC"}).ok
    seen: list[bool] = []
    back = threading.Event()

    def record(event: ReloadEvent) -> None:
        if name in engine.tools:
            available = engine.availability(name).available
            seen.append(available)
            if available and False in seen:
                back.set()

    engine.on_reload(record)
    (pid,) = children("mcp-server-time")
    os.kill(pid, signal.SIGKILL)
    assert back.wait(BOUND), f"the server did not come back: {seen}"
    assert False in seen  # unavailable (with the reason) while it was down
    assert engine.call(name, {"timezone": "UTC"}).ok
    assert children("mcp-server-time") != [pid]


# -- hostile servers ------------------------------------------------------------------------


def hostile(mode: str, **extra: Any) -> str:
    return server_manifest("hostile", sys.executable, [str(HOSTILE), mode], **extra)


def test_unusable_tools_are_skipped_with_located_warnings_and_the_rest_work(
    write_project: Callable[..., Path], engines: list[Engine]
) -> None:
    root = write_project({**LOCAL, "manifests/server.yaml": hostile("schemas")})
    engine = load(root, engines)
    mcp_tools = sorted(n for n in engine.tools if n.startswith("mcp__hostile__"))
    assert mcp_tools == [
        "mcp__hostile__echo",
        "mcp__hostile__environ",
        "mcp__hostile__grow",
        "mcp__hostile__ok",
        "mcp__hostile__we_ird_name",
    ]
    # The local tool keeps its name and its handler.
    assert engine.call("mcp__hostile__echo", {"text": "x"}).output == "local: x"
    assert engine.tools["mcp__hostile__echo"].source.file.endswith("local.yaml")
    ok = engine.call("mcp__hostile__ok", {"text": "y"})
    assert ok.ok and ok.output == "ok: y"
    assert "<system>" not in engine.tools["mcp__hostile__ok"].description
    odd = engine.call("mcp__hostile__we_ird_name", {"text": "z"})
    assert odd.output == "we ird/name: z"  # called by the server's own name
    warnings = [p for p in engine.snapshot.warnings if p.file == "manifests/server.yaml"]
    skipped = " ".join(p.message for p in warnings)
    for tool in ("bad_schema", "remote_ref", "deep", "'mcp__hostile__echo' skipped: a local tool"):
        assert tool in skipped
    assert all(p.line == 1 and p.code == "mcp-tool-skipped" for p in warnings)


def test_list_changed_from_a_server_brings_its_new_tool_as_a_new_generation(
    write_project: Callable[..., Path], engines: list[Engine]
) -> None:
    root = write_project({**LOCAL, "manifests/server.yaml": hostile("schemas")})
    engine = load(root, engines)
    grown = threading.Event()

    def watch(event: ReloadEvent) -> None:
        if any(n.startswith("mcp__hostile__grown") for n in event.added):
            grown.set()

    engine.on_reload(watch)
    before = engine.generation
    assert engine.call("mcp__hostile__grow", {}).ok
    assert grown.wait(BOUND)
    assert engine.generation > before
    new = next(n for n in engine.tools if n.startswith("mcp__hostile__grown"))
    assert engine.call(new, {"text": "fresh"}).output.endswith(": fresh")


@pytest.mark.parametrize("mode", ["hang", "garbage", "invalid_listing"])
def test_a_server_that_hangs_or_breaks_the_protocol_never_blocks_the_load(
    mode: str, write_project: Callable[..., Path], engines: list[Engine]
) -> None:
    root = write_project({**LOCAL, "manifests/server.yaml": hostile(mode, connect_timeout=2)})
    engine = Engine.load(root)  # returns at once: the server connects in the background
    engines.append(engine)
    assert engine.call("mcp__hostile__echo", {"text": "still here"}).output == "local: still here"
    from engine.mcp.client import server_rows, settle

    assert settle(engine, BOUND)
    (row,) = server_rows(engine)
    assert row.state in ("retrying", "circuit open") and row.tools == 0
    assert row.reason
    assert not any(n.startswith("mcp__hostile__") and n != "mcp__hostile__echo" for n in engine.tools)
    assert engine.call("mcp__hostile__echo", {"text": "after"}).ok


def test_validate_connect_reports_a_dead_server_at_its_manifest(write_project: Callable[..., Path]) -> None:
    root = write_project(
        {
            **LOCAL,
            "manifests/server.yaml": server_manifest("gone", "no-such-mcp-server-binary", [], connect_timeout=2),
        }
    )
    static = CliRunner().invoke(cli, ["validate", "--root", str(root)])
    assert static.exit_code == 0, static.output
    connected = CliRunner().invoke(cli, ["validate", "--connect", "--root", str(root), "--format", "json"])
    assert connected.exit_code == 1
    (error,) = json.loads(connected.stdout)["errors"]
    assert error["code"] == "mcp-connect-failed" and error["file"] == "manifests/server.yaml"
    assert "not found" in error["message"]


# -- what a server is given, and what the manifest may say ------------------------------------


def test_a_stdio_server_gets_no_secret_of_the_engine_only_what_the_manifest_grants(
    write_project: Callable[..., Path], engines: list[Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefghijklmnop")
    monkeypatch.setenv("HERMES_TEST_DB_PASSWORD", "hunter2-hunter2")
    monkeypatch.setenv("SERVICE_TOKEN_FOR_SERVER", "granted-token-value")
    env = {"SERVICE_TOKEN": "${SERVICE_TOKEN_FOR_SERVER}", "GREETING": "hello"}
    root = write_project({**LOCAL, "manifests/server.yaml": hostile("schemas", env=env)})
    engine = load(root, engines)
    result = engine.call("mcp__hostile__environ", {})
    assert result.ok, result.output
    child = json.loads(result.output)
    assert child["SERVICE_TOKEN"] == "granted-token-value"
    assert child["GREETING"] == "hello"
    assert "OPENAI_API_KEY" not in child and "HERMES_TEST_DB_PASSWORD" not in child
    assert "sk-test-0123456789" not in result.output and "hunter2" not in result.output


def test_a_server_needing_an_unset_variable_is_unavailable_and_says_which(
    write_project: Callable[..., Path], engines: list[Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HERMES_TEST_UNSET_TOKEN", raising=False)
    env = {"API_TOKEN": "${HERMES_TEST_UNSET_TOKEN}"}
    root = write_project({**LOCAL, "manifests/server.yaml": hostile("schemas", env=env)})
    engine = load(root, engines)
    from engine.mcp.client import server_rows

    (row,) = server_rows(engine)
    assert row.state == "failed" and "HERMES_TEST_UNSET_TOKEN" in (row.reason or "")
    assert children("hostile.py") == []  # never started


def test_approval_field_asks_or_denies_per_tool(write_project: Callable[..., Path], engines: list[Engine]) -> None:
    approval = {"default": "allow", "tools": {"grow": "deny", "we*": "ask"}}
    root = write_project({**LOCAL, "manifests/server.yaml": hostile("schemas", approval=approval)})
    engine = load(root, engines)
    generation = engine.generation
    denied = engine.call("mcp__hostile__grow", {})
    assert not denied.ok and denied.error is not None and denied.error.type == "blocked"
    asked = engine.call("mcp__hostile__we_ird_name", {"text": "q"}, session_id="s")
    assert not asked.ok and asked.pending_approval is not None  # nobody to ask: refused
    assert engine.call("mcp__hostile__ok", {"text": "fine"}).ok
    engine.set_approval_callback(lambda request: "once")
    assert engine.call("mcp__hostile__we_ird_name", {"text": "q"}, session_id="s").output == "we ird/name: q"
    assert engine.generation == generation  # grow never ran: no list_changed, no new tool
    assert not any(n.startswith("mcp__hostile__grown") for n in engine.tools)


BAD_MANIFESTS = """
kind: McpServer
name: leaky
transport: http
url: https://mcp.example.invalid/mcp
headers:
  Authorization: Bearer abc123abc123
  Accept: application/json
---
kind: McpServer
name: mixed
transport: stdio
command: server
url: https://mcp.example.invalid/mcp
---
kind: McpServer
name: leaky
transport: stdio
command: other
---
kind: McpServer
name: t
transport: stdio
command: x
toolset: t
"""


def test_static_checks_locate_secrets_mixed_transports_duplicates_and_toolset_clashes(
    write_project: Callable[..., Path],
) -> None:
    root = write_project({**LOCAL, "manifests/servers.yaml": BAD_MANIFESTS})
    result = CliRunner().invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1
    errors = {(e["code"], e["line"]) for e in json.loads(result.stdout)["errors"]}
    assert errors == {
        ("mcp-secret-in-manifest", 6),
        ("mcp-transport-mismatch", 13),
        ("mcp-server-duplicate", 16),
        ("toolset-duplicate", 24),
    }
    assert "abc123abc123" not in result.stdout


def test_an_mcp_toolset_may_be_enabled_in_the_config_before_its_server_answers(
    write_project: Callable[..., Path],
) -> None:
    root = write_project(
        {
            **LOCAL,
            "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [local]\n"
            "toolsets: {enabled: [t, mcp-gone]}\n",
            "manifests/server.yaml": server_manifest("gone", "no-such-mcp-server-binary", [], connect_timeout=2),
        }
    )
    listed = cli_json("schema", "--root", str(root))
    assert [d["function"]["name"] for d in listed] == ["mcp__hostile__echo"]


def test_the_client_speaks_streamable_http_with_a_header_from_the_environment(
    write_project: Callable[..., Path], engines: list[Engine], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.mcp_project import write_served_project
    from tests.test_mcp_serve import http_server

    token = "a-long-random-test-token-0123456789"
    served = write_served_project(tmp_path / "served")
    monkeypatch.setenv("SERVED_TOKEN", token)
    with http_server(served, env={"HERMES_ENGINE_MCP_TOKEN": token}) as url:
        manifest = {
            "kind": "McpServer",
            "name": "peer",
            "transport": "http",
            "url": url,
            "headers": {"Authorization": "Bearer ${SERVED_TOKEN}"},
            "include": ["echo", "weather"],
        }
        root = write_project({**LOCAL, "manifests/peer.yaml": json.dumps(manifest)})
        engine = load(root, engines)
        echoed = engine.call("mcp__peer__echo", {"text": "over http"})
        weather = engine.call("mcp__peer__weather", {"city": "Quito"})
        engine.close()
    assert echoed.ok and echoed.output == "over http"
    assert weather.ok and json.loads(weather.output) == {"city": "Quito", "celsius": 21}
    assert engine.tools["mcp__peer__weather"].output_schema is not None


def test_approval_policy_rules_apply_to_mcp_tools_like_any_tool(
    write_project: Callable[..., Path], engines: list[Engine]
) -> None:
    rule = "kind: ApprovalPolicy\nname: p\nrules:\n  mcp__hostile__ok:\n    ask:\n      - {text: 'rm *'}\n"
    root = write_project({**LOCAL, "manifests/server.yaml": hostile("schemas"), "policies/p.yaml": rule})
    engine = load(root, engines)
    asked = engine.call("mcp__hostile__ok", {"text": "rm -rf"})
    assert not asked.ok and asked.pending_approval is not None
    assert engine.call("mcp__hostile__ok", {"text": "hello"}).output == "ok: hello"
