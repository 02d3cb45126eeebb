"""Provider compatibility checks on tool schemas, located in the manifest."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.definitions.formats import GEMINI_KEEP
from engine.definitions.strict import to_strict
from engine.errors import Problem
from engine.source.yamlfile import Document

_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_SINGLE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
)


def walk_schemas(schema: Any, path: list[str | int]) -> Iterator[tuple[dict[str, Any], list[str | int]]]:
    """Every subschema of ``schema`` with its path (only real schema positions)."""
    if not isinstance(schema, dict):
        return
    yield schema, path
    for key in _SUBSCHEMA_MAPS:
        value = schema.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                yield from walk_schemas(sub, [*path, key, name])
    for key in _SUBSCHEMA_LISTS:
        value = schema.get(key)
        if isinstance(value, list):
            for i, sub in enumerate(value):
                yield from walk_schemas(sub, [*path, key, i])
    for key in _SUBSCHEMA_SINGLE:
        value = schema.get(key)
        if isinstance(value, dict):
            yield from walk_schemas(value, [*path, key])


def _gemini_rejections(schema: Any, path: list[str | int], found: list[tuple[str, list[str | int]]]) -> None:
    # Hot at load (every tool, every subschema): set checks first, recursion only into schemas.
    if type(schema) is not dict:
        return
    if not GEMINI_KEEP.issuperset(schema):
        found.extend((key, [*path, key]) for key in schema if key not in GEMINI_KEEP)
    kind = schema.get("type")
    if type(kind) is list and len([t for t in kind if t != "null"]) > 1:
        found.append(("type unions", [*path, "type"]))
    enum = schema.get("enum")
    if type(enum) is list and not all(type(v) is str for v in enum):
        found.append(("non-string enum", [*path, "enum"]))
    props = schema.get("properties")
    if type(props) is dict:
        for name, sub in props.items():
            if type(sub) is dict:
                _gemini_rejections(sub, [*path, "properties", name], found)
    items = schema.get("items")
    if type(items) is dict:
        _gemini_rejections(items, [*path, "items"], found)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if type(branches) is list:
            for i, sub in enumerate(branches):
                _gemini_rejections(sub, [*path, key, i], found)


GEMINI_WARNING = "gemini-incompatible"


def lint_gemini(doc: Document) -> list[Problem]:
    """One warning per tool naming every keyword Gemini would refuse, at the first one."""
    name = doc.data.get("name")
    found: list[tuple[str, list[str | int]]] = []
    _gemini_rejections(doc.data.get("parameters"), ["parameters"], found)
    if not found:
        return []
    counts: dict[str, int] = {}
    for key, _ in found:
        counts[key] = counts.get(key, 0) + 1
    listed = ", ".join(f"{k} ({n}x)" if n > 1 else k for k, n in counts.items())
    return [
        doc.problem(
            found[0][1],
            GEMINI_WARNING,
            f"tool {name!r}: Gemini's schema has no {listed}; the gemini definition rewrites or drops them",
            key=True,
            severity="warning",
        )
    ]


def lint_openai_strict(doc: Document) -> list[Problem]:
    """Why a tool cannot be emitted in OpenAI strict mode, one problem per reason, located.

    A tool that can be made strict (engine.definitions.strict rewrites optional properties,
    closes objects, moves unsupported keywords into text) has none.
    """
    name = doc.data.get("name")
    found = to_strict(doc.data.get("parameters"))
    return [
        doc.problem(
            ["parameters", *why.path],
            "openai-strict",
            f"tool {name!r} cannot be strict: {why.message}; it is offered without strict mode",
            key=bool(why.path),
        )
        for why in found.reasons
    ]


STRICT_LINTS = {"openai": lint_openai_strict}
