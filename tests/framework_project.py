"""The project the framework-adapter tests drive: a few tools of its own plus the builtin terminal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Engine

CONFIG = """\
include_builtin: true
handler_roots: [loop_tools]
state_dir: .state
workdir: work
approvals:
  timeout: 0.5
"""
HANDLERS = """\
def echo(text: str) -> str:
    return text


async def aecho(text: str) -> str:
    return "async " + text


def boom(message: str) -> str:
    raise ValueError(message)


def chart() -> list:
    return [{"type": "text", "text": "a chart"}, {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}]
"""
MANIFESTS = """\
kind: Tool
name: echo
toolset: demo
description: Echo the text back.
handler: loop_tools:echo
parameters:
  type: object
  properties:
    text: {type: string, description: What to echo.}
  required: [text]
  additionalProperties: false
---
kind: Tool
name: aecho
toolset: demo
description: Echo the text back, from an async handler.
handler: loop_tools:aecho
parameters:
  type: object
  properties:
    text: {type: string}
  required: [text]
---
kind: Tool
name: boom
toolset: demo
description: Always fails.
handler: loop_tools:boom
parameters:
  type: object
  properties:
    message: {type: string}
  required: [message]
---
kind: Tool
name: chart
toolset: demo
description: A text and an image.
handler: loop_tools:chart
parameters: {type: object, properties: {}}
"""
# The policy asks before a force push; the tests' approver says no. If the engine ever ran it
# anyway, HOME and the workdir are temporary, there is no repository to push, and `touch ran`
# leaves the evidence the tests look for.
DANGEROUS = "git push --force origin main 2>/dev/null; touch ran"


def load(
    write_project: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, approver: str = "deny"
) -> tuple[Engine, list[str]]:
    """The engine (HOME and cwd in tmp_path, set before anything runs) and the commands it asked about."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    root = write_project(
        {
            "hermes-engine.yaml": CONFIG,
            "loop_tools/__init__.py": HANDLERS,
            "toolsets/demo.yaml": "kind: Toolset\nname: demo\ndescription: Demo tools.\n",
            "manifests/demo.yaml": MANIFESTS,
            "work/.keep": "",
        }
    )
    engine = Engine.load(root)
    asked: list[str] = []

    def approve(request: object) -> str:
        asked.append(str(getattr(request, "command", "")))
        return approver

    engine.set_approval_callback(approve)
    return engine, asked
