"""Session grants behind one interface: what `serve` shares between its processes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from engine import Engine
from engine.cli import cli
from engine.mcp.grants import MemoryGrantStore, SqliteGrantStore
from tests.mcp_project import write_served_project

RM = ("terminal", "recursive_delete", "rm -rf ./build")
HOOK = ("risky", "hook", "risky")


def test_a_grant_written_by_one_store_is_seen_by_another_on_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "grants.sqlite"
    first, second = SqliteGrantStore(path), SqliteGrantStore(path)
    try:
        assert not second.granted("s1", {HOOK})
        first.grant("s1", {HOOK, RM})
        assert second.granted("s1", {HOOK})
        assert second.granted("s1", {RM, HOOK})
        assert not second.granted("s1", {HOOK, ("terminal", "recursive_delete", "rm -rf ~")})
        assert not second.granted("s2", {HOOK})
        assert not second.granted("s1", set())
    finally:
        first.close()
        second.close()


def test_memory_store_keeps_sessions_apart() -> None:
    store = MemoryGrantStore()
    store.grant("a", {HOOK})
    assert store.granted("a", {HOOK}) and not store.granted("b", {HOOK})


def test_two_engines_sharing_a_store_share_session_grants_and_nothing_else(tmp_path: Path) -> None:
    root = write_served_project(tmp_path / "project")
    path = tmp_path / "grants.sqlite"
    asked: list[str] = []

    def approve(request: object) -> str:
        asked.append("asked")
        return "session"

    first, second = Engine.load(root), Engine.load(root)
    stores = [SqliteGrantStore(path), SqliteGrantStore(path)]
    try:
        for engine, store in zip((first, second), stores, strict=True):
            engine.set_grant_store(store)
        first.set_approval_callback(approve)
        assert first.call("risky", {"marker": str(tmp_path / "a")}, session_id="s1").ok
        # The other process never asks: the grant is in the shared store.
        assert second.call("risky", {"marker": str(tmp_path / "b")}, session_id="s1").ok
        refused = second.call("risky", {"marker": str(tmp_path / "c")}, session_id="s2")
    finally:
        for store in stores:
            store.close()
    assert asked == ["asked"]
    assert (tmp_path / "b").exists()
    assert not refused.ok and refused.pending_approval is not None
    assert not (tmp_path / "c").exists()


def test_output_schema_must_be_a_valid_object_schema(write_project: Callable[..., Path]) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [h]\n",
            "h/__init__.py": "def f() -> dict:\n    return {}\n",
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
            "manifests/m.yaml": """
                kind: Tool
                name: f
                toolset: t
                description: F.
                handler: h:f
                output_schema:
                  type: object
                  properties:
                    a: {type: 5}
                parameters: {type: object}
                ---
                kind: Tool
                name: g
                toolset: t
                description: G.
                handler: h:f
                output_schema: {type: string}
                parameters: {type: object}
            """,
        }
    )
    result = CliRunner().invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1
    errors = {(e["code"], e["line"]) for e in json.loads(result.output)["errors"]}
    assert ("output-schema-invalid", 9) in errors  # a: {type: 5}
    assert any(code == "invalid-value" and line == 17 for code, line in errors)
