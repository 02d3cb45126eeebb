"""Frozen specs: what the registry knows about each tool, toolset and policy.

Specs are built once per load and never mutated; mapping-valued fields are
read-only views. A reload builds new specs beside the old ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

    from engine.compile.binding import Bound


@dataclass(frozen=True, slots=True)
class Source:
    """Where something was declared: a file, line and column (line 0: not from a file)."""

    file: str
    line: int
    column: int = 1

    def __str__(self) -> str:
        # Line 0: not from a file (a tool listed by an MCP server says "SERVER (mcp)").
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True, slots=True)
class Annotations:
    """A tool's behaviour hints, as MCP names them (read-only, destructive, ...)."""

    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

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


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as declared: its name, toolset, description, parameters and where it came from."""

    name: str
    toolset: str
    description: str
    parameters: Mapping[str, Any]
    source: Source
    pack: str = "project"
    emoji: str | None = None
    handler_path: str | None = None
    check_path: str | None = None
    requires_env: tuple[str, ...] = ()
    max_result_size_chars: int | None = None
    timeout: float | None = None
    override: bool = False
    annotations: Annotations = field(default_factory=Annotations)
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    argument_aliases: Mapping[str, str] = field(default_factory=dict)
    parallel_safe: bool = False
    path_arguments: tuple[str, ...] = ()
    agent_loop: bool = False
    template_env: tuple[str, ...] = ()
    # Where its handler's commands and files live: a Runtime's name, or "default" (terminal.runtime).
    runtime: str | None = None
    overrides: Mapping[str, str] = field(default_factory=dict)
    title: str | None = None
    # JSON Schema of a structured result (MCP structuredContent); None: text only.
    output_schema: Mapping[str, Any] | None = None
    # What the tool's source decided before any policy (an McpServer manifest's approval, or
    # ask for a tool its server marks destructive): None, or ("ask"|"deny", why).
    approval: tuple[str, str] | None = None
    # Bound at load; excluded from equality so a spec compares by what it declares.
    handler: Bound | None = field(default=None, compare=False)
    check: Bound | None = field(default=None, compare=False)

    @property
    def is_async(self) -> bool:
        return self.handler is not None and self.handler.is_async


@dataclass(frozen=True, slots=True)
class ToolsetSpec:
    """A toolset as declared."""

    name: str
    description: str
    source: Source
    pack: str = "project"
    tools: tuple[str, ...] = ()  # declared in tools:
    includes: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    # Resolved at load: every tool in this toolset, its includes followed.
    members: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ManifestSpec:
    """A policy-kind document kept as data (DangerPatterns, ApprovalPolicy)."""

    kind: str
    name: str
    data: Mapping[str, Any]
    source: Source
    pack: str = "project"
