"""Policy over other MCP servers' tools, against real servers: what a denial prevents.

A server is untrusted. Its destructive hints only ever add a question; a policy rule or
pattern may name its tools exactly or by glob; a listing that changes after an approval
needs a new one; two servers cannot stand in for each other's tools.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from tests.peers import python_bin
from tests.test_mcp_client import BOUND, HOSTILE, children, load, server_manifest

BASE = {"hermes-engine.yaml": "include_builtin: false\n"}


@pytest.fixture
def engines() -> Iterator[list[Engine]]:
    made: list[Engine] = []
    yield made
    for engine in made:
        engine.close()


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with one commit and one staged change (what git_reset would unstage)."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    git(path, "config", "user.email", "t@example.invalid")
    git(path, "config", "user.name", "T")
    (path / "a.txt").write_text("one")
    git(path, "add", "a.txt")
    git(path, "commit", "-q", "-m", "first")
    (path / "a.txt").write_text("two")
    git(path, "add", "a.txt")
    return path


def git_project(write_project: Callable[..., Path], repo: Path, extra: dict[str, str] | None = None, **kw: Any) -> Path:
    manifest = server_manifest("git", python_bin("mcp-server-git"), ["--repository", str(repo)], **kw)
    return write_project({**BASE, "manifests/git.yaml": manifest, **(extra or {})})


def staged(repo: Path) -> str:
    return git(repo, "diff", "--cached", "--name-only").strip()


def test_a_tool_the_server_marks_destructive_asks_and_nothing_happens_unattended(
    write_project: Callable[..., Path], repo: Path, engines: list[Engine]
) -> None:
    engine = load(git_project(write_project, repo, include=["git_reset", "git_status"]), engines)
    reset = engine.call("mcp__git__git_reset", {"repo_path": str(repo)})
    assert not reset.ok and reset.pending_approval is not None
    assert "marks it destructive" in reset.output
    assert staged(repo) == "a.txt"  # the reset did not happen
    assert engine.call("mcp__git__git_status", {"repo_path": str(repo)}).ok  # read-only: no question
    asked: list[str] = []
    engine.set_approval_callback(lambda request: asked.append(request.tool) or "once")
    assert engine.call("mcp__git__git_reset", {"repo_path": str(repo)}).ok
    assert asked == ["mcp__git__git_reset"] and staged(repo) == ""  # approved: it ran


def test_only_a_written_rule_lets_a_destructive_tool_run_unattended(
    write_project: Callable[..., Path], repo: Path, engines: list[Engine]
) -> None:
    approval = {"tools": {"git_reset": "allow"}}
    engine = load(git_project(write_project, repo, include=["git_reset"], approval=approval), engines)
    assert engine.call("mcp__git__git_reset", {"repo_path": str(repo)}).ok
    assert staged(repo) == ""


GLOB_RULE = """
kind: ApprovalPolicy
name: p
rules:
  "mcp__git__git_c*":
    deny:
      - {message: "*"}
"""


def test_an_approval_rule_naming_mcp_tools_by_glob_denies_and_no_commit_is_made(
    write_project: Callable[..., Path], repo: Path, engines: list[Engine]
) -> None:
    root = git_project(write_project, repo, {"policies/p.yaml": GLOB_RULE}, include=["git_commit", "git_status"])
    engine = load(root, engines)
    engine.set_approval_callback(lambda request: "once")  # a person would say yes: the rule is a floor
    denied = engine.call("mcp__git__git_commit", {"repo_path": str(repo), "message": "sneaky"})
    assert not denied.ok and denied.error is not None and denied.error.type == "denied"
    assert "sneaky" not in git(repo, "log", "--format=%s")
    assert engine.call("mcp__git__git_status", {"repo_path": str(repo)}).ok  # the glob does not match it


PATTERN = """
kind: DangerPatterns
name: mcp
patterns:
  - key: commit-message-wip
    description: a work-in-progress commit
    severity: dangerous
    regex: '\\bwip\\b'
    applies_to:
      - {tool: "mcp__git__*", argument: message, as: command}
    examples:
      match: ["wip"]
      not_match: ["done"]
"""


def test_danger_patterns_read_mcp_tool_arguments(
    write_project: Callable[..., Path], repo: Path, engines: list[Engine]
) -> None:
    root = git_project(write_project, repo, {"policies/mcp.yaml": PATTERN}, include=["git_commit"])
    engine = load(root, engines)
    assert not engine.snapshot.warnings, engine.snapshot.warnings  # the glob is not an unknown tool
    asked = engine.call("mcp__git__git_commit", {"repo_path": str(repo), "message": "wip"})
    assert not asked.ok and asked.pending_approval is not None
    assert "wip" not in git(repo, "log", "--format=%s")
    done = engine.call("mcp__git__git_commit", {"repo_path": str(repo), "message": "done"})
    assert done.ok, done.output
    assert git(repo, "log", "-1", "--format=%s").strip() == "done"


def sneak(name: str, prefix: str = "", **extra: Any) -> str:
    return server_manifest(name, sys.executable, [str(HOSTILE), "sneak", prefix], **extra)


def test_a_server_cannot_slip_a_destructive_tool_in_after_an_approval(
    write_project: Callable[..., Path], tmp_path: Path, engines: list[Engine]
) -> None:
    root = write_project({**BASE, "manifests/s.yaml": sneak("s", approval={"tools": {"notes": "ask"}})})
    engine = load(root, engines)
    asked: list[str] = []
    engine.set_approval_callback(lambda request: asked.append(request.tool) or "session")
    marker = tmp_path / "marker"
    assert engine.call("mcp__s__notes", {"marker": str(marker)}, session_id="x").ok
    assert engine.call("mcp__s__notes", {"marker": str(marker)}, session_id="x").ok
    assert asked == ["mcp__s__notes"]  # the session grant covered the second call
    swapped = threading.Event()
    engine.on_reload(lambda event: "mcp__s__wipe" in event.added and swapped.set())
    assert engine.call("mcp__s__swap", {}).ok
    assert swapped.wait(BOUND)
    engine.set_approval_callback(None)  # unattended from here on
    marker.unlink()
    for tool in ("mcp__s__notes", "mcp__s__wipe"):  # redefined, and new: both destructive
        result = engine.call(tool, {"marker": str(marker)}, session_id="x")
        assert not result.ok and result.pending_approval is not None, (tool, result.output)
    assert not marker.exists()  # neither ran


def test_two_servers_cannot_stand_in_for_each_others_tools(
    write_project: Callable[..., Path], tmp_path: Path, engines: list[Engine]
) -> None:
    # Server "s" tool "x__notes" and server "s__x" tool "notes" both make mcp__s__x__notes.
    root = write_project({**BASE, "manifests/a.yaml": sneak("s", "x__"), "manifests/b.yaml": sneak("s__x")})
    engine = load(root, engines)
    assert not [n for n in engine.tools if n.startswith("mcp__")]  # every name collides
    skipped = [w for w in engine.snapshot.warnings if "mcp__s__x__notes" in w.message]
    assert {Path(w.file).name for w in skipped} == {"a.yaml", "b.yaml"}
    result = engine.call("mcp__s__x__notes", {"marker": str(tmp_path / "m")})
    assert not result.ok and not (tmp_path / "m").exists()


def test_hostile_names_descriptions_and_results_are_bounded(
    write_project: Callable[..., Path], engines: list[Engine]
) -> None:
    root = write_project({**BASE, "manifests/s.yaml": sneak("s")})
    engine = load(root, engines)
    odd = [n for n in engine.tools if n.startswith("mcp__s__odd")]
    assert odd == ["mcp__s__odd__31m_name_"]
    definition = json.dumps(engine.definitions())
    assert "\\u001b" not in definition and "\\u202e" not in definition
    assert len(engine.tools[odd[0]].description) <= 4000
    huge = engine.call("mcp__s__huge", {})
    cap = int(engine.config["max_result_size_chars"])
    assert huge.ok and huge.metadata.truncated and len(huge.output) <= cap + 1000


def test_a_call_past_its_timeout_is_cancelled_at_the_server_and_the_connection_goes_on(
    write_project: Callable[..., Path], tmp_path: Path, engines: list[Engine]
) -> None:
    # 3 s: the slow tool waits to be cancelled; the quick one after it must answer within the same
    # timeout on a loaded 2-CPU CI machine (1 s was a bound such a machine can miss).
    root = write_project({**BASE, "manifests/s.yaml": sneak("s", timeout=3)})
    engine = load(root, engines)
    marker = tmp_path / "slow"
    slow = engine.call("mcp__s__slow", {"marker": str(marker)})
    assert not slow.ok and slow.error is not None and slow.error.type == "timeout"
    assert engine.call("mcp__s__notes", {"marker": str(tmp_path / "n")}).output == "notes ran"
    deadline = time.monotonic() + BOUND
    while marker.read_text() != "cancelled" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.read_text() == "cancelled"  # the server was told, by the id of that call


def test_a_call_whose_server_dies_fails_at_once(
    write_project: Callable[..., Path], tmp_path: Path, engines: list[Engine]
) -> None:
    root = write_project({**BASE, "manifests/s.yaml": sneak("s")})
    engine = load(root, engines)
    marker = tmp_path / "slow"
    results: list[Any] = []
    caller = threading.Thread(target=lambda: results.append(engine.call("mcp__s__slow", {"marker": str(marker)})))
    started = time.monotonic()
    caller.start()
    while not marker.exists():
        time.sleep(0.02)
    (pid,) = children("hostile.py")
    os.kill(pid, signal.SIGKILL)
    caller.join(BOUND)
    (result,) = results
    assert not result.ok and result.error is not None and result.error.type == "unavailable"
    assert time.monotonic() - started < 20  # not the 60 s timeout, not the server's 30 s


INCLUDING = """
kind: Toolset
name: work
description: Local tools and the time server's.
includes: [mcp-time]
---
kind: Toolset
name: outer
description: Includes work, so the time server's tools too.
includes: [work, gone]
"""


def test_a_file_toolset_includes_mcp_toolsets_and_a_dead_server_is_a_located_reason(
    write_project: Callable[..., Path], engines: list[Engine]
) -> None:
    from click.testing import CliRunner

    from engine.cli import cli

    root = write_project(
        {
            **BASE,
            "toolsets/work.yaml": INCLUDING,
            "manifests/time.yaml": server_manifest(
                "time", python_bin("mcp-server-time"), ["--local-timezone", "UTC"], include=["get_current_time"]
            ),
            "manifests/gone.yaml": server_manifest("gone", "no-such-mcp-server-binary", [], connect_timeout=2),
        }
    )
    checked = CliRunner().invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert checked.exit_code == 0, checked.output  # the includes resolve before any server answers
    engine = load(root, engines)
    assert engine.toolsets["work"].members == {"mcp__time__get_current_time"}
    assert engine.toolsets["outer"].members == {"mcp__time__get_current_time"}
    names = [d["function"]["name"] for d in engine.definitions(enabled=["outer"])]
    assert names == ["mcp__time__get_current_time"]
    (reason,) = [w for w in engine.snapshot.warnings if w.code == "toolset-unavailable"]
    assert Path(reason.file).name == "work.yaml" and reason.line == 9
    assert "'gone'" in reason.message and "not found" in reason.message
    typo = "kind: Toolset\nname: typo\ndescription: T.\nincludes: [mcp-tme]\n"
    write_project({"toolsets/typo.yaml": typo}, root)
    checked = CliRunner().invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert checked.exit_code == 1 and "toolset-unknown" in checked.output
