"""Repairing what models send: "5" for 5, "true" for true, '["a"]' for ["a"].

Coercion is schema-guided and conservative: a value that already matches one
member of a union type is left alone ("00123" for ["string", "integer"] stays a
string), integers never come from fractions, inf or nan, and only "true" and
"false" become booleans. The text "null" becomes null for a nullable property
whose other types cannot hold it (a nullable string keeps the text: it matches).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

_INT_TEXT = re.compile(r"^[+-]?\d+$")
_MISSING = object()


def _types(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        out = [declared]
    elif isinstance(declared, list):
        out = [t for t in declared if isinstance(t, str)]
    else:
        out = []
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key) or ():
            if isinstance(branch, Mapping):
                out.extend(t for t in _types(branch) if t not in out)
    if schema.get("nullable") is True and "null" not in out:
        out.append("null")
    return out


def _matches(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return False


def _to_number(text: str, *, integer: bool) -> Any:
    stripped = text.strip()
    try:
        if _INT_TEXT.match(stripped):
            return int(stripped)  # past Python's digit limit this raises ValueError too
        number = float(stripped)
    except ValueError:
        return _MISSING
    if not math.isfinite(number):
        return _MISSING
    if integer:
        return int(number) if number.is_integer() else _MISSING
    return number


def _from_text(text: str, kind: str) -> Any:
    stripped = text.strip()
    if kind == "null":
        return None if stripped.lower() == "null" else _MISSING
    if kind == "boolean":
        lowered = stripped.lower()
        return True if lowered == "true" else False if lowered == "false" else _MISSING
    if kind in ("integer", "number"):
        return _to_number(stripped, integer=kind == "integer")
    if kind in ("array", "object"):
        opener = "[" if kind == "array" else "{"
        if not stripped.startswith(opener):
            return _MISSING
        try:
            parsed = json.loads(stripped)
        except (ValueError, RecursionError):
            return _MISSING
        return parsed if _matches(parsed, kind) else _MISSING
    return _MISSING


_ORDER = ("null", "boolean", "integer", "number", "array", "object")


def coerce_value(value: Any, schema: Any) -> Any:
    """``value`` repaired toward ``schema``; the same object when nothing applies."""
    if not isinstance(schema, Mapping):
        return value
    kinds = _types(schema)
    if kinds and not any(_matches(value, k) for k in kinds):
        repaired = _MISSING
        if isinstance(value, str):
            for kind in _ORDER:
                if kind in kinds:
                    repaired = _from_text(value, kind)
                    if repaired is not _MISSING:
                        break
        if repaired is _MISSING and "array" in kinds and value is not None:
            repaired = [value]  # a single value where a list is expected
        if repaired is not _MISSING:
            value = repaired
    return _descend(value, schema)


def _descend(value: Any, schema: Mapping[str, Any]) -> Any:
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            repaired = [coerce_value(item, items) for item in value]
            if any(a is not b for a, b in zip(repaired, value, strict=True)):
                return repaired
        return value
    if isinstance(value, dict):
        props = schema.get("properties")
        if isinstance(props, Mapping):
            return coerce_arguments(value, props)
    return value


def coerce_arguments(args: dict[str, Any], properties: Mapping[str, Any]) -> dict[str, Any]:
    """Coerce each argument against its property schema; a new dict only when something changed."""
    out: dict[str, Any] | None = None
    for key, value in args.items():
        schema = properties.get(key)
        if schema is None:
            continue
        repaired = coerce_value(value, schema)
        if repaired is not value:
            if out is None:
                out = dict(args)
            out[key] = repaired
    return args if out is None else out
