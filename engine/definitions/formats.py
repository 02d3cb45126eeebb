"""Tool definitions in each provider's wire format, looked up by name."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from engine.registry.specs import ToolSpec

Formatter = Callable[[ToolSpec, str, Mapping[str, Any]], dict[str, Any]]

# JSON Schema keywords Gemini's function-declaration schema (an OpenAPI 3.0 subset) rejects.
GEMINI_REJECTED = frozenset(
    {
        "additionalProperties",
        "$ref",
        "$defs",
        "definitions",
        "const",
        "oneOf",
        "allOf",
        "not",
        "$schema",
        "$id",
        "$comment",
        "patternProperties",
        "dependentRequired",
        "dependentSchemas",
        "if",
        "then",
        "else",
        "unevaluatedProperties",
        "unevaluatedItems",
        "prefixItems",
        "contains",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "uniqueItems",
        "propertyNames",
        "examples",
    }
)


def _openai(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": spec.name, "description": description, "parameters": parameters},
    }


def _openai_responses(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "function", "name": spec.name, "description": description, "parameters": parameters}


def _anthropic(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": spec.name, "description": description, "input_schema": parameters}


def _mcp(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": spec.name, "description": description, "inputSchema": parameters}
    annotations = spec.annotations.as_mcp()
    if annotations:
        out["annotations"] = annotations
    return out


def gemini_schema(schema: Any) -> Any:
    """Rewrite a JSON Schema into Gemini's subset: drop what it rejects, fold nullable types."""
    if isinstance(schema, list):
        return [gemini_schema(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in GEMINI_REJECTED and key != "const":
            continue
        if key == "const":
            out["enum"] = [value]
        elif key == "type" and isinstance(value, list):
            kinds = [t for t in value if t != "null"]
            out["type"] = kinds[0] if len(kinds) == 1 else kinds
            if "null" in value:
                out["nullable"] = True
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: gemini_schema(sub) for name, sub in value.items()}
        elif key in {"items", "anyOf"}:
            out[key] = gemini_schema(value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _gemini(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": spec.name, "description": description, "parameters": gemini_schema(parameters)}


FORMATS: dict[str, Formatter] = {
    "openai": _openai,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "mcp": _mcp,
}
