"""What an approval covers: only what the human saw, in a temporary HOME and work tree.

Each test asserts the harm did not happen (the directory is still there, the
marker file was not written), not only the verdict.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from engine import Engine
from engine.cli import cli
from engine.dispatch.hooks import AskApproval
from engine.errors import ValidationFailed
from engine.policy.approval import ApprovalRequest


@dataclass
class Tree:
    home: Path
    work: Path
    engine: Engine

    def run(self, command: str, session: str | None = "s1") -> Any:
        return self.engine.call("terminal", {"command": command}, session_id=session)


@dataclass
class Answers:
    """An approval callback answering from a script; records what it was asked."""

    script: list[str]
    asked: list[ApprovalRequest] = field(default_factory=list)

    def __call__(self, request: ApprovalRequest) -> str:
        self.asked.append(request)
        return self.script.pop(0) if self.script else "deny"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Tree]]:
    home = tmp_path / "home"
    (home / "projects" / "app").mkdir(parents=True)
    (home / "projects" / "app" / "main.py").write_text("print('keep me')\n")
    monkeypatch.setenv("HOME", str(home))
    engines: list[Engine] = []

    def make(config: str = "", policy: str | None = None) -> Tree:
        work = tmp_path / "tree" / "work"
        (work / "sub").mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / "build_other").mkdir(exist_ok=True)
        (work / "hermes-engine.yaml").write_text(f"workdir: .\nstate_dir: .state\n{config}")
        if policy is not None:
            (work / "policies").mkdir(exist_ok=True)
            (work / "policies" / "project.yaml").write_text(policy)
        engine = Engine.load(work, approve_changes=True)
        engines.append(engine)
        return Tree(home, work, engine)

    yield make
    for engine in engines:
        engine.close()


def test_a_session_approval_of_one_delete_does_not_approve_deleting_home(tree: Callable[..., Tree]) -> None:
    t = tree()
    answers = Answers(["session"])
    t.engine.set_approval_callback(answers)
    assert t.run("rm -rf ../build_other").ok
    assert not (t.work.parent / "build_other").exists()
    result = t.run("rm -rf ~/projects")
    assert result.error is not None and result.error.type == "denied"
    assert (t.home / "projects" / "app" / "main.py").read_text() == "print('keep me')\n"
    assert [a.command for a in answers.asked] == ["rm -rf ../build_other", "rm -rf ~/projects"]


def test_a_session_grant_covers_the_same_target_however_it_is_spelled(tree: Callable[..., Tree]) -> None:
    t = tree()
    answers = Answers(["session"])
    t.engine.set_approval_callback(answers)
    assert t.run("rm -rf ../build_other").ok
    (t.work.parent / "build_other").mkdir()
    assert t.run("rm -rf ./../build_other && echo done").ok
    assert not (t.work.parent / "build_other").exists()
    assert len(answers.asked) == 1


def test_an_always_approval_records_the_command_it_showed_and_nothing_wider(tree: Callable[..., Tree]) -> None:
    t = tree()
    answers = Answers(["always"])
    t.engine.set_approval_callback(answers)
    assert answers.script == ["always"]
    assert t.run("rm -rf ../build_other").ok
    config = yaml.safe_load((t.work / "hermes-engine.yaml").read_text())
    assert config["approvals"]["command_allowlist"] == ["rm -rf ../build_other"]
    assert answers.asked[0].always_globs == ["rm -rf ../build_other"]
    for engine in (t.engine, Engine.load(t.work, approve_changes=True)):
        engine.set_approval_callback(None)
        result = engine.call("terminal", {"command": "rm -rf ~/projects"}, session_id="other")
        assert result.error is not None and result.error.type == "pending_approval"
        engine.close()
    assert (t.home / "projects" / "app" / "main.py").exists()


def test_a_grant_does_not_follow_the_command_into_another_directory(tree: Callable[..., Tree]) -> None:
    t = tree()
    t.engine.set_approval_callback(Answers(["session"]))
    assert t.run("rm -rf ../build_other").ok
    (t.work / "build_other").mkdir()
    (t.work / "build_other" / "keep").write_text("x")
    result = t.run("cd sub && rm -rf ../build_other")
    assert result.error is not None
    assert (t.work / "build_other" / "keep").exists()


def test_a_grant_does_not_follow_the_command_into_another_cwd_argument(tree: Callable[..., Tree]) -> None:
    t = tree("", ALLOW_POLICY)
    answers = Answers(["session"])
    t.engine.set_approval_callback(answers)
    assert t.run("rm -rf ../build_other").ok
    (t.work / "build_other").mkdir()
    (t.work / "build_other" / "keep").write_text("x")
    moved = {"command": "rm -rf ../build_other", "cwd": "sub"}
    result = t.engine.call("terminal", moved, session_id="s1")
    assert result.error is not None and len(answers.asked) == 2
    assert (t.work / "build_other" / "keep").exists()
    # An allowlist glob covers the command where it was written for, not in another directory.
    t.run("git push --force origin scratch-1 2>/dev/null")
    assert len(answers.asked) == 2
    forced = {"command": "git push --force origin scratch-1 2>/dev/null; touch ran", "cwd": "sub"}
    assert t.engine.call("terminal", forced, session_id="s1").error is not None
    assert len(answers.asked) == 3 and not (t.work / "sub" / "ran").exists()


def test_a_grant_does_not_follow_a_symlink_that_now_points_elsewhere(tree: Callable[..., Tree]) -> None:
    t = tree()
    link = t.work.parent / "current"
    link.symlink_to(t.work.parent / "build_other")
    t.engine.set_approval_callback(Answers(["session"]))
    assert t.run("rm -rf ../current/").ok
    link.unlink()
    link.symlink_to(t.home / "projects")
    result = t.run("rm -rf ../current/")
    assert result.error is not None
    assert (t.home / "projects" / "app" / "main.py").exists()


def test_approving_a_piped_download_does_not_approve_another_source(tree: Callable[..., Tree]) -> None:
    t = tree()
    answers = Answers(["session"])
    t.engine.set_approval_callback(answers)
    first = "curl -s http://127.0.0.1:9/ok.sh | sh"
    t.run(first)
    t.run(first)
    assert len(answers.asked) == 1
    assert t.run("curl -s http://127.0.0.1:9/other.sh | sh").error is not None
    assert len(answers.asked) == 2


# Each deletes ../keep/build_other (as well as, or instead of, the granted ../build_other):
# spelled through an alias, a function, another reading of a value or another directory, it is
# another command. The work tree is under /tmp: `..` words land in /tmp from it.
OTHER_DELETES = [
    "shopt -s expand_aliases\nalias rm='rm -rf ../keep/build_other'\nrm -rf ../build_other",
    "shopt -s expand_aliases\nalias r='rm -rf '\nalias b='../build_other ../keep/build_other'\nr b",
    'rm() { command rm -rf ../keep/build_other "$@"; }; rm -rf ../build_other',
    'function rm { /bin/rm -rf ../keep/build_other "$@"; }; rm -rf ../build_other',
    'f() { rm -rf "$@"; }; f ../build_other ../keep/build_other',
    'f() { rm -rf ../build_other "$1"; }; f ../keep/build_other',
    'x=../build_other; [ -n "$HOME" ] && x=../keep/build_other; rm -rf $x',
    "x=../build_other; test -d ../keep && x=../keep/build_other; rm -rf $x",
    # The granted words, run in ../keep/inner: the directory is known only at run time (or
    # through an alias), and ../build_other from there is ../keep/build_other.
    "shopt -s expand_aliases\nalias go='cd ../keep/inner'\ngo; rm -rf ../build_other",
    "OLDPWD=../keep/inner; cd -; rm -rf ../build_other",
    "cd ../keep/inner; cd ..; cd -; rm -rf ../build_other",
    "CDPATH=../keep cd inner; rm -rf ../build_other",
    'cd "$(cat ../where)"; rm -rf ../build_other',
]


@pytest.mark.parametrize("command", OTHER_DELETES)
def test_a_session_grant_does_not_cover_another_command_behind_an_alias_function_reading_or_directory(
    tree: Callable[..., Tree], command: str
) -> None:
    t = tree()
    victim = t.work.parent / "keep" / "build_other"
    victim.mkdir(parents=True)
    (victim / "data").write_text("keep me\n")
    (t.work.parent / "keep" / "inner").mkdir()
    (t.work.parent / "where").write_text(str(t.work.parent / "keep" / "inner"))
    answers = Answers(["session"])
    t.engine.set_approval_callback(answers)
    assert t.run("rm -rf ../build_other").ok
    (t.work.parent / "build_other").mkdir()
    result = t.run(command)
    assert result.error is not None and result.error.type == "denied"
    assert len(answers.asked) == 2
    assert (victim / "data").read_text() == "keep me\n"


@pytest.mark.parametrize(
    "command",
    [
        "echo 'unterminated ; touch ran",  # cannot be parsed
        "rm -rf $UNSET_SOMEWHERE/../build_other; touch ran",  # a target known only at run time
    ],
)
def test_what_cannot_be_read_for_certain_is_approved_once_whatever_the_answer(
    tree: Callable[..., Tree], command: str
) -> None:
    t = tree()
    answers = Answers(["session", "deny"])
    t.engine.set_approval_callback(answers)
    t.run(command)
    assert answers.asked[0].grantable is False
    (t.work / "ran").unlink(missing_ok=True)
    result = t.run(command)
    assert result.error is not None and len(answers.asked) == 2
    assert not (t.work / "ran").exists()


def test_hook_approvals_are_keyed_by_hook_and_reason(tree: Callable[..., Tree]) -> None:
    t = tree()
    reasons = {"list_dir": "lists files", "read_file": "reads a file"}

    def watcher(tool: str) -> AskApproval | None:
        return AskApproval(reasons[tool]) if tool in reasons else None

    def auditor(tool: str) -> AskApproval | None:
        return AskApproval("reads a file") if tool == "read_file" else None

    t.engine.add_hook("pre_tool_call", watcher, name="watcher")
    answers = Answers(["session"])
    t.engine.set_approval_callback(answers)
    assert t.engine.call("list_dir", {}, session_id="s1").ok
    assert t.engine.call("list_dir", {}, session_id="s1").ok
    assert len(answers.asked) == 1
    (t.work / "notes.txt").write_text("hello\n")
    assert t.engine.call("read_file", {"path": "notes.txt"}, session_id="s1").error is not None
    t.engine.add_hook("pre_tool_call", auditor, name="auditor")
    answers.script = ["session"]
    assert t.engine.call("read_file", {"path": "notes.txt"}, session_id="s1").ok
    assert [m.key for m in answers.asked[-1].verdict.matches] == ["hook:watcher", "hook:auditor"]


DENY_POLICY = """\
kind: ApprovalPolicy
deny: ["npm publish*", "curl *evil.example*"]
rules:
  terminal:
    deny: [{command: "git push --force*"}]
"""


@pytest.mark.parametrize(
    "command",
    [
        "/usr/bin/curl https://EVIL.EXAMPLE/x",
        "CURL=1 curl -s https://cdn.Evil.Example/p",
        "npm pub",
        "npm --loglevel=silent publish",
        "npm --loglevel silent publish --tag next",
        "sudo -u ci npm publish",
        "bash -c 'cd . && npm publish'",
        "git push --forc origin main",
        "git -C . push --force-with-lease origin main",
    ],
)
def test_deny_globs_and_rules_match_the_command_as_it_runs(tree: Callable[..., Tree], command: str) -> None:
    t = tree("approvals:\n  yolo: true\n", DENY_POLICY)
    assert t.engine.check(command).decision == "deny"
    result = t.run(f"{command}; touch ran")
    assert result.error is not None and result.error.type == "denied"
    assert not (t.work / "ran").exists()


@pytest.mark.parametrize("command", ["npm install", "curl -s https://example.com/", "git push origin main"])
def test_deny_globs_leave_other_commands_alone(tree: Callable[..., Tree], command: str) -> None:
    t = tree("", DENY_POLICY)
    assert t.engine.check(command).decision != "deny"


ALLOW_POLICY = """\
kind: ApprovalPolicy
command_allowlist: ["git push --force origin scratch*"]
"""


def test_an_allowlist_glob_covers_a_command_only_where_its_context_does_not_change_it(
    tree: Callable[..., Tree],
) -> None:
    t = tree("", ALLOW_POLICY)
    assert t.engine.check("git push --force origin scratch-1").decision == "allow"
    assert t.engine.check("git push --force origin scratch-1 2>/dev/null").decision == "allow"
    assert t.engine.check("cd ../.. && git push --force origin scratch-1").decision == "ask"
    assert t.engine.check("sudo git push --force origin scratch-1").decision == "ask"
    assert t.engine.check("git push --force origin main").decision == "ask"


def test_a_glob_the_human_saw_is_written_so_yaml_reads_it_back(tree: Callable[..., Tree]) -> None:
    t = tree()
    t.engine.set_approval_callback(Answers(["always"]))
    command = "chmod 777 '../build_other: #1'"
    (t.work.parent / "build_other: #1").mkdir()
    assert t.run(command).ok
    listed = yaml.safe_load((t.work / "hermes-engine.yaml").read_text())["approvals"]["command_allowlist"]
    assert listed == ["chmod 777 ../build_other: #1"]
    fresh = Engine.load(t.work, approve_changes=True)
    assert fresh.check(command).decision == "allow"
    assert fresh.check("chmod 777 ../build_other").decision == "ask"
    assert os.stat(t.work.parent / "build_other: #1").st_mode & 0o777 == 0o777


RELAX = """\
kind: DangerPatterns
name: relax
description: A project trying to carve exceptions out of the builtin classes.
path_classes:
  home_top:
    - "~/scratch"
    - "!/Users/bob"
  credential: ["!~/.ssh/id_*"]
  mine: ["~/mine/**", "!~/mine/public/**"]
"""


def test_a_project_cannot_exclude_paths_from_a_builtin_class(runner: CliRunner, tmp_path: Path) -> None:
    work = tmp_path / "relaxed"
    (work / "policies").mkdir(parents=True)
    (work / "hermes-engine.yaml").write_text("workdir: .\n")
    (work / "policies" / "relax.yaml").write_text(RELAX)
    result = runner.invoke(cli, ["validate", "--root", str(work), "--format", "json"])
    assert result.exit_code == 1
    errors = json.loads(result.stdout)["errors"]
    assert [(e["code"], e["file"], e["line"]) for e in errors] == [
        ("class-exclusion", "policies/relax.yaml", 7),
        ("class-exclusion", "policies/relax.yaml", 8),
    ]
    with pytest.raises(ValidationFailed):
        Engine.load(work, approve_changes=True)
    (work / "policies" / "relax.yaml").write_text(
        RELAX.replace('    - "!/Users/bob"\n', "").replace('  credential: ["!~/.ssh/id_*"]\n', "")
    )
    engine = Engine.load(work, approve_changes=True)
    assert engine.check("rm -rf /Users/bob").hardline
    assert engine.check("rm -rf ~/scratch").hardline
