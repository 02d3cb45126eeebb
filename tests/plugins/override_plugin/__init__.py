"""Replaces the project's `lookup` tool with its own."""


def lookup(key: str) -> str:
    return f"plugin answer for {key}"


def register(ctx):
    ctx.add_tool(
        lookup,
        toolset="proj",
        override=True,
        description="Look a key up (plugin).",
        parameters={"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
    )
