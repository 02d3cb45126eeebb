"""OpenAI strict mode: a tool's parameters rewritten into the subset strict mode accepts.

With ``strict: true`` OpenAI constrains the model's arguments to the schema, but accepts only
a subset of JSON Schema (source: OpenAI's Structured Outputs guide, "Supported schemas",
https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas; see
docs/strict.md for the list and what the engine does with each keyword):

- every object lists its ``properties``, all of them ``required``, with
  ``additionalProperties: false``; an optional property is emulated by a ``null`` union;
- the root is an object, not ``anyOf``;
- types string, number, integer, boolean, object, array, null, ``enum`` and ``anyOf``;
  ``$defs``/``$ref`` (local);
- strings: ``pattern``, ``format`` (date-time, time, date, duration, email, hostname,
  ipv4, ipv6, uuid); numbers: ``multipleOf``, ``minimum``, ``maximum``,
  ``exclusiveMinimum``, ``exclusiveMaximum``; arrays: ``minItems``, ``maxItems``;
- not ``allOf``, ``not``, ``dependentRequired``, ``dependentSchemas``, ``if``/``then``/``else``;
- at most 5000 properties, 10 levels of nesting, 1000 enum values in all.

:func:`to_strict` rewrites a schema that can be expressed: objects closed, optional
properties required-and-nullable, ``const`` as a one-value ``enum``, ``oneOf`` as ``anyOf``,
and every other keyword (``minLength``, ``default``, ``uniqueItems`` ...) moved into that
schema's description text so the model still reads it. What cannot be expressed (an open
object, ``allOf``, ``not``, a schema with no type ...) makes the tool non-strict, and
:func:`to_strict` says why, located.

The engine never validates against the rewritten schema: calls are checked against the
tool's full schema, so a constraint moved into text (or dropped by a looser ``anyOf``) is
still enforced. :func:`absent_if_null` gives the dispatch side what to undo: ``null`` for a
property that was optional and not nullable means "absent", so defaults apply.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SOURCE = "https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas"

# Kept as they are (the documented subset, plus title, which the SDK's own helpers emit).
KEPT = frozenset(
    {
        "type",
        "description",
        "title",
        "enum",
        "pattern",
        "format",
        "multipleOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
    }
)
# Handled structurally by the rewrite.
STRUCTURAL = frozenset(
    {"properties", "required", "additionalProperties", "items", "anyOf", "oneOf", "const", "$defs", "$ref"}
)
# Keywords strict mode refuses whose meaning cannot move into text: the tool stays non-strict.
BLOCKING: dict[str, str] = {
    "allOf": "strict mode does not support allOf",
    "not": "strict mode does not support not",
    "if": "strict mode does not support if/then/else",
    "then": "strict mode does not support if/then/else",
    "else": "strict mode does not support if/then/else",
    "dependentSchemas": "strict mode does not support dependentSchemas",
    "patternProperties": "strict mode does not support patternProperties (keys it would accept cannot be listed)",
    "propertyNames": "strict mode does not support propertyNames (an object with open keys)",
    "unevaluatedProperties": "strict mode does not support unevaluatedProperties",
    "unevaluatedItems": "strict mode does not support unevaluatedItems",
    "prefixItems": "strict mode does not support prefixItems (tuples)",
    "definitions": "strict mode reads $defs, not definitions",
    "$dynamicRef": "strict mode does not support $dynamicRef",
}
# Dropped without a word: annotations for tools, not for the model.
DROPPED = frozenset({"$schema", "$id", "$comment", "$anchor", "$vocabulary"})
FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
MAX_PROPERTIES = 5000
MAX_DEPTH = 10
MAX_ENUM_VALUES = 1000
_TYPED = ("type", "enum", "const", "anyOf", "oneOf", "$ref")


@dataclass(frozen=True, slots=True)
class Why:
    """Why a schema cannot be strict, at ``path`` inside the tool's parameters."""

    path: tuple[str | int, ...]
    message: str


@dataclass(slots=True)
class StrictSchema:
    """The rewritten schema, or None with the reasons it cannot be strict."""

    schema: dict[str, Any] | None
    reasons: list[Why] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Nulls:
    """Where ``null`` means "absent": properties that were optional and not nullable.

    ``names``: such properties of this object; ``nested``: the same for object-valued
    properties; ``items``: for each element of an array-valued property.
    """

    names: frozenset[str] = frozenset()
    nested: Mapping[str, Nulls] = field(default_factory=dict)
    items: Mapping[str, Nulls] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.names or self.nested or self.items)

    def strip(self, value: Any) -> Any:
        """``value`` without the nulls that mean absent (a new dict where anything changed)."""
        if not isinstance(value, dict):
            return value
        out: dict[str, Any] | None = None
        for key, item in value.items():
            new = item
            if item is None and key in self.names:
                out = out if out is not None else dict(value)
                del out[key]
                continue
            sub = self.nested.get(key)
            if sub is not None and isinstance(item, dict):
                new = sub.strip(item)
            elements = self.items.get(key)
            if elements is not None and isinstance(item, list):
                stripped = [elements.strip(e) for e in item]
                if any(a is not b for a, b in zip(stripped, item, strict=True)):
                    new = stripped
            if new is not item:
                out = out if out is not None else dict(value)
                out[key] = new
        return value if out is None else out


def _types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    return []


def nullable(schema: Any) -> bool:
    """Whether ``schema`` itself accepts null."""
    if not isinstance(schema, Mapping):
        return schema is True
    if not any(k in schema for k in _TYPED):
        return True  # no type at all: null is as good as anything
    if "null" in _types(schema):
        return True
    if "enum" in schema and isinstance(schema["enum"], list) and None in schema["enum"]:
        return True
    if "const" in schema and schema["const"] is None:
        return True
    return any(nullable(b) for key in ("anyOf", "oneOf") for b in (schema.get(key) or ()) if isinstance(b, Mapping))


def _is_object(schema: Mapping[str, Any]) -> bool:
    return "object" in _types(schema) or "properties" in schema


def absent_if_null(schema: Any) -> Nulls | None:
    """Where null means "absent" in arguments for ``schema`` (None: nowhere)."""
    if not isinstance(schema, Mapping):
        return None
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return None
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    names = frozenset(n for n, sub in props.items() if n not in required and not nullable(sub))
    nested: dict[str, Nulls] = {}
    items: dict[str, Nulls] = {}
    for name, sub in props.items():
        if not isinstance(sub, Mapping):
            continue
        inner = absent_if_null(sub)
        if inner:
            nested[name] = inner
        element = sub.get("items")
        inner = absent_if_null(element) if isinstance(element, Mapping) else None
        if inner:
            items[name] = inner
    found = Nulls(names, nested, items)
    return found if found else None


class _Rewrite:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.reasons: list[Why] = []
        self.properties = 0
        self.enum_values = 0

    def why(self, path: tuple[str | int, ...], message: str) -> None:
        self.reasons.append(Why(path, message))

    def schema(self, schema: Any, path: tuple[str | int, ...], depth: int, *, no_undo: bool = False) -> Any:
        if not isinstance(schema, Mapping):
            self.why(path, "strict mode needs a schema object here")
            return schema
        if depth > MAX_DEPTH:
            self.why(path, f"strict mode allows at most {MAX_DEPTH} levels of nesting")
            return {}
        for key in schema:
            if key in BLOCKING:
                self.why((*path, key), BLOCKING[key])
        if not any(k in schema for k in _TYPED) and "properties" not in schema:
            self.why(path, "strict mode needs a type here (this schema accepts any value)")
        out: dict[str, Any] = {}
        text: list[str] = []
        for key, value in schema.items():
            if key in BLOCKING or key in DROPPED:
                continue
            if key == "format" and value not in FORMATS:
                text.append(f"format: {_shown(value)}")
            elif key in KEPT:
                out[key] = copy.deepcopy(value)
            elif key == "const":
                out["enum"] = [copy.deepcopy(value)]
            elif key in ("anyOf", "oneOf"):
                if not isinstance(value, list):
                    self.why((*path, key), f"{key} must be a list")
                    continue
                branches = [self.schema(b, (*path, key, i), depth + 1, no_undo=True) for i, b in enumerate(value)]
                out["anyOf"] = [*out.get("anyOf", []), *branches]
            elif key == "items":
                if isinstance(value, Mapping):
                    out["items"] = self.schema(value, (*path, "items"), depth + 1, no_undo=no_undo)
                else:
                    self.why((*path, "items"), "strict mode needs items to be one schema (not a tuple)")
            elif key == "$ref":
                if not isinstance(value, str) or (not value.startswith("#/$defs/") and value != "#"):
                    self.why((*path, "$ref"), "strict mode follows only local references (#/$defs/...)")
                out["$ref"] = value
            elif key == "$defs":
                if isinstance(value, Mapping):
                    out["$defs"] = {
                        n: self.schema(d, (*path, "$defs", n), depth + 1, no_undo=True) for n, d in value.items()
                    }
            elif key in ("properties", "required", "additionalProperties"):
                continue  # below
            else:
                text.append(f"{key}: {_shown(value)}")
        if "enum" in out and isinstance(out["enum"], list):
            self.enum_values += len(out["enum"])
        if _is_object(schema):
            self.object(schema, out, path, depth, no_undo=no_undo)
        if "items" not in out and "array" in _types(schema) and "items" not in schema:
            self.why(path, "strict mode needs items on an array (what may its elements be?)")
        if text:
            described = str(out.get("description") or "").rstrip()
            extra = "; ".join(text)
            out["description"] = f"{described} ({extra})" if described else f"({extra})"
        return out

    def object(
        self, schema: Mapping[str, Any], out: dict[str, Any], path: tuple[str | int, ...], depth: int, *, no_undo: bool
    ) -> None:
        props = schema.get("properties")
        extra = schema.get("additionalProperties", None)
        if extra is not None and extra is not False:
            where = (*path, "additionalProperties")
            self.why(where, "an open object (additionalProperties is not false): strict mode closes every object")
        if props is None:
            props = {}
            if extra is None:
                self.why(path, "an object with no properties listed takes any keys: strict mode closes every object")
        if not isinstance(props, Mapping):
            return
        required = schema.get("required")
        required = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
        self.properties += len(props)
        unknown = [r for r in required if r not in props]
        if unknown:
            self.why(
                (*path, "required"),
                f"required names {', '.join(map(repr, unknown))}, which properties does not list: "
                "strict mode could never send it",
            )
        rewritten: dict[str, Any] = {}
        for name, sub in props.items():
            new = self.schema(sub, (*path, "properties", name), depth + 1, no_undo=no_undo)
            if name not in required and not nullable(sub):
                if no_undo:
                    self.why(
                        (*path, "properties", name),
                        f"optional property {name!r} inside anyOf/$defs: strict mode would need it required "
                        "and nullable, and a null there could not be told from a real one",
                    )
                new = _with_null(new)
            rewritten[name] = new
        if "type" not in out:
            out["type"] = "object"
        out["properties"] = rewritten
        out["required"] = list(rewritten)
        out["additionalProperties"] = False


def _with_null(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts null."""
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    out = dict(schema)
    if "anyOf" in out:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _shown(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def to_strict(parameters: Any) -> StrictSchema:
    """``parameters`` rewritten for OpenAI strict mode, or the reasons it cannot be (located)."""
    rewrite = _Rewrite(parameters if isinstance(parameters, Mapping) else {})
    if not isinstance(parameters, Mapping):
        return StrictSchema(None, [Why((), "strict mode needs the parameters to be an object schema")])
    if "anyOf" in parameters or "oneOf" in parameters:
        key = "anyOf" if "anyOf" in parameters else "oneOf"
        rewrite.why((key,), f"strict mode does not allow {key} at the root")
    if "object" not in _types(parameters) and "properties" not in parameters:
        rewrite.why(("type",) if "type" in parameters else (), "strict mode needs the root to be type: object")
    schema = rewrite.schema(parameters, (), 0)
    if rewrite.properties > MAX_PROPERTIES:
        rewrite.why((), f"strict mode allows at most {MAX_PROPERTIES} properties in all ({rewrite.properties})")
    if rewrite.enum_values > MAX_ENUM_VALUES:
        rewrite.why((), f"strict mode allows at most {MAX_ENUM_VALUES} enum values in all ({rewrite.enum_values})")
    if rewrite.reasons:
        return StrictSchema(None, _unique(rewrite.reasons))
    return StrictSchema(schema)


def _unique(reasons: list[Why]) -> list[Why]:
    seen: set[Why] = set()
    out = []
    for why in reasons:
        if why not in seen:
            seen.add(why)
            out.append(why)
    return out
