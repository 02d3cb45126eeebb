"""An option the Programs table does not know may take a value in the program that runs.

A newer git, docker or kubectl than the table describes accepts options it does not list; read
as a flag, `docker --new-opt VAL rm -f web` would hide the verb behind VAL. Such a command is
also read with the unknown option and the word after it left out, and the stricter reading
wins. That other reading is never what a session grant covers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.approval import ApprovalRequest
from tests.redteam.conftest import judge

HIDDEN_VERBS = {
    "docker --frob x rm -f web": "container_cluster_destructive",
    "docker --frob x system prune -af": "container_cluster_destructive",
    "git --frob x push --force origin main": "git_force_push",
    "git -Z x reset --hard": "git_discard_work",
    "git --frob x --frab y clean -fdx": "git_discard_work",
    "kubectl --frob x delete ns prod": "container_cluster_destructive",
    "helm --frob x uninstall web": "container_cluster_destructive",
    "podman --frob x volume rm data": "container_cluster_destructive",
}

HARDLINE = [
    "sudo --frob x rm -rf /",
    "npm --frob x exec -c 'rm -rf ~'",
    "env --frob x rm -rf ~",
    "git --frob x -c core.pager='rm -rf ~' log",
]

NEAR_MISSES = [
    "git --frob x status",
    "git --frob status",
    "docker --frob x ps",
    "docker --log-level debug ps",
    "kubectl --frob x get pods",
    "git --no-pager log",
    "helm --frob x list",
]


@pytest.mark.parametrize(("command", "key"), list(HIDDEN_VERBS.items()))
def test_a_verb_behind_an_unknown_option_with_a_value_is_still_the_verb(engine: Engine, command: str, key: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision != "allow" and key in {m.key for m in verdict.matches}, (command, verdict.as_dict())


@pytest.mark.parametrize("command", HARDLINE)
def test_a_command_behind_an_unknown_option_with_a_value_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), (command, verdict.as_dict())


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_unknown_options_before_a_harmless_verb_stay_allowed(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "allow", (command, verdict.as_dict())


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    tree = tmp_path / "work"
    tree.mkdir()
    monkeypatch.chdir(tree)
    (tree / "hermes-engine.yaml").write_text("workdir: .\nstate_dir: .state\n")
    engine = Engine.load(tree)
    yield engine
    engine.close()


def test_a_session_grant_for_the_other_reading_covers_only_that_call(work: Engine) -> None:
    """Approving `git --frob x push --force` for the session does not approve `git push --force`.

    Both run in a temporary work tree with no repository and a temporary HOME: git refuses them."""
    asked: list[ApprovalRequest] = []
    answers = ["session"]

    def answer(request: ApprovalRequest) -> str:
        asked.append(request)
        return answers.pop(0) if answers else "deny"

    work.set_approval_callback(answer)
    work.call("terminal", {"command": "git --frob x push --force origin main"}, session_id="s1")
    assert len(asked) == 1
    result = work.call("terminal", {"command": "git push --force origin main"}, session_id="s1")
    assert len(asked) == 2, "the grant for the other reading covered a different command"
    assert not result.ok
