"""Frozen specs: what the registry knows about each tool, toolset and policy.

Specs are built once per load and never mutated; mapping-valued fields are
read-only views. A reload builds new specs beside the old ones.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.records import MISSING, Record

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

    from engine.compile.binding import Bound


class Source(Record, frozen=True):
    """Where something was declared: a file, line and column (line 0: not from a file)."""

    __slots__ = ("file", "line", "column")  # noqa: RUF023  (the fields' order)

    file: str
    line: int
    column: int

    def __init__(self, file: str, line: int, column: int = 1) -> None:
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "column", column)

    def __str__(self) -> str:
        # Line 0: not from a file (a tool listed by an MCP server says "SERVER (mcp)").
        return f"{self.file}:{self.line}" if self.line else self.file


class Annotations(Record, frozen=True):
    """A tool's behaviour hints, as MCP names them (read-only, destructive, ...)."""

    __slots__ = ("title", "read_only", "destructive", "idempotent", "open_world")  # noqa: RUF023  (the fields' order)

    title: str | None
    read_only: bool | None
    destructive: bool | None
    idempotent: bool | None
    open_world: bool | None

    def __init__(
        self,
        title: str | None = None,
        read_only: bool | None = None,
        destructive: bool | None = None,
        idempotent: bool | None = None,
        open_world: bool | None = None,
    ) -> None:
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "read_only", read_only)
        object.__setattr__(self, "destructive", destructive)
        object.__setattr__(self, "idempotent", idempotent)
        object.__setattr__(self, "open_world", open_world)

    def as_mcp(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.title is not None:
            out["title"] = self.title
        for ours, theirs in (
            ("read_only", "readOnlyHint"),
            ("destructive", "destructiveHint"),
            ("idempotent", "idempotentHint"),
            ("open_world", "openWorldHint"),
        ):
            value = getattr(self, ours)
            if value is not None:
                out[theirs] = value
        return out


class ToolSpec(Record, frozen=True, uncompared=("handler", "check")):
    """A tool as declared: its name, toolset, description, parameters and where it came from."""

    __slots__ = (  # noqa: RUF023  (the fields' order)
        "name",
        "toolset",
        "description",
        "parameters",
        "source",
        "pack",
        "emoji",
        "handler_path",
        "check_path",
        "requires_env",
        "max_result_size_chars",
        "timeout",
        "override",
        "annotations",
        "tags",
        "aliases",
        "argument_aliases",
        "parallel_safe",
        "path_arguments",
        "agent_loop",
        "template_env",
        "runtime",
        "overrides",
        "title",
        "output_schema",
        "approval",
        "handler",
        "check",
    )

    name: str
    toolset: str
    description: str
    parameters: Mapping[str, Any]
    source: Source
    pack: str
    emoji: str | None
    handler_path: str | None
    check_path: str | None
    requires_env: tuple[str, ...]
    max_result_size_chars: int | None
    timeout: float | None
    override: bool
    annotations: Annotations
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    argument_aliases: Mapping[str, str]
    parallel_safe: bool
    path_arguments: tuple[str, ...]
    agent_loop: bool
    template_env: tuple[str, ...]
    # Where its handler's commands and files live: a Runtime's name, or "default" (terminal.runtime).
    runtime: str | None
    overrides: Mapping[str, str]
    title: str | None
    # JSON Schema of a structured result (MCP structuredContent); None: text only.
    output_schema: Mapping[str, Any] | None
    # What the tool's source decided before any policy (an McpServer manifest's approval, or
    # ask for a tool its server marks destructive): None, or ("ask"|"deny", why).
    approval: tuple[str, str] | None
    # Bound at load; excluded from equality so a spec compares by what it declares.
    handler: Bound | None
    check: Bound | None

    def __init__(
        self,
        name: str,
        toolset: str,
        description: str,
        parameters: Mapping[str, Any],
        source: Source,
        pack: str = "project",
        emoji: str | None = None,
        handler_path: str | None = None,
        check_path: str | None = None,
        requires_env: tuple[str, ...] = (),
        max_result_size_chars: int | None = None,
        timeout: float | None = None,
        override: bool = False,
        annotations: Annotations = MISSING,
        tags: tuple[str, ...] = (),
        aliases: tuple[str, ...] = (),
        argument_aliases: Mapping[str, str] = MISSING,
        parallel_safe: bool = False,
        path_arguments: tuple[str, ...] = (),
        agent_loop: bool = False,
        template_env: tuple[str, ...] = (),
        runtime: str | None = None,
        overrides: Mapping[str, str] = MISSING,
        title: str | None = None,
        output_schema: Mapping[str, Any] | None = None,
        approval: tuple[str, str] | None = None,
        handler: Bound | None = None,
        check: Bound | None = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "toolset", toolset)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "parameters", parameters)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "pack", pack)
        object.__setattr__(self, "emoji", emoji)
        object.__setattr__(self, "handler_path", handler_path)
        object.__setattr__(self, "check_path", check_path)
        object.__setattr__(self, "requires_env", requires_env)
        object.__setattr__(self, "max_result_size_chars", max_result_size_chars)
        object.__setattr__(self, "timeout", timeout)
        object.__setattr__(self, "override", override)
        object.__setattr__(self, "annotations", Annotations() if annotations is MISSING else annotations)
        object.__setattr__(self, "tags", tags)
        object.__setattr__(self, "aliases", aliases)
        object.__setattr__(self, "argument_aliases", {} if argument_aliases is MISSING else argument_aliases)
        object.__setattr__(self, "parallel_safe", parallel_safe)
        object.__setattr__(self, "path_arguments", path_arguments)
        object.__setattr__(self, "agent_loop", agent_loop)
        object.__setattr__(self, "template_env", template_env)
        object.__setattr__(self, "runtime", runtime)
        object.__setattr__(self, "overrides", {} if overrides is MISSING else overrides)
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "output_schema", output_schema)
        object.__setattr__(self, "approval", approval)
        object.__setattr__(self, "handler", handler)
        object.__setattr__(self, "check", check)

    @property
    def is_async(self) -> bool:
        return self.handler is not None and self.handler.is_async


class ToolsetSpec(Record, frozen=True):
    """A toolset as declared."""

    __slots__ = ("name", "description", "source", "pack", "tools", "includes", "aliases", "members")  # noqa: RUF023  (the fields' order)

    name: str
    description: str
    source: Source
    pack: str
    tools: tuple[str, ...]  # declared in tools:
    includes: tuple[str, ...]
    aliases: tuple[str, ...]
    # Resolved at load: every tool in this toolset, its includes followed.
    members: frozenset[str]

    def __init__(
        self,
        name: str,
        description: str,
        source: Source,
        pack: str = "project",
        tools: tuple[str, ...] = (),
        includes: tuple[str, ...] = (),
        aliases: tuple[str, ...] = (),
        members: frozenset[str] = frozenset(),
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "pack", pack)
        object.__setattr__(self, "tools", tools)
        object.__setattr__(self, "includes", includes)
        object.__setattr__(self, "aliases", aliases)
        object.__setattr__(self, "members", members)


class ManifestSpec(Record, frozen=True):
    """A policy-kind document kept as data (DangerPatterns, ApprovalPolicy)."""

    __slots__ = ("kind", "name", "data", "source", "pack")  # noqa: RUF023  (the fields' order)

    kind: str
    name: str
    data: Mapping[str, Any]
    source: Source
    pack: str

    def __init__(self, kind: str, name: str, data: Mapping[str, Any], source: Source, pack: str = "project") -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "pack", pack)
