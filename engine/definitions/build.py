"""Definitions for a set of tools, rendered per format (templates applied when present)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.definitions.formats import FORMATS
from engine.errors import UsageError
from engine.registry.specs import ToolSpec

# spec -> (description, parameters) as the model should see them.
Renderer = Callable[[ToolSpec], tuple[str, Mapping[str, Any]]]


def static_render(spec: ToolSpec) -> tuple[str, Mapping[str, Any]]:
    return spec.description, spec.parameters


def check_format(name: str) -> None:
    """Raises:
    UsageError: ``name`` is not a known definitions format.
    """
    if name not in FORMATS:
        raise UsageError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")


def build_definitions(specs: Iterable[ToolSpec], fmt: str, render: Renderer = static_render) -> list[dict[str, Any]]:
    check_format(fmt)
    formatter = FORMATS[fmt]
    out = []
    for spec in sorted(specs, key=lambda s: s.name):
        description, parameters = render(spec)
        out.append(formatter(spec, description, parameters))
    return out
