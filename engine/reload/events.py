"""What a reload changed, for listeners and for `hermes-engine dev`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import Problem
from engine.registry.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class ReloadEvent:
    """One reload attempt. ``ok`` false: the previous generation keeps serving."""

    ok: bool
    old_generation: int
    new_generation: int  # equals old_generation when the reload failed
    ms: float
    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    toolsets_added: tuple[str, ...] = ()
    toolsets_changed: tuple[str, ...] = ()
    toolsets_removed: tuple[str, ...] = ()
    policies_changed: bool = False
    problems: tuple[Problem, ...] = field(default=())
    files: tuple[str, ...] = ()  # what triggered it, relative to the root

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    def as_dict(self) -> dict[str, Any]:
        if not self.ok:
            return {"event": "error", "generation": self.old_generation, "errors": [p.as_dict() for p in self.errors]}
        out: dict[str, Any] = {
            "event": "reloaded",
            "generation": self.new_generation,
            "added": list(self.added),
            "changed": list(self.changed),
            "removed": list(self.removed),
            "ms": round(self.ms, 1),
        }
        if self.toolsets_added or self.toolsets_changed or self.toolsets_removed:
            out["toolsets"] = {
                "added": list(self.toolsets_added),
                "changed": list(self.toolsets_changed),
                "removed": list(self.toolsets_removed),
            }
        if self.policies_changed:
            out["policies_changed"] = True
        return out

    def summary(self) -> str:
        """`generation 7: +web_fetch ~read_file -old_tool (12 ms)`."""
        if not self.ok:
            return f"generation {self.old_generation} kept: {len(self.errors)} error(s)"
        parts = [f"+{n}" for n in self.added] + [f"~{n}" for n in self.changed] + [f"-{n}" for n in self.removed]
        parts += [f"+toolset:{n}" for n in self.toolsets_added] + [f"~toolset:{n}" for n in self.toolsets_changed]
        parts += [f"-toolset:{n}" for n in self.toolsets_removed]
        if self.policies_changed:
            parts.append("~policies")
        body = " ".join(parts) if parts else "no changes"
        return f"generation {self.new_generation}: {body} ({self.ms:.0f} ms)"


def _diff(old: Mapping[str, Any], new: Mapping[str, Any], same: Any) -> tuple[tuple[str, ...], ...]:
    added = tuple(sorted(set(new) - set(old)))
    removed = tuple(sorted(set(old) - set(new)))
    changed = tuple(sorted(n for n in set(old) & set(new) if not same(old[n], new[n])))
    return added, changed, removed


def _same_tool(a: Any, b: Any) -> bool:
    # Specs compare by what they declare; a re-imported handler is a change too.
    if a != b:
        return False
    fa = a.handler.function if a.handler else None
    fb = b.handler.function if b.handler else None
    return fa is fb


def diff(old: Snapshot, new: Snapshot, ms: float, files: tuple[str, ...]) -> ReloadEvent:
    added, changed, removed = _diff(old.tools, new.tools, _same_tool)
    ts_added, ts_changed, ts_removed = _diff(old.toolsets, new.toolsets, lambda a, b: a == b)
    policies_changed = [(m.kind, m.name, dict(m.data)) for m in old.manifests] != [
        (m.kind, m.name, dict(m.data)) for m in new.manifests
    ]
    return ReloadEvent(
        True,
        old.generation,
        new.generation,
        ms,
        added,
        changed,
        removed,
        ts_added,
        ts_changed,
        ts_removed,
        policies_changed,
        tuple(new.warnings),
        files,
    )
