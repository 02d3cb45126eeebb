"""The registry's content at one generation: immutable, swapped whole on reload."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from engine.config import Config
from engine.errors import Problem, UsageError
from engine.registry.specs import ManifestSpec, ToolsetSpec, ToolSpec

ALL_TOOLSETS = frozenset({"all", "*"})


@dataclass(frozen=True, slots=True)
class Snapshot:
    generation: int
    root: Path
    config: Config
    tools: Mapping[str, ToolSpec]
    toolsets: Mapping[str, ToolsetSpec]
    tool_aliases: Mapping[str, str] = field(default_factory=dict)
    toolset_aliases: Mapping[str, str] = field(default_factory=dict)
    manifests: tuple[ManifestSpec, ...] = ()
    warnings: tuple[Problem, ...] = ()
    # Call-time argument validators, by tool name (compiled at load).
    validators: Mapping[str, Any] = field(default_factory=dict)
    # The compiled policy (danger patterns + approval policy); see engine.policy.
    policy: Any = None
    # Rendering state for Jinja-templated definitions; see engine.templates.
    templates: Any = None
    # Hooks named in the project config, bound at load: point -> functions.
    config_hooks: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    # Declared runtimes by name (engine.runtime.RuntimeSpec); "local" is always there.
    runtimes: Mapping[str, Any] = field(default_factory=dict)
    # Work done lazily for this generation (dispatch plans by tool name, the policy evaluator).
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def canonical_tool(self, name: str) -> str | None:
        if name in self.tools:
            return name
        return self.tool_aliases.get(name)

    def runtime_of(self, spec: ToolSpec) -> Any:
        """The RuntimeSpec a tool runs in (``default`` is ``terminal.runtime``); None: it names none."""
        name = spec.runtime
        if name is None:
            return None
        if name == "default":
            name = str(self.config.get("terminal", "runtime"))
        return self.runtimes.get(name)

    def canonical_toolset(self, name: str) -> str | None:
        if name in self.toolsets:
            return name
        return self.toolset_aliases.get(name)

    def resolve_toolsets(
        self, enabled: Iterable[str] | None = None, disabled: Iterable[str] | None = None
    ) -> frozenset[str]:
        """Tool names offered for ``enabled`` minus ``disabled`` (subtracted last).

        ``enabled=None`` means every tool; ``all`` and ``*`` name every tool too;
        legacy toolset aliases resolve to their toolset.

        Raises:
            UsageError: a name is neither a toolset nor an alias.
        """
        if enabled is None:
            chosen = frozenset(self.tools)
        else:
            chosen = frozenset().union(*(self._members(n) for n in enabled)) if enabled else frozenset()
        if disabled:
            chosen = chosen - frozenset().union(*(self._members(n) for n in disabled))
        return chosen

    def _members(self, name: str) -> frozenset[str]:
        if name in ALL_TOOLSETS:
            return frozenset(self.tools)
        canonical = self.canonical_toolset(name)
        if canonical is None:
            known = [*self.toolsets, *self.toolset_aliases]
            close = get_close_matches(name, known, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise UsageError(f"unknown toolset {name!r}{hint}")
        return self.toolsets[canonical].members
