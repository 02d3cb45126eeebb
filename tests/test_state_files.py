"""State files are validated when read and sessions never share a directory; handler roots
must be the project's own packages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine import Engine
from engine.cli import cli
from engine.dispatch.context import session_dirname
from tests.conftest import REPO

ITEM = {"id": "1", "content": "write tests", "status": "pending"}


def make(tmp_path: Path) -> Engine:
    return Engine.load(REPO, config={"workdir": str(tmp_path), "state_dir": str(tmp_path / "state")})


def _session_file(engine: Engine, session: str, name: str) -> Path:
    return engine.state_dir / "sessions" / session_dirname(session) / name


@pytest.mark.parametrize(
    "tool,name,damaged,args",
    [
        ("todo", "todo.json", b'{"a": 1}', {}),
        ("todo", "todo.json", b'[{"id": 1}]', {"todos": [ITEM]}),
        ("todo", "todo.json", b"[not json", {}),
        ("memory", "memory.json", b"[1, 2, 3]", {"action": "add", "content": "x"}),
        ("memory", "memory.json", b'"a string"', {"action": "list"}),
        ("memory", "memory.json", b"\xff\xfe", {"action": "list"}),
    ],
)
def test_a_damaged_state_file_is_a_clear_error_and_is_kept_aside_never_overwritten(
    tmp_path: Path, tool: str, name: str, damaged: bytes, args: dict[str, Any]
) -> None:
    engine = make(tmp_path)
    path = _session_file(engine, "s", name)
    path.parent.mkdir(parents=True)
    path.write_bytes(damaged)
    result = engine.call(tool, args, session_id="s")
    assert result.error is not None and not result.error.recoverable
    assert str(path) in result.error.message and f"{name}.corrupt-1" in result.error.message
    assert (path.parent / f"{name}.corrupt-1").read_bytes() == damaged
    assert not path.exists()
    # The next call starts afresh; a second damaged file never replaces the first one kept.
    assert engine.call(tool, args, session_id="s").ok
    path.write_bytes(b"{}")
    assert engine.call(tool, args, session_id="s").error is not None
    assert (path.parent / f"{name}.corrupt-1").read_bytes() == damaged
    assert (path.parent / f"{name}.corrupt-2").read_bytes() == b"{}"


def test_memory_entries_stay_bounded_after_a_replace(tmp_path: Path) -> None:
    engine = make(tmp_path)
    engine.call("memory", {"action": "add", "content": "a" * 3000}, session_id="s")
    result = engine.call("memory", {"action": "replace", "old_text": "a", "content": "bb"}, session_id="s")
    assert result.error is not None and "at most" in result.error.message
    stored = json.loads(_session_file(engine, "s", "memory.json").read_text())
    assert stored == ["a" * 3000]


@pytest.mark.parametrize(
    "first,second",
    [("alice@corp", "alice_corp"), ("Alice", "alice"), ("a/b", "a_b"), ("a.b", "a_b"), ("x" * 300, "x" * 301)],
)
def test_distinct_session_ids_never_share_a_directory(tmp_path: Path, first: str, second: str) -> None:
    engine = make(tmp_path)
    assert engine.call("todo", {"todos": [ITEM]}, session_id=first).ok
    assert json.loads(engine.call("todo", {}, session_id=second).output)["todos"] == []
    assert session_dirname(first).lower() != session_dirname(second).lower()


@pytest.mark.parametrize("session", ["..", ".", "../..", "/etc", "a/../../b", "\x00", "~"])
def test_a_session_id_never_leaves_the_sessions_folder(tmp_path: Path, session: str) -> None:
    engine = make(tmp_path)
    assert engine.call("todo", {"todos": [ITEM]}, session_id=session).ok
    [written] = list((tmp_path / "state").rglob("todo.json"))
    assert written.parent.parent == tmp_path / "state" / "sessions"
    assert len(written.parent.name) <= 100


def _roots_project(write_project: Any, roots: str, handler: str, hooks: str = "") -> Path:
    return write_project(
        {
            "hermes-engine.yaml": f"include_builtin: false\nhandler_roots: {roots}\n{hooks}",
            "own/__init__.py": "def run() -> str:\n    return 'own'\n",
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
            "manifests/m.yaml": f"kind: Tool\nname: x\ntoolset: t\ndescription: X.\nhandler: {handler}\n"
            "parameters: {type: object, additionalProperties: true}\n",
        }
    )


@pytest.mark.parametrize("module", ["subprocess", "posix", "os", "jinja2", "click.testing"])
def test_a_handler_root_that_is_not_a_package_of_the_project_is_a_located_error(
    write_project: Any, module: str
) -> None:
    root = _roots_project(write_project, f"[own, {module}]", f"{module}:run")
    result = CliRunner().invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1, result.output
    errors = {(e["file"], e["line"], e["code"]) for e in json.loads(result.stdout)["errors"]}
    assert ("hermes-engine.yaml", 2, "handler-root-outside") in errors
    assert ("manifests/m.yaml", 5, "handler-not-allowed") in errors


def test_a_hook_naming_a_standard_module_is_refused_before_it_is_imported(write_project: Any) -> None:
    root = _roots_project(write_project, "[own, os]", "own:run", "hooks: {pre_tool_call: ['os:system']}\n")
    result = CliRunner().invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    codes = [(e["line"], e["code"]) for e in json.loads(result.stdout)["errors"]]
    assert (2, "handler-root-outside") in codes and (3, "handler-not-allowed") in codes


def test_a_handler_root_too_long_for_the_file_system_is_a_located_error(write_project: Any) -> None:
    long_name = "x" * 5000
    root = _roots_project(write_project, f"[own, {long_name}]", f"{long_name}:run")
    result = CliRunner().invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1, result.output
    codes = {(e["file"], e["code"]) for e in json.loads(result.stdout)["errors"]}
    assert codes == {("hermes-engine.yaml", "handler-root-outside"), ("manifests/m.yaml", "handler-not-allowed")}
