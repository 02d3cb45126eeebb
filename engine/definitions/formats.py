"""Tool definitions in each provider's wire format, looked up by name."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

from engine.registry.specs import ToolSpec

Formatter = Callable[[ToolSpec, str, Mapping[str, Any]], dict[str, Any]]

# The keywords of Gemini's function-declaration schema (an OpenAPI 3.0 subset), as
# google-genai's Schema model names them; it refuses any other key. The gemini format
# keeps these, rewrites a few others to their nearest equivalent and drops the rest.
GEMINI_KEEP = frozenset(
    {
        "type",
        "properties",
        "required",
        "description",
        "enum",
        "items",
        "anyOf",
        "default",
        "example",
        "format",
        "maxItems",
        "minItems",
        "maxLength",
        "minLength",
        "maxProperties",
        "minProperties",
        "maximum",
        "minimum",
        "nullable",
        "pattern",
        "title",
        "propertyOrdering",
    }
)
# Rewritten: oneOf -> anyOf, const -> enum or type, exclusive bounds -> inclusive ones.
GEMINI_REWRITTEN = frozenset({"oneOf", "const", "exclusiveMinimum", "exclusiveMaximum"})
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"))


def _json_type(value: Any) -> str | None:
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), None)


def _openai(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": spec.name, "description": description, "parameters": parameters},
    }


def _openai_responses(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    # `strict` is a required key of the SDK's FunctionToolParam; build_definitions sets it
    # to true for the tools strict mode can take.
    return {
        "type": "function",
        "name": spec.name,
        "description": description,
        "parameters": parameters,
        "strict": False,
    }


def _anthropic(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": spec.name, "description": description, "input_schema": parameters}


def _mcp(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": spec.name, "description": description, "inputSchema": parameters}
    if spec.title:
        out["title"] = spec.title
    if spec.output_schema is not None:
        out["outputSchema"] = spec.output_schema
    annotations = spec.annotations.as_mcp()
    if annotations:
        out["annotations"] = annotations
    return out


def gemini_schema(schema: Any) -> Any:
    """Rewrite a JSON Schema into Gemini's subset (see GEMINI_KEEP).

    Nullable unions fold into ``nullable``; other type unions become ``anyOf``; ``oneOf``
    becomes ``anyOf``; a string ``const`` becomes a one-value ``enum``; enums of other
    types keep their type and list their values in the description; exclusive bounds
    become inclusive ones (exact for integers). The engine still validates every call
    against the original schema.
    """
    if isinstance(schema, list):
        return [gemini_schema(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    kinds = schema.get("type")
    integer = kinds == "integer" or (isinstance(kinds, list) and "integer" in kinds and "number" not in kinds)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            listed = value if isinstance(value, list) else [value]
            real = [k for k in listed if k != "null"]
            if len(real) != len(listed):
                out["nullable"] = True
            if len(real) == 1:
                out["type"] = real[0]
            elif real:
                out["anyOf"] = [*out.get("anyOf", []), *({"type": k} for k in real)]
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: gemini_schema(sub) for name, sub in value.items()}
        elif key == "items" and isinstance(value, Mapping):
            out[key] = gemini_schema(value)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            out["anyOf"] = [*out.get("anyOf", []), *(gemini_schema(sub) for sub in value)]
        elif key in ("const", "enum"):
            values = [value] if key == "const" else list(value) if isinstance(value, list) else []
            if values and all(isinstance(v, str) for v in values):
                out["enum"] = values
                out.setdefault("type", "string")
            elif values:
                found = {_json_type(v) for v in values}
                if len(found) == 1 and None not in found and "type" not in schema:
                    out["type"] = found.pop()
                allowed = ", ".join(json.dumps(v) for v in values)
                text = str(schema.get("description") or out.get("description") or "")
                out["description"] = f"{text} Allowed values: {allowed}.".strip()
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and _json_type(value) in ("integer", "number"):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            step = (1 if key == "exclusiveMinimum" else -1) if integer and isinstance(value, int) else 0
            out.setdefault(bound, value + step)
        elif key == "description" and "description" in out:
            continue  # already carries the allowed values of a non-string enum
        elif key in GEMINI_KEEP:
            out[key] = copy.deepcopy(value)
    return out


def _gemini(spec: ToolSpec, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": spec.name, "description": description, "parameters": gemini_schema(parameters)}


# The formats whose definitions can carry OpenAI's `strict: true` (engine.definitions.strict).
STRICT_FORMATS = frozenset({"openai", "openai-responses"})

FORMATS: dict[str, Formatter] = {
    "openai": _openai,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "mcp": _mcp,
}
