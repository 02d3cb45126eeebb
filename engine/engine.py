"""The Engine: the one object a host holds. It owns the current snapshot.

Readers take ``self._snapshot`` once per operation and work on that; a reload
builds a new snapshot and replaces the attribute in one assignment, so a reader
never sees a half-built state and never waits for a writer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.build.loader import LoadResult, ProjectLoader
from engine.config import Config
from engine.definitions.build import build_definitions, check_format
from engine.errors import ValidationFailed
from engine.registry.availability import Availability, AvailabilityCache
from engine.registry.snapshot import Snapshot
from engine.registry.specs import ToolSpec, ToolsetSpec

_DEFS_CACHE_LIMIT = 256


@dataclass(frozen=True, slots=True)
class ToolInfo:
    name: str
    toolset: str
    available: bool
    reason: str | None
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "toolset": self.toolset, "available": self.available,
                "reason": self.reason, "source": self.source}


class Engine:
    """Holds a project's registry and answers definitions (and, later, calls)."""

    def __init__(self, loader: ProjectLoader, result: LoadResult) -> None:
        if result.snapshot is None:
            raise ValidationFailed(result.problems)
        self._loader = loader
        self._snapshot: Snapshot = result.snapshot
        self.last_result = result
        self._availability = AvailabilityCache(float(result.snapshot.config["check_ttl"]))
        self._defs_cache: dict[tuple[Any, ...], tuple[float, list[dict[str, Any]]]] = {}
        self._reload_lock = threading.Lock()

    @classmethod
    def load(
        cls,
        root: Path | str = ".",
        *,
        include_builtin: bool | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> Engine:
        """Load a project (the builtin pack included unless the config says otherwise).

        ``config`` overrides keys of ``hermes-engine.yaml`` (deep-merged).

        Raises:
            UsageError: ``root`` is not a project.
            ValidationFailed: the manifests have errors; ``.problems`` lists them all.
        """
        loader = ProjectLoader(root, include_builtin=include_builtin, config_overrides=config)
        return cls(loader, loader.load(1))

    # -- the registry ------------------------------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot

    @property
    def generation(self) -> int:
        return self._snapshot.generation

    @property
    def tools(self) -> Mapping[str, ToolSpec]:
        return self._snapshot.tools

    @property
    def toolsets(self) -> Mapping[str, ToolsetSpec]:
        return self._snapshot.toolsets

    @property
    def config(self) -> Config:
        return self._snapshot.config

    @property
    def root(self) -> Path:
        return self._snapshot.root

    def availability(self, name: str) -> Availability:
        """Whether a tool (or legacy alias) can be used now.

        Raises:
            KeyError: no such tool.
        """
        snap = self._snapshot
        canonical = snap.canonical_tool(name)
        if canonical is None:
            raise KeyError(name)
        return self._availability.get(snap.tools[canonical])

    def invalidate_checks(self, name: str | None = None) -> None:
        """Forget cached availability (of one tool, or all) so checks run again."""
        self._availability.invalidate(name)
        self._defs_cache.clear()

    def list_tools(self, toolset: str | None = None) -> list[ToolInfo]:
        snap = self._snapshot
        names = sorted(snap.resolve_toolsets([toolset]) if toolset else snap.tools)
        out = []
        for name in names:
            spec = snap.tools[name]
            avail = self._availability.get(spec)
            out.append(ToolInfo(name, spec.toolset, avail.available, avail.reason, str(spec.source)))
        return out

    # -- definitions -------------------------------------------------------------

    def definitions(
        self,
        format: str = "openai",
        enabled: Iterable[str] | None = None,
        disabled: Iterable[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Tool definitions for the model, available tools only, sorted by name.

        The returned list is cached and shared: copy it before changing it.

        Raises:
            UsageError: unknown format or toolset name.
        """
        snap = self._snapshot
        key = (
            snap.generation,
            format,
            None if enabled is None else tuple(enabled),
            () if disabled is None else tuple(disabled),
        )
        entry = self._defs_cache.get(key)
        if entry is not None and entry[0] > time.monotonic():
            return entry[1]
        return self._build_definitions(snap, key)

    def _build_definitions(self, snap: Snapshot, key: tuple[Any, ...]) -> list[dict[str, Any]]:
        _, fmt, enabled, disabled = key
        check_format(fmt)
        if enabled is None:
            configured = snap.config.get("toolsets", "enabled")
            enabled = None if configured is None else tuple(configured)
            disabled = (*disabled, *snap.config.get("toolsets", "disabled"))
        names = snap.resolve_toolsets(enabled, disabled)
        expires = float("inf")
        available: list[ToolSpec] = []
        for name in names:
            spec = snap.tools[name]
            if self._availability.get(spec).available:
                available.append(spec)
            expires = min(expires, self._availability.expires_at(spec))
        result = build_definitions(available, fmt, frozenset(s.name for s in available), self._render)
        if len(self._defs_cache) >= _DEFS_CACHE_LIMIT:
            self._defs_cache.clear()
        self._defs_cache[key] = (expires, result)
        return result

    def _render(self, spec: ToolSpec, available: frozenset[str]) -> tuple[str, Mapping[str, Any]]:
        return spec.description, spec.parameters
