"""Tools that come from somewhere other than manifest files (another MCP server's listing).

A source is asked for its tools on every load, after the file-based tools and toolsets
are built; what it returns joins the next generation like any other tool, so a change
in a source reaches callers by the same swap as a file reload (``Engine.reload()``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.errors import Problem
from engine.registry.specs import ManifestSpec, ToolsetSpec, ToolSpec


@dataclass(frozen=True, slots=True)
class Contribution:
    tools: Mapping[str, ToolSpec] = field(default_factory=dict)
    # Call-time argument validators, by tool name, as for manifest tools.
    validators: Mapping[str, Any] = field(default_factory=dict)
    toolsets: Mapping[str, ToolsetSpec] = field(default_factory=dict)
    toolset_aliases: Mapping[str, str] = field(default_factory=dict)
    # Warnings located at the manifest that declared the source (never errors: a remote
    # source's mistakes must not stop the local tools from loading).
    problems: Sequence[Problem] = ()
    # Toolset -> why it holds no tools now (its server is connecting, failed...): a Toolset
    # that includes it gets this as a warning located at the include.
    reasons: Mapping[str, str] = field(default_factory=dict)


class ToolSource(Protocol):
    def contribute(
        self, manifests: Sequence[ManifestSpec], tools: Collection[str], toolsets: Collection[str]
    ) -> Contribution:
        """The tools to add, given this load's policy-kind manifests and the names already taken."""
        ...
