"""Provider compatibility checks on tool schemas, located in the manifest."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.definitions.formats import GEMINI_KEEP
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
            "gemini-incompatible",
            f"tool {name!r}: Gemini's schema has no {listed}; the gemini definition rewrites or drops them",
            key=True,
            severity="warning",
        )
    ]


def _types(schema: dict[str, Any]) -> set[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return set()


def lint_openai_strict(doc: Document) -> list[Problem]:
    """What OpenAI's strict mode would refuse, one problem per offending node."""
    name = doc.data.get("name")
    params = doc.data.get("parameters")
    out: list[Problem] = []
    if isinstance(params, dict) and "anyOf" in params:
        out.append(
            doc.problem(
                ["parameters", "anyOf"],
                "openai-strict",
                f"tool {name!r}: strict mode does not allow anyOf at the root",
                key=True,
            )
        )
    for schema, path in walk_schemas(params, ["parameters"]):
        if "object" not in _types(schema) and "properties" not in schema:
            continue
        if schema.get("additionalProperties") is not False:
            where = [*path, "additionalProperties"] if "additionalProperties" in schema else path
            out.append(
                doc.problem(
                    where,
                    "openai-strict",
                    f"tool {name!r}: strict mode needs additionalProperties: false on every object",
                )
            )
        properties = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        if isinstance(properties, dict):
            for prop, sub in properties.items():
                if prop in required:
                    continue
                nullable = isinstance(sub, dict) and (
                    "null" in _types(sub)
                    or any(isinstance(b, dict) and "null" in _types(b) for b in sub.get("anyOf") or [])
                )
                advice = "add it to required" + ("" if nullable else " and make it nullable (type: [..., 'null'])")
                message = f"tool {name!r}: strict mode needs every property required; {prop!r} is optional: {advice}"
                out.append(doc.problem([*path, "properties", prop], "openai-strict", message, key=True))
    return out


STRICT_LINTS = {"openai": lint_openai_strict}
