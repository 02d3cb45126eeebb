"""A generated catalog of 1,000 tools in 40 toolsets, for the tool search tests and benchmark.

The catalog is data (tests/data/toolsearch/catalog.yaml): per toolset, five resources
with five actions each. ``write_catalog(root)`` expands it into a project whose
manifests load like any other (one file per toolset), bound to one echo handler.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
CATALOG = REPO / "tests" / "data" / "toolsearch" / "catalog.yaml"
QUERIES = REPO / "tests" / "data" / "toolsearch" / "queries.yaml"

# Verbs acting on many items name the tool with the plural.
_PLURAL_VERBS = frozenset({"list", "search", "export", "import", "history", "compare"})

HANDLERS = """
import json


def run(**arguments) -> str:
    return json.dumps(arguments, sort_keys=True)
"""


@cache
def load_catalog() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(CATALOG.read_text(encoding="utf-8"))
    return data


def load_queries() -> list[dict[str, str]]:
    queries: list[dict[str, str]] = yaml.safe_load(QUERIES.read_text(encoding="utf-8"))["queries"]
    return queries


def tool_name(toolset: str, verb: str, resource: str, many: str) -> str:
    return f"{toolset}_{verb}_{many if verb in _PLURAL_VERBS else resource}"


def _words(identifier: str) -> str:
    return identifier.replace("_", " ")


def _parameters(verb: dict[str, Any], resource: dict[str, Any], one: str, params: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, str] = resource["fields"]
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in verb["params"]:
        if param in ("fields", "optional_fields"):
            for i, (field, text) in enumerate(fields.items()):
                properties.setdefault(field, {"type": "string", "description": text})
                if param == "fields" and i == 0 and field not in required:
                    required.append(field)
            continue
        schema = dict(params[param])
        first = _words(next(iter(fields)))
        schema["description"] = schema["description"].format(one=one, first_field=first)
        properties[param] = schema
        if param in ("id", "query", "path", "text", "location", "target", "sql", "body") and param not in required:
            required.append(param)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def tools() -> list[dict[str, Any]]:
    """Every tool of the catalog as a Tool manifest (a dict)."""
    data = load_catalog()
    out = []
    for toolset, spec in data["toolsets"].items():
        for resource, res in spec["resources"].items():
            one, many = _words(resource), _words(res["many"])
            for verb in res["verbs"]:
                template = data["verbs"][verb]
                text = template["text"].format(one=one, many=many, where=spec["where"])
                fields = "; ".join(f"{_words(f)} ({d})" for f, d in res["fields"].items())
                text += f" A {one} has: {fields}."
                out.append(
                    {
                        "kind": "Tool",
                        "name": tool_name(toolset, verb, resource, res["many"]),
                        "toolset": toolset,
                        "description": text,
                        "handler": "catalog_handlers:run",
                        "parameters": _parameters(template, res, one, data["params"]),
                    }
                )
    return out


def write_catalog(root: Path, *, include_builtin: bool = True, config: str = "") -> Path:
    """Write the catalog as a project under ``root``; returns ``root``."""
    data = load_catalog()
    (root / "manifests").mkdir(parents=True, exist_ok=True)
    (root / "toolsets").mkdir(exist_ok=True)
    (root / "catalog_handlers").mkdir(exist_ok=True)
    (root / "catalog_handlers" / "__init__.py").write_text(HANDLERS, encoding="utf-8")
    (root / "hermes-engine.yaml").write_text(
        f"include_builtin: {str(include_builtin).lower()}\nhandler_roots: [catalog_handlers]\n{config}",
        encoding="utf-8",
    )
    toolsets = [
        {"kind": "Toolset", "name": name, "description": spec["about"]} for name, spec in data["toolsets"].items()
    ]
    (root / "toolsets" / "catalog.yaml").write_text(yaml.safe_dump_all(toolsets, sort_keys=False), encoding="utf-8")
    by_toolset: dict[str, list[dict[str, Any]]] = {}
    for tool in tools():
        by_toolset.setdefault(tool["toolset"], []).append(tool)
    for name, docs in by_toolset.items():
        text = yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True)
        (root / "manifests" / f"{name}.yaml").write_text(text, encoding="utf-8")
    return root
