"""The JSON Schemas of each manifest kind, as shipped in the package."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from engine.config import config_json_schema

# Names on the command line (`hermes-engine json-schema NAME`) -> file stem.
SCHEMA_NAMES = ("tool", "toolset", "danger-patterns", "approval-policy", "mcp-server", "programs", "runtime", "config")
KIND_TO_SCHEMA = {
    "Tool": "tool",
    "Toolset": "toolset",
    "DangerPatterns": "danger-patterns",
    "ApprovalPolicy": "approval-policy",
    "McpServer": "mcp-server",
    "Programs": "programs",
    "Runtime": "runtime",
}


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The published schema called ``name`` (see :data:`SCHEMA_NAMES`)."""
    if name == "config":
        return config_json_schema()
    text = resources.files(__package__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def schema_path(name: str) -> Path | None:
    """The installed file of a kind's schema (``None`` for the derived config schema)."""
    if name == "config":
        return None
    return Path(str(resources.files(__package__).joinpath(f"{name}.schema.json")))
