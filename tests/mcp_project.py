"""A small project served over MCP in the tests: one tool per behaviour under test."""

from __future__ import annotations

import textwrap
from pathlib import Path

HANDLERS = """
import asyncio
import base64
import time
from pathlib import Path

from engine.dispatch.context import ToolFailure

PNG = base64.b64encode(b"PNG-BYTES-FOR-A-TEST").decode()


def echo(text: str) -> str:
    return text


def weather(city: str) -> dict:
    return {"city": city, "celsius": 21}


def wrong_shape(city: str) -> dict:
    return {"city": city, "celsius": "warm"}


def fail() -> str:
    raise ToolFailure("the thing is broken")


def picture() -> list:
    return [{"type": "text", "text": "a picture"}, {"type": "image", "data": PNG, "mimeType": "image/png"}]


def counted(steps: int, ctx) -> str:
    for i in range(steps):
        ctx.progress(i + 1, steps, f"step {i + 1}")
    return f"{steps} steps"


async def wait_forever(marker: str) -> str:
    Path(marker).write_text("started")
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        Path(marker).write_text("cancelled")
        raise
    return "never"


def until_cancelled(marker: str, ctx) -> str:
    Path(marker).write_text("started")
    deadline = time.monotonic() + 30
    while not ctx.cancelled and time.monotonic() < deadline:
        time.sleep(0.01)
    Path(marker).write_text("saw the cancellation" if ctx.cancelled else "never told")
    return "stopped"


def risky(marker: str) -> str:
    Path(marker).write_text("ran")
    return "done"


def ask_for_risky(tool):
    if tool == "risky":
        return {"ask": "risky writes a file"}
    return None
"""

MANIFESTS = """
kind: Tool
name: echo
toolset: t
title: Echo
description: Say it back.
handler: mcp_handlers:echo
annotations: {read_only: true, idempotent: true}
parameters:
  type: object
  properties: {text: {type: string}}
  required: [text]
  additionalProperties: false
---
kind: Tool
name: weather
toolset: t
description: Structured weather.
handler: mcp_handlers:weather
output_schema:
  type: object
  properties: {city: {type: string}, celsius: {type: integer}}
  required: [city, celsius]
parameters:
  type: object
  properties: {city: {type: string}}
  required: [city]
---
kind: Tool
name: wrong_shape
toolset: t
description: Returns what its output schema forbids.
handler: mcp_handlers:wrong_shape
output_schema:
  type: object
  properties: {celsius: {type: integer}}
parameters:
  type: object
  properties: {city: {type: string}}
  required: [city]
---
kind: Tool
name: fail
toolset: t
description: Always fails.
handler: mcp_handlers:fail
parameters: {type: object}
---
kind: Tool
name: picture
toolset: pics
description: An image.
handler: mcp_handlers:picture
parameters: {type: object}
---
kind: Tool
name: counted
toolset: t
description: Reports progress.
handler: mcp_handlers:counted
parameters:
  type: object
  properties: {steps: {type: integer}}
  required: [steps]
---
kind: Tool
name: wait_forever
toolset: t
description: Runs until cancelled.
handler: mcp_handlers:wait_forever
parameters:
  type: object
  properties: {marker: {type: string}}
  required: [marker]
---
kind: Tool
name: until_cancelled
toolset: t
description: A sync handler that stops when told.
handler: mcp_handlers:until_cancelled
parameters:
  type: object
  properties: {marker: {type: string}}
  required: [marker]
---
kind: Tool
name: risky
toolset: t
description: Needs approval.
handler: mcp_handlers:risky
parameters:
  type: object
  properties: {marker: {type: string}}
  required: [marker]
"""

CONFIG = """
include_builtin: false
handler_roots: [mcp_handlers]
hooks: {pre_tool_call: ["mcp_handlers:ask_for_risky"]}
approvals: {timeout: 20}
"""

TOOLSETS = """
kind: Toolset
name: t
description: T.
---
kind: Toolset
name: pics
description: P.
"""


def write_served_project(root: Path) -> Path:
    files = {
        "hermes-engine.yaml": CONFIG,
        "mcp_handlers/__init__.py": HANDLERS,
        "toolsets/t.yaml": TOOLSETS,
        "manifests/m.yaml": MANIFESTS,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root
