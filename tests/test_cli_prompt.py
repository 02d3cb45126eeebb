"""The approval prompt at a terminal: what the caller wrote cannot repaint it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

import engine.cli.main  # noqa: F401  (the module, for at_a_terminal)
from engine.cli import cli
from engine.cli.prompt import printable


@pytest.fixture
def at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # engine.cli.main is also the name of the console-script function: reach the module itself.
    monkeypatch.setattr(sys.modules["engine.cli.main"], "_interactive", lambda: True)


@pytest.fixture
def project(write_project: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / "projects").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return write_project({"hermes-engine.yaml": "workdir: work\nstate_dir: .state\n", "work/.keep": ""})


def call(runner: CliRunner, root: Path, command: str, answer: str) -> tuple[int, str]:
    args = ["--root", str(root), "call", "terminal", json.dumps({"command": command}), "--json"]
    result = runner.invoke(cli, args, input=answer + "\n")
    return result.exit_code, result.stderr


def test_control_characters_in_a_command_are_shown_escaped(
    runner: CliRunner, project: Path, at_a_terminal: None
) -> None:
    # On a terminal, \r and "erase line" would leave only "echo hello" visible.
    command = "rm -rf ~/projects; touch ran\r\x1b[2Kecho hello \x1b]0;title\x07\u202e"
    code, shown = call(runner, project, command, "d")
    assert code == 1
    assert not any(ch in shown for ch in "\r\x1b\x07\u202e")
    assert "touch ran\\r\\x1b[2Kecho hello \\x1b]0;title\\x07\\u202e" in shown
    assert (Path(os.environ["HOME"]) / "projects").is_dir() and not (project / "work" / "ran").exists()


def test_a_call_that_cannot_be_granted_is_offered_once_or_deny_only(
    runner: CliRunner, project: Path, at_a_terminal: None
) -> None:
    code, shown = call(runner, project, "echo 'unterminated; touch ran", "s")
    assert "[o]nce/[d]eny" in shown and "[s]ession" not in shown
    assert code == 1 and not (project / "work" / "ran").exists()


def test_always_shows_the_glob_it_would_record(runner: CliRunner, project: Path, at_a_terminal: None) -> None:
    code, shown = call(runner, project, "git push --force origin main 2>/dev/null; touch ran", "d")
    assert "always adds to approvals.command_allowlist: git push --force origin main" in shown
    assert code == 1 and not (project / "work" / "ran").exists()


@pytest.mark.parametrize(
    "text,shown",
    [
        ("plain text", "plain text"),
        ("a\\b", "a\\\\b"),
        ("tab\there\nnext", "tab\\there\\nnext"),
        ("\x9b31m", "\\x9b31m"),
        ("\u200bzero", "\\u200bzero"),
        ("\U000e0041tag", "\\U000e0041tag"),
    ],
)
def test_printable_escapes_what_a_terminal_would_interpret(text: str, shown: str) -> None:
    assert printable(text) == shown
