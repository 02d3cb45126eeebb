"""Engines of one process share what their loads read and compile (engine.compile.loader:
_SHARED_FILES, _SHARED_POLICIES), and nothing else.

Abuse cases first: what one engine was granted, wrote or logged is never seen by another engine
of the same project; a file changed since it was read is read again; a file too fresh to trust by
its stat is never shared; a policy with a judge (a project's function) is never shared.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from engine.compile import loader
from engine.policy.session_memory import file_key
from tests.conftest import REPO


def _load(tmp_path: Path, name: str, root: Path = REPO) -> Engine:
    work = tmp_path / name
    work.mkdir()
    return Engine.load(root, config={"workdir": str(work), "state_dir": str(tmp_path / f"{name}-state")})


@pytest.fixture(autouse=True)
def _empty_shared_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with the process's shared parses and policies empty (restored after it):
    what it asserts is shared is what its own loads put there. (In a worker that loaded other
    projects before, the second load here could fill _SHARED_POLICIES to its limit, which empties
    it, and the third load compiled the policy again: `first.snapshot.policy is third...` failed in
    CI, a flake of the test, not of the sharing.)"""
    monkeypatch.setattr(loader, "_SHARED_FILES", {})
    monkeypatch.setattr(loader, "_SHARED_POLICIES", {})


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    first, second = _load(tmp_path, "a"), _load(tmp_path, "b")
    yield first, second
    first.close()
    second.close()


def test_a_grant_session_memory_and_audit_stay_with_their_engine(two: tuple[Engine, Engine]) -> None:
    first, second = two
    assert first.snapshot.policy is second.snapshot.policy  # shared: compiled once
    asked: dict[str, list[str]] = {"a": [], "b": []}

    def answer(name: str, decision: str) -> Callable[[Any], str]:
        def callback(request: Any) -> str:
            asked[name].append(request.command)
            return decision

        return callback

    first.set_approval_callback(answer("a", "session"))
    second.set_approval_callback(answer("b", "deny"))
    # Asks (a force push); run where it fails harmlessly: the working directory is no repository.
    command = {"command": "git push --force"}
    assert first.check(command["command"]).decision == "ask"
    for _ in range(2):
        first.call("terminal", command, session_id="s1")
    assert len(asked["a"]) == 1  # granted for the session: asked once
    refused = second.call("terminal", command, session_id="s1")
    assert not refused.ok and len(asked["b"]) == 1  # the same session id in another engine: asked again

    # What a session wrote is remembered by its engine only.
    written = first.call("write_file", {"path": "run.sh", "content": "echo hi\n"}, session_id="s1")
    assert written.ok, written.error
    key = file_key("run.sh", str(first.workdir))
    assert first.session_memory.view("s1", str(first.workdir)).touched(key)
    assert second.session_memory is not first.session_memory
    assert not second.session_memory.view("s1", str(first.workdir)).files.files

    # Each engine logs to its own state dir.
    assert (first.state_dir / "audit.jsonl").is_file()
    assert first.state_dir != second.state_dir
    logged = [json.loads(line) for line in (second.state_dir / "audit.jsonl").read_text().splitlines()]
    assert [entry["outcome"] for entry in logged] == ["deny"]  # its own refusal, not the other's grant
    outcomes = [json.loads(line)["outcome"] for line in (first.state_dir / "audit.jsonl").read_text().splitlines()]
    assert outcomes[:2] == ["session", "session"] and "deny" not in outcomes


def _project(root: Path, words: str) -> Path:
    (root / "policies").mkdir(parents=True)
    (root / "hermes-engine.yaml").write_text("workdir: .\n")
    (root / "policies" / "deny.yaml").write_text(f"kind: ApprovalPolicy\ndeny: ['{words}*']\n")
    return root


def test_a_fresh_file_is_not_shared(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", "npm publish")
    with Engine.load(root) as first:
        assert first.check("npm publish x").decision == "deny"
    policy = root / "policies" / "deny.yaml"
    assert not any(key[0] == policy for key in loader._SHARED_FILES)
    # nor is a policy compiled from it (its document is this loader's own)
    assert not any(d.path == policy for docs, _ in loader._SHARED_POLICIES.values() for d in docs)


def test_a_file_changed_since_it_was_shared_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "_SETTLED_NS", 0)  # every file counts as settled: shared at once
    root = _project(tmp_path / "p", "npm publish")
    policy = root / "policies" / "deny.yaml"
    with Engine.load(root, approve_changes=True) as first:
        assert first.check("npm publish x").decision == "deny"
        assert first.check("cargo publish x").decision == "allow"
    assert any(key[0] == policy for key in loader._SHARED_FILES)
    time.sleep(0.01)  # past the clock's tick: the save changes the stat
    policy.write_text("kind: ApprovalPolicy\ndeny: ['cargo publish*']\n")
    with Engine.load(root, approve_changes=True) as second:
        assert second.check("cargo publish x").decision == "deny"
        assert second.check("npm publish x").decision == "allow"


def test_a_policy_with_a_judge_is_not_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "_SETTLED_NS", 0)
    root = tmp_path / "p"
    (root / "judges").mkdir(parents=True)
    (root / "judges" / "__init__.py").write_text("def judge(request):\n    return 'deny'\n")
    (root / "policies").mkdir()
    (root / "policies" / "p.yaml").write_text("kind: ApprovalPolicy\nmode: smart\njudge: judges:judge\n")
    (root / "hermes-engine.yaml").write_text("workdir: .\nhandler_roots: [judges]\n")
    with Engine.load(root) as first, Engine.load(root) as second:
        assert first.snapshot.policy.settings.judge is not None
        assert first.snapshot.policy is not second.snapshot.policy


# -- an adversary on the shared loads (stop 30): edits a stat cannot tell apart ---------------------


def _frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stat the loaders take says the file was last changed at one time, an hour ahead (a file
    system whose clock did not tick between two saves: 1 s timestamps, or ~4 ms ones on a kernel
    without fine-grained ones). Ahead: no file ever counts as settled, however slow the machine."""
    from engine.source import yamlfile

    ahead = time.time_ns() + 3600 * 10**9

    def frozen(st: Any) -> tuple[int, int, int, int]:
        return (ahead, st.st_size, st.st_ino, ahead)

    monkeypatch.setattr(yamlfile, "stat_key", frozen)
    monkeypatch.setattr(loader, "stat_key", frozen)


def test_an_edit_in_the_same_clock_tick_as_the_load_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A policy saved again within the clock tick of the load that read it, at the same size: the
    stat is the one the load saw. The reload watcher's check of what changed, a reload of that
    engine and a new engine in the same process must each read the new save (on main the first
    said nothing changed and a reload kept serving the first save's parse, which allowed
    `gem publish`)."""
    _frozen_clock(monkeypatch)
    root = _project(tmp_path / "p", "npm publish")
    policy = root / "policies" / "deny.yaml"
    with Engine.load(root, approve_changes=True) as first:
        assert first.check("gem publish x").decision == "allow"
        before = policy.stat()
        policy.write_text("kind: ApprovalPolicy\ndeny: ['gem publish*']\n")
        assert policy.stat().st_size == before.st_size
        assert first.changed_since_load() == [policy]
        event = first.reload()
        assert event.ok, event.problems
        assert first.check("gem publish x").decision == "deny"
        assert first.changed_since_load() == []  # what it read now is what the file holds
    with Engine.load(root, approve_changes=True) as second:
        assert second.check("gem publish x").decision == "deny"
        assert second.check("npm publish x").decision == "allow"


def test_a_modification_time_set_back_is_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`touch -d` (os.utime) puts a saved policy's mtime back to the one a shared parse was read with,
    at the same size: the change time (which nothing sets back) still tells the versions apart."""
    monkeypatch.setattr(loader, "_SETTLED_NS", 0)  # every file counts as settled: shared at once
    root = _project(tmp_path / "p", "npm publish")
    policy = root / "policies" / "deny.yaml"
    before = policy.stat()
    with Engine.load(root, approve_changes=True) as first:
        assert first.check("gem publish x").decision == "allow"
    assert any(key[0] == policy for key in loader._SHARED_FILES)
    policy.write_text("kind: ApprovalPolicy\ndeny: ['gem publish*']\n")
    import os

    os.utime(policy, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert policy.stat().st_mtime_ns == before.st_mtime_ns and policy.stat().st_size == before.st_size
    with Engine.load(root, approve_changes=True) as second:
        assert second.check("gem publish x").decision == "deny"


def test_two_projects_in_one_process_keep_their_own_policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two engines of two projects sharing the builtin pack's parses and, where their documents are
    the same, a compiled policy: each judges by its own project's policy, whichever loaded first."""
    monkeypatch.setattr(loader, "_SETTLED_NS", 0)
    strict = _project(tmp_path / "strict", "gem publish")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "hermes-engine.yaml").write_text("workdir: .\n")
    with Engine.load(plain) as first, Engine.load(strict) as second, Engine.load(plain) as third:
        assert second.check("gem publish x").decision == "deny"
        assert first.check("gem publish x").decision == "allow"
        assert third.check("gem publish x").decision == "allow"
        assert first.snapshot.policy is third.snapshot.policy is not second.snapshot.policy
