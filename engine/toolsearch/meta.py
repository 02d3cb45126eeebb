"""The three meta-tools offered in place of deferred tools: their names, schemas and text."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.registry.specs import Annotations, Source, ToolSpec

SEARCH = "tool_search"
DESCRIBE = "tool_describe"
CALL = "tool_call"
META_TOOLS = (SEARCH, DESCRIBE, CALL)
META_NAMES = frozenset(META_TOOLS)
META_TOOLSET = "tool-search"

MAX_QUERY_CHARS = 1000
MAX_LIMIT = 20
DEFAULT_LIMIT = 5
MAX_DESCRIBE = 20
_TOOLSETS_NAMED = 12  # toolsets named in tool_search's description; more are counted

_SOURCE = Source("<tool search>", 0)


PARAMETERS: dict[str, dict[str, Any]] = {
    SEARCH: {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_QUERY_CHARS,
                "description": "What you want to do, in plain words (e.g. 'merge a pull request on GitHub').",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
                "description": "How many tools to return.",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    DESCRIBE: {
        "type": "object",
        "properties": {
            "names": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "maxItems": MAX_DESCRIBE,
                "description": "Tool names, as tool_search returned them.",
            },
        },
        "required": ["names"],
        "additionalProperties": False,
    },
    CALL: {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The tool to run, as tool_search returned it."},
            "arguments": {
                "type": "object",
                "description": "The tool's arguments, as its schema (tool_describe) asks for them.",
            },
        },
        "required": ["name"],
        "additionalProperties": False,
    },
}


def _search_text(deferred: int, toolsets: Sequence[str]) -> str:
    named = ", ".join(toolsets[:_TOOLSETS_NAMED])
    more = f" and {len(toolsets) - _TOOLSETS_NAMED} more" if len(toolsets) > _TOOLSETS_NAMED else ""
    return (
        f"Find tools that are not listed here: {deferred} more are available (toolsets: {named}{more}). "
        "Returns names and one-line descriptions, best match first. A tool found here can then be "
        "run with tool_call; tool_describe gives its full parameters."
    )


_TEXT = {
    DESCRIBE: "The full description and parameter schema of tools found with tool_search.",
    CALL: "Run a tool found with tool_search: give its name and its arguments. The result is the tool's own.",
}


def meta_specs(deferred: int, toolsets: Sequence[str]) -> list[ToolSpec]:
    """The meta-tools as specs, for ``deferred`` tools from ``toolsets`` (sorted)."""
    text = {SEARCH: _search_text(deferred, toolsets), **_TEXT}
    read_only = Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)
    return [
        ToolSpec(
            name=name,
            toolset=META_TOOLSET,
            description=text[name],
            parameters=copy.deepcopy(PARAMETERS[name]),
            source=_SOURCE,
            pack="builtin",
            annotations=read_only if name != CALL else Annotations(),
        )
        for name in META_TOOLS
    ]


@dataclass(frozen=True, slots=True)
class Redirect:
    """tool_call's answer: run this call instead, through the whole pipeline."""

    name: str
    args: dict[str, Any]


def inner_call(name: Any, args: Any) -> tuple[str, Any] | None:
    """The call a ``tool_call`` wraps, as (name, arguments), or None (not a well-formed tool_call).

    For planning only (which calls of a batch may run side by side); whether the call
    may run is decided when it is dispatched.
    """
    if name != CALL or not isinstance(args, Mapping):
        return None
    target = args.get("name")
    if not isinstance(target, str) or target in META_NAMES:
        return None
    return target, args.get("arguments")
