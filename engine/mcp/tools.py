"""Another MCP server's tool listing → checked specs. Everything in a listing is untrusted.

A tool whose name, schema or size is unusable is skipped with a located warning (at the
McpServer manifest); the server's other tools and every local tool are unaffected. Schemas
may only refer inside themselves: a remote ``$ref`` would make the engine fetch a URL the
server chose.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import jsonschema_rs
import mcp_types as types

from engine.compile.binding import Bound
from engine.dispatch.results import sanitize
from engine.errors import Problem
from engine.mcp.manifest import MAX_NAME, ServerConfig, tool_name
from engine.registry.specs import Annotations, Source, ToolSpec

MAX_TOOLS = 256
MAX_SCHEMA_CHARS = 64_000
MAX_SCHEMA_NODES = 10_000
MAX_SCHEMA_DEPTH = 32
MAX_DESCRIPTION_CHARS = 4000
# Terminal escapes, bidi overrides and invisible characters have no business in text a model
# or a person reads as the server's description of a tool (newlines and tabs stay).
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
_REF_KEYS = frozenset({"$ref", "$dynamicRef", "$recursiveRef"})
_METASCHEMA = jsonschema_rs.Draft202012Validator(
    {"$ref": "https://json-schema.org/draft/2020-12/schema"}, validate_formats=True
)


@dataclass(frozen=True, slots=True)
class ServerTools:
    """One listing of one server, checked: specs by engine name, their validators, the warnings."""

    specs: Mapping[str, ToolSpec] = field(default_factory=dict)
    validators: Mapping[str, Any] = field(default_factory=dict)
    remote_names: Mapping[str, str] = field(default_factory=dict)  # engine name -> the server's name
    # The server's name -> the validator of its output schema (a structured result must match it).
    outputs: Mapping[str, Any] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()


def _text(text: str, limit: int) -> str:
    return sanitize(_INVISIBLE.sub("", text[: limit * 4]), limit)


def is_destructive(hints: types.ToolAnnotations | None) -> bool:
    """What the MCP spec says of a tool's hints: destructive unless it says otherwise.

    Only an explicit ``destructiveHint: true``, or ``readOnlyHint: false`` without a
    destructiveHint (the spec's default for a writing tool), counts: a tool with no hints
    at all follows the manifest's approval alone.
    """
    if hints is None:
        return False
    if hints.destructive_hint is not None:
        return hints.destructive_hint is True and hints.read_only_hint is not True
    return hints.read_only_hint is False


def _why(config: ServerConfig, tool: types.Tool, decision: str, parameters: Any, output: Any) -> str:
    """The reason an approval names. It holds a digest of the tool's definition, so a session
    grant never covers a tool the server later redefines under the same name."""
    written = config.approval_default is not None or any(
        fnmatch.fnmatchcase(tool.name, p) for p in config.approval_tools
    )
    because = f"its McpServer manifest says approval: {decision}" if written else "its server marks it destructive"
    hints = tool.annotations.model_dump(mode="json") if tool.annotations else None
    body = json.dumps([tool.name, tool.description, parameters, output, hints], sort_keys=True, default=str)
    digest = hashlib.sha256(body.encode("utf-8", "replace")).hexdigest()[:12]
    return f"{because} (MCP server {config.name!r}, definition {digest})"


class SchemaRefused(Exception):
    pass


def _walk(schema: Any) -> None:
    """Size, depth and reference limits, without recursion (a hostile schema may be deep)."""
    stack: list[tuple[Any, int]] = [(schema, 0)]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            raise SchemaRefused(f"more than {MAX_SCHEMA_NODES} nodes")
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaRefused(f"nested deeper than {MAX_SCHEMA_DEPTH} levels")
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _REF_KEYS and not (isinstance(value, str) and value.startswith("#")):
                    raise SchemaRefused(f"{key} {str(value)[:80]!r} points outside the schema")
                stack.append((value, depth + 1))
        elif isinstance(node, list):
            stack.extend((item, depth + 1) for item in node)


def check_schema(schema: Any, what: str) -> tuple[Mapping[str, Any], Any]:
    """A server's JSON Schema for arguments or results, and its compiled validator.

    Raises:
        SchemaRefused: why it cannot be used.
    """
    if not isinstance(schema, dict):
        raise SchemaRefused(f"its {what} is not a JSON object")
    _walk(schema)
    if len(json.dumps(schema)) > MAX_SCHEMA_CHARS:
        raise SchemaRefused(f"its {what} is larger than {MAX_SCHEMA_CHARS} characters")
    if schema.get("type") != "object":
        raise SchemaRefused(f"its {what} does not have type: object at its root")
    body = {k: v for k, v in schema.items() if k != "$schema"}
    if not _METASCHEMA.is_valid(body):
        error = next(iter(_METASCHEMA.iter_errors(body)))
        where = "/" + "/".join(str(p) for p in error.instance_path)
        raise SchemaRefused(f"its {what} is not a valid JSON Schema at {where}: {error.message.splitlines()[0]}")
    try:
        validator = jsonschema_rs.validator_for(body)
    except (jsonschema_rs.ValidationError, ValueError) as exc:
        raise SchemaRefused(f"its {what} does not compile: {str(exc).splitlines()[0]}") from None
    return body, validator


def check_listing(
    config: ServerConfig,
    listed: list[types.Tool],
    handler_for: Callable[[str], Bound],
    check: Bound,
) -> ServerTools:
    """Turn a listing into specs, skipping (with a warning) what cannot be used."""
    problems: list[Problem] = []
    specs: dict[str, ToolSpec] = {}
    validators: dict[str, Any] = {}
    remote: dict[str, str] = {}
    outputs: dict[str, Any] = {}
    source = Source(f"{config.name} (mcp)", 0)
    if len(listed) > MAX_TOOLS:
        problems.append(
            config.problem(
                "mcp-tool-skipped", f"{config.name} lists {len(listed)} tools; only the first {MAX_TOOLS} are used"
            )
        )
        listed = listed[:MAX_TOOLS]
    for tool in listed:
        label = f"MCP server {config.name!r}: tool {tool.name[:80]!r}"
        if not config.wanted(tool.name):
            continue
        name = tool_name(config.name, tool.name)
        if not tool.name or len(name) > MAX_NAME:
            problems.append(
                config.problem(
                    "mcp-tool-skipped",
                    f"{label} skipped: its name makes {name[:100]!r}, longer than {MAX_NAME} characters",
                )
            )
            continue
        if name in specs:
            problems.append(
                config.problem(
                    "mcp-tool-skipped", f"{label} skipped: another of its tools is also called {name!r} here"
                )
            )
            continue
        try:
            parameters, validator = check_schema(tool.input_schema, "input schema")
            output, output_validator = (None, None)
            if tool.output_schema is not None:
                output, output_validator = check_schema(tool.output_schema, "output schema")
        except SchemaRefused as exc:
            problems.append(config.problem("mcp-tool-skipped", f"{label} skipped: {exc}"))
            continue
        hints = tool.annotations
        title = tool.title or (hints.title if hints else None)
        decision = config.approval(tool.name, is_destructive(hints))
        description = _text(tool.description or f"{tool.name} (from MCP server {config.name})", MAX_DESCRIPTION_CHARS)
        specs[name] = ToolSpec(
            name=name,
            toolset=config.toolset,
            description=description,
            parameters=parameters,
            source=source,
            check_path=f"mcp:{config.name}",
            annotations=Annotations(
                title=None if title is None else _text(title, 200),
                read_only=hints.read_only_hint if hints else None,
                destructive=hints.destructive_hint if hints else None,
                idempotent=hints.idempotent_hint if hints else None,
                open_world=hints.open_world_hint if hints else None,
            ),
            title=None if title is None else _text(title, 200),
            output_schema=output,
            approval=None if decision == "allow" else (decision, _why(config, tool, decision, parameters, output)),
            handler=handler_for(tool.name),
            check=check,
        )
        validators[name] = validator
        remote[name] = tool.name
        if output_validator is not None:
            outputs[tool.name] = output_validator
    return ServerTools(
        MappingProxyType(specs),
        MappingProxyType(validators),
        MappingProxyType(remote),
        MappingProxyType(outputs),
        tuple(problems),
    )
