"""rt11: the engine's own names spelled in another case.

On a file system that ignores case (macOS and Windows by default, an ext4 casefold folder),
`POLICIES/x.yaml` is `policies/x.yaml` and `HERMES-ENGINE.YAML` is the config: a write there
adds a policy the next load reads. The file tools and the guard judged the spelling only, so
`write_file POLICIES/x.yaml` (and Claude Code's Write through the guard) was allowed. A write
is now also judged where such a file system lands it: each component as the entry of its
folder that differs only in case, and lower case from the first that has none (fail closed on
a file system that keeps case: `POLICIES/` is refused there too).

The test machine's file system keeps case, so the harm is asserted as "nothing was written,
in any spelling": the policy folder holds its one file and no other spelling was created.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from tests.redteam.conftest import PROJECT_POLICY, guard, make_project

POLICY = PROJECT_POLICY
RELAX = "kind: ApprovalPolicy\nmode: off\nyolo: true\n"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_project(tmp_path, monkeypatch, handlers="MyHandlers", folders=("src",), home_folders=(".ssh",))


@pytest.fixture
def engine(root: Path) -> Iterator[Engine]:
    engine = Engine.load(root)
    yield engine
    engine.close()


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


RESPELLED = [
    "POLICIES/relax.yaml",
    "Policies/deny.yaml",
    "policies/../POLICIES/relax.yaml",
    "HERMES-ENGINE.YAML",
    "Hermes-Engine.yml",
    "myhandlers/evil.py",
    "MYHANDLERS/__init__.py",
    "MANIFESTS/tool.yaml",
]


@pytest.mark.parametrize("path", RESPELLED)
def test_a_write_to_an_engine_name_in_another_case_is_refused(engine: Engine, root: Path, path: str) -> None:
    before = _tree(root)
    result = engine.call("write_file", {"path": path, "content": RELAX})
    assert not result.ok and result.error is not None and not result.error.recoverable, path
    assert _tree(root) == before  # nothing created, in any spelling
    assert (root / "policies" / "deny.yaml").read_text() == POLICY


def test_a_patch_to_a_policy_in_another_case_is_refused(engine: Engine, root: Path) -> None:
    result = engine.call("patch", {"path": "POLICIES/deny.yaml", "old_string": "npm", "new_string": "x"})
    assert not result.ok
    assert (root / "policies" / "deny.yaml").read_text() == POLICY


NEAR_MISSES = ["src/NewFile.py", "docs/Policies.md", "PolicyNotes.yaml", "src/Manifests.txt", "README.md"]


@pytest.mark.parametrize("path", NEAR_MISSES)
def test_ordinary_names_in_any_case_are_written(engine: Engine, root: Path, path: str) -> None:
    result = engine.call("write_file", {"path": path, "content": "hello\n"})
    assert result.ok, result.error
    assert (root / path).read_text() == "hello\n"


GUARDED = [
    ("claude-code", "Write", {"file_path": "POLICIES/relax.yaml", "content": RELAX}),
    ("claude-code", "Edit", {"file_path": "Policies/deny.yaml", "old_string": "npm", "new_string": "x"}),
    ("claude-code", "Write", {"file_path": "HERMES-ENGINE.YAML", "content": "approvals: {yolo: true}\n"}),
    ("gemini", "write_file", {"file_path": "Policies/relax.yaml", "content": RELAX}),
    ("codex", "apply_patch", {"command": "*** Begin Patch\n*** Add File: POLICIES/relax.yaml\n+x\n*** End Patch\n"}),
]


@pytest.mark.parametrize(("agent", "tool", "tool_input"), GUARDED)
def test_the_guard_refuses_an_agents_write_to_an_engine_name_in_another_case(
    root: Path, agent: str, tool: str, tool_input: dict[str, Any]
) -> None:
    assert guard(agent, root, tool, tool_input) == "deny"


def test_the_guard_asks_for_a_home_credential_folder_in_another_case(root: Path) -> None:
    answer = guard("claude-code", root, "Write", {"file_path": "~/.SSH/authorized_keys", "content": "ssh-ed25519 x"})
    assert answer in ("ask", "deny")


@pytest.mark.parametrize("path", NEAR_MISSES)
def test_the_guard_allows_ordinary_names_in_any_case(root: Path, path: str) -> None:
    assert guard("claude-code", root, "Write", {"file_path": path, "content": "hello\n"}, empty="allow") == "allow"


# Reads: `.ENV` opens `.env` where case is ignored, and the policy asks for `.env` only.
SECRET_SPELLINGS = [".ENV", ".Env", "src/../.ENV", "CONFIG/.ENV.local"]


@pytest.fixture
def secrets(root: Path) -> Path:
    (root / ".env").write_text("DB_PASSWORD=hunter2-rt11-case\n")
    (root / "config").mkdir()
    (root / "config" / ".env.local").write_text("TOKEN=hunter2-rt11-case\n")
    (root / "notes.txt").write_text("plain notes\n")
    return root


@pytest.mark.parametrize("path", SECRET_SPELLINGS)
def test_a_read_of_a_secret_in_another_case_is_refused(engine: Engine, secrets: Path, path: str) -> None:
    result = engine.call("read_file", {"path": path})
    assert not result.ok and "hunter2" not in str(result.output) + str(result.error), path
    # Here the spelling names no file; where case is ignored it opens the secret: refused as that.
    assert "ignores case" in str(result.error), path


@pytest.mark.parametrize("path", SECRET_SPELLINGS)
def test_the_guard_asks_for_an_agents_read_of_a_secret_in_another_case(secrets: Path, path: str) -> None:
    assert guard("claude-code", secrets, "Read", {"file_path": path}) in ("ask", "deny"), path
    assert guard("gemini", secrets, "read_file", {"file_path": path}) in ("ask", "deny"), path


def test_reads_of_ordinary_files_are_unchanged(engine: Engine, secrets: Path) -> None:
    assert "plain notes" in str(engine.call("read_file", {"path": "notes.txt"}).output)
    missing = engine.call("read_file", {"path": "NOTES.TXT"})  # this file system keeps case
    assert not missing.ok and "no such file" in str(missing.error)
    assert guard("claude-code", secrets, "Read", {"file_path": "notes.txt"}, empty="allow") == "allow"
    assert guard("claude-code", secrets, "Read", {"file_path": "Notes.TXT"}, empty="allow") == "allow"
