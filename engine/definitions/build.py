"""Definitions for a set of tools, rendered per format (templates applied when present)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from engine.definitions.formats import FORMATS, STRICT_FORMATS
from engine.definitions.strict import StrictSchema, to_strict
from engine.errors import UsageError
from engine.registry.specs import ToolSpec

# OpenAI strict mode: "auto" (strict for every tool that can be), True (every tool must be:
# one that cannot is a UsageError), False (never; the schemas as written).
Strict = bool | Literal["auto"]
STRICT_CHOICES: tuple[Strict, ...] = ("auto", True, False)

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


def check_strict(value: Any) -> Strict:
    """Raises:
    UsageError: ``value`` is not a strict mode.
    """
    if value is True or value is False or value == "auto":
        return value  # type: ignore[no-any-return]
    raise UsageError(f"unknown strict mode {value!r} (known: auto, true, false)")


class StrictMemo:
    """Strict rewrites kept across builds, keyed by the identity of the parameters mapping.

    A reload keeps the parsed schemas of unchanged tools (the same objects), so re-rendering
    after one save rewrites one schema, not all of them. An entry holds its mapping, so an id
    is never reused while the entry lives; schemas are not mutated after loading. Bounded: past
    ``limit`` entries the memo starts over.
    """

    __slots__ = ("_entries", "limit")

    def __init__(self, limit: int = 8192) -> None:
        self._entries: dict[int, tuple[Mapping[str, Any], StrictSchema]] = {}
        self.limit = limit

    def __call__(self, parameters: Mapping[str, Any]) -> StrictSchema:
        entry = self._entries.get(id(parameters))
        if entry is not None and entry[0] is parameters:
            return entry[1]
        found = to_strict(parameters)
        if len(self._entries) >= self.limit:
            self._entries.clear()
        self._entries[id(parameters)] = (parameters, found)
        return found


def build_definitions(
    specs: Iterable[ToolSpec],
    fmt: str,
    render: Renderer = static_render,
    strict: Strict = False,
    memo: Callable[[Mapping[str, Any]], StrictSchema] = to_strict,
) -> list[dict[str, Any]]:
    """Raises:
    UsageError: unknown format; ``strict=True`` and a tool that strict mode cannot take.
    """
    check_format(fmt)
    formatter = FORMATS[fmt]
    strict = strict if fmt in STRICT_FORMATS else False
    out = []
    refused: list[str] = []
    for spec in sorted(specs, key=lambda s: s.name):
        description, parameters = render(spec)
        if strict is False:
            definition = formatter(spec, description, parameters)
            out.append(definition)
            continue
        found = memo(parameters)
        if found.schema is not None:
            definition = formatter(spec, description, found.schema)
        else:
            definition = formatter(spec, description, parameters)
            if strict is True:
                reasons = "; ".join(f"{'/'.join(map(str, w.path)) or '(root)'}: {w.message}" for w in found.reasons)
                refused.append(f"{spec.name} ({reasons})")
        function = definition["function"] if fmt == "openai" else definition
        function["strict"] = found.schema is not None
        out.append(definition)
    if refused:
        raise UsageError(f"strict mode cannot take these tools: {'; '.join(refused)}")
    return out
