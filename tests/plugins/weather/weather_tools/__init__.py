import os
from pathlib import Path

if os.environ.get("HERMES_TEST_PLUGIN_MARKER"):
    Path(os.environ["HERMES_TEST_PLUGIN_MARKER"]).write_text("weather imported\n")

CALLS = []


def forecast(city: str) -> str:
    return f"sunny in {city}"


def note(tool, **_):
    CALLS.append(tool)


def register(ctx):
    ctx.add_hook("pre_tool_call", note)
