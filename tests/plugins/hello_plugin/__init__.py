"""An installed plugin: a Python-declared tool, a manifest tool, a hook, a danger pattern."""

from __future__ import annotations

from typing import Any


def greet(name: str) -> str:
    """Greet someone by name."""
    return f"hello, {name}"


def tag_result(tool: str, output: str, **_: Any) -> str:
    return output + " [hello-plugin]" if tool == "greet" else output


def register(ctx: Any) -> None:
    ctx.add_tool(
        greet,
        toolset="hello",
        parameters={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    )
    ctx.add_hook("transform_tool_result", tag_result)
