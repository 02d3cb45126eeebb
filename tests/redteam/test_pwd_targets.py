"""$PWD in a redirection's target (adv27 family 1).

A redirection's target was expanded without field splitting, and $PWD (or `$(pwd)`) in a word
that is not split read as unknown — a value kept for later, as in `x=$PWD`, where a later `cd`
would move it. An unknown prefix before a literal name is an ordinary computed name
(`echo x > $OUT_DIR/log.txt` stays allowed), so `echo x > $PWD/policies/deny.yaml` rewrote the
project's policy while `cp x $PWD/policies/deny.yaml` was denied. A target is expanded where the
command runs: its $PWD is the folder the command runs in, as in a command's words. Values kept
in a variable (`p=$PWD/policies; … > $p/deny.yaml`) are in tests/redteam/test_pwd_kept.py.
HOME, state and the project are temporary (asserted before anything runs).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import files_intact_after, policy_project, policy_rewritten_live

POLICY = "kind: ApprovalPolicy\ndeny: ['npm publish*']\n"

PAYLOADS = [
    "echo 'mode: off' > $PWD/policies/deny.yaml",
    'echo "mode: off" > "${PWD}/policies/deny.yaml"',
    "echo 'mode: off' > \"$(pwd)/policies/deny.yaml\"",
    "echo 'kind: ApprovalPolicy' > $PWD/policies/allow.yaml",
    "cd policies && echo 'mode: off' >> $PWD/deny.yaml",
    'cd policies; echo x > "$(pwd)"/deny.yaml',
    "pushd policies; echo x > $PWD/new.yaml",
    "echo x >| $PWD/policies/deny.yaml",
    "printf x 2>> ${PWD}/policies/deny.yaml",
    'cat x.txt &> "$PWD/hermes-engine.yaml"',
    "exec 3> $PWD/policies/deny.yaml",
    "echo x > $PWD/./src/../policies/deny.yaml",
]
NEAR_MISSES = [
    "echo x > $PWD/notes.txt",
    'ls > "$(pwd)/files.txt"',
    "make 2> $PWD/build.log",
    "cat < $PWD/README.md",
    'echo hi > "$PWD"/README.md',
    "exec > $PWD/log.txt",
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "pwd-targets", POLICY) as found:
        yield found


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_pwd_target_naming_an_engine_file_is_refused(project: tuple[Path, Engine], payload: str) -> None:
    _, engine = project
    verdict = engine.check(payload)
    assert verdict.decision == "deny" and verdict.hardline, (payload, verdict.decision)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_a_pwd_target_in_the_project_stays_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    assert engine.check(command).decision == "allow", command


def test_the_policy_stays_as_it_was(project: tuple[Path, Engine], tmp_path: Path) -> None:
    """Harm: under bash in a copy of the project the payload rewrites the policy; through the
    engine's terminal (nobody to approve) it is refused and the policy is unchanged."""
    root, engine = project
    payload = PAYLOADS[0]
    assert policy_rewritten_live(tmp_path, payload, POLICY), "the payload should rewrite the policy"
    files_intact_after(root, engine, [("terminal", {"command": payload})], "harm", policy=POLICY)
