"""register() adds a tool and a hook, then raises: none of it may stay."""


def leak(text: str) -> str:
    return text


def hook(**_):
    raise AssertionError("a failed plugin's hook ran")


def register(ctx):
    ctx.add_tool(
        leak,
        toolset="hello",
        description="Must not appear.",
        parameters={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )
    ctx.add_hook("pre_tool_call", hook)
    raise RuntimeError("the plugin's database is unreachable")
