def count(n: int) -> str:
    return str(n)


def register(ctx):
    ctx.add_tool(
        count,
        toolset="hello",
        description="Count.",
        parameters={"type": "object", "properties": {"n": {"type": "integr"}}, "required": ["n"]},
    )
