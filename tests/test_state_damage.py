"""Damaged approval state: a clear error naming the file, the file kept aside, never written over."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Engine
from engine.mcp.grants import SqliteGrantStore
from engine.policy.approval import Grant
from engine.state_files import keep_aside

DANGEROUS = "git push --force origin main 2>/dev/null; touch ran"


@pytest.fixture
def engine(write_project: Callable[..., Path]) -> Engine:
    root = write_project({"hermes-engine.yaml": "workdir: work\nstate_dir: .state\n", "work/.keep": ""})
    return Engine.load(root)


def test_always_with_a_damaged_config_runs_once_and_leaves_the_file_as_it_was(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    config = engine.root / "hermes-engine.yaml"
    damaged = b"workdir: work\nstate_dir: .state\napprovals: [unclosed\n"
    config.write_bytes(damaged)
    engine.set_approval_callback(lambda request: "always")
    assert engine.call("terminal", {"command": DANGEROUS}, session_id="s").ok
    assert config.read_bytes() == damaged
    assert str(config) in caplog.text
    [record] = [json.loads(line) for line in (engine.state_dir / "audit.jsonl").read_text().splitlines()]
    assert record["outcome"] == "always" and str(config) in record["note"]


def test_a_damaged_grants_database_is_kept_aside_and_grants_start_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "mcp-grants.sqlite"
    path.write_bytes(b"this is not a database, it was cut or overwritten" * 100)
    store = SqliteGrantStore(path)
    assert (tmp_path / "mcp-grants.sqlite.corrupt-1").read_bytes().startswith(b"this is not a database")
    assert str(path) in caplog.text and "corrupt-1" in caplog.text
    grant: set[Grant] = {("terminal", "git_force_push", "scope")}
    assert not store.granted("s", grant)
    store.grant("s", grant)
    assert store.granted("s", grant)
    store.close()
    path.write_bytes(b"damaged again")
    SqliteGrantStore(path).close()
    assert (tmp_path / "mcp-grants.sqlite.corrupt-2").read_bytes() == b"damaged again"
    assert (tmp_path / "mcp-grants.sqlite.corrupt-1").read_bytes().startswith(b"this is not a database")


class _BrokenStore:
    def granted(self, session_id: str, grants: set[Grant]) -> bool:
        raise OSError("disk I/O error")

    def grant(self, session_id: str, grants: set[Grant]) -> None:
        raise OSError("disk I/O error")


def test_a_grant_store_that_fails_grants_nothing(engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    engine.set_grant_store(_BrokenStore())
    asked: list[str] = []
    engine.set_approval_callback(lambda request: asked.append(request.command) or "session")
    assert engine.call("terminal", {"command": DANGEROUS}, session_id="s").ok
    assert engine.call("terminal", {"command": DANGEROUS}, session_id="s").ok
    assert len(asked) == 2
    assert "cannot record a session grant" in caplog.text and "cannot read session grants" in caplog.text


def test_keep_aside_never_overwrites_an_earlier_copy(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    for text in ("first", "second", "third"):
        path.write_text(text)
        keep_aside(path)
    assert not path.exists()
    kept = {p.name: p.read_text() for p in tmp_path.iterdir()}
    assert kept == {"state.json.corrupt-1": "first", "state.json.corrupt-2": "second", "state.json.corrupt-3": "third"}


def test_logging_names_the_damaged_audit_key(engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    from engine.policy.audit import key_dir

    caplog.set_level(logging.ERROR)
    engine.call("terminal", {"command": "echo one"}, session_id="s")
    [key] = key_dir().glob("*.key")
    key.write_text("not hex\n")
    assert engine.call("terminal", {"command": "echo two"}, session_id="s").ok
    assert str(key) in caplog.text
    assert key.with_name(key.name + ".corrupt-1").read_text() == "not hex\n"
