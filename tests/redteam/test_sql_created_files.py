"""Database files a database shell creates where its SQL or its first operand names them (adv27 family 5).

sqlite3's `.output F` / `.once F` were read as writes, but SQL's `VACUUM INTO 'F'` and `ATTACH 'F'`
create F, and the database operand itself is created when it does not exist:
`sqlite3 :memory: "vacuum into 'policies/x.yaml'"` added a file to the project's policies/
(allowed). Now each is judged as `tee F` (sqlite3, duckdb; `-readonly` opens without writing).
HOME, state and the project are temporary (asserted before anything runs).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import files_intact_after, policy_project, policy_rewritten_live

POLICY = "kind: ApprovalPolicy\ndeny: ['npm publish*']\n"

PAYLOADS = [
    "sqlite3 :memory: \"vacuum into 'policies/x.yaml'\"",
    "sqlite3 app.db \"VACUUM main INTO 'policies/x.yaml'\"",
    "sqlite3 :memory: \"attach 'policies/x.yaml' as a; create table a.t(x)\"",
    "echo \"attach database 'policies/x.yaml' as a; create table a.t(x);\" | sqlite3",
    "sqlite3 policies/x.yaml 'create table t(x)'",
    "duckdb :memory: \"attach 'policies/x.yaml' as a\"",
    "sqlite3 -cmd \"vacuum into 'hermes-engine.yaml'\" :memory: .q",
]
NEAR_MISSES = [
    "sqlite3 app.db 'select 1'",
    "sqlite3 app.db \"vacuum into 'backup.db'\"",
    "sqlite3 app.db \"attach 'other.db' as o; select * from o.t\"",
    "sqlite3 -readonly app.db .tables",
    "sqlite3 data/app.db .schema",
    "echo 'select 1;' | sqlite3 app.db",
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "sql-created", POLICY) as found:
        yield found


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_database_file_created_in_policies_is_refused(project: tuple[Path, Engine], payload: str) -> None:
    _, engine = project
    verdict = engine.check(payload)
    assert verdict.decision == "deny" and verdict.hardline, (payload, verdict.decision)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_an_ordinary_database_stays_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    assert engine.check(command).decision == "allow", command


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="sqlite3 is not installed")
def test_no_policy_file_is_added(project: tuple[Path, Engine], tmp_path: Path) -> None:
    """Harm: under bash in a copy of the project the payload adds policies/x.yaml; through the
    engine's terminal (nobody to approve) it is refused and policies/ holds deny.yaml alone."""
    root, engine = project
    payload = PAYLOADS[0]
    assert policy_rewritten_live(tmp_path, payload, POLICY), "the payload should add a policy file"
    files_intact_after(root, engine, [("terminal", {"command": payload})], "harm", policy=POLICY)
