"""Each document against its kind's JSON Schema, with located, coded problems."""

from __future__ import annotations

import json
import marshal
import re
from collections.abc import Sequence
from difflib import get_close_matches
from functools import cache
from typing import Any

import jsonschema_rs

from engine.errors import Problem
from engine.schemas import KIND_TO_SCHEMA, load_schema
from engine.source.yamlfile import Document, is_yaml11_bool

_NAME_FIELDS = {"name", "toolset", "tools", "includes", "aliases"}
_DOTTED_FIELDS = {"handler", "check", "judge"}


@cache
def kind_validator(kind: str) -> Any:
    return jsonschema_rs.validator_for(load_schema(KIND_TO_SCHEMA[kind]))


@cache
def _parameters_metaschema() -> Any:
    # Formats on: a `pattern` that is not a valid regex is caught here, located.
    return jsonschema_rs.Draft202012Validator(
        {"$ref": "https://json-schema.org/draft/2020-12/schema"}, validate_formats=True
    )


def document_kind(doc: Document) -> tuple[str | None, Problem | None]:
    """The document's ``kind`` or the problem that prevents knowing it."""
    data = doc.data
    if not isinstance(data, dict):
        what = "empty" if data is None else type(data).__name__
        return None, doc.problem(
            [], "not-a-mapping", f"a manifest must be a mapping with a kind: field (this document is {what})"
        )
    kind = data.get("kind")
    if kind is None:
        return None, doc.problem([], "kind-missing", f"missing kind: (one of {', '.join(KIND_TO_SCHEMA)})")
    if not isinstance(kind, str):
        message = f"kind must be one word (one of {', '.join(KIND_TO_SCHEMA)}), not a {type(kind).__name__}"
        return None, doc.problem(["kind"], "kind-unknown", message)
    if kind not in KIND_TO_SCHEMA:
        close = get_close_matches(str(kind), list(KIND_TO_SCHEMA), n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]}?" if close else f" (expected one of {', '.join(KIND_TO_SCHEMA)})"
        return None, doc.problem(["kind"], "kind-unknown", f"unknown kind {kind!r}{hint}")
    return str(kind), None


def check_structure(doc: Document, kind: str) -> list[Problem]:
    validator = kind_validator(kind)
    if validator.is_valid(doc.data):
        return []
    schema = load_schema(KIND_TO_SCHEMA[kind])
    problems = [_problem(doc, error, schema, kind) for error in validator.iter_errors(doc.data)]
    return _dedupe(problems)


# Compiled call-time validators by their schema's text: tools often share one schema (generated
# catalogs: the same arguments for every resource), and compiling it is most of checking a tool.
# The text is written only for a schema whose outline (its keys, its properties' names) an earlier
# one had: a project of distinct schemas pays for no text.
_COMPILED: dict[bytes, Any] = {}
_OUTLINES: set[tuple[Any, ...]] = set()
_MAX_COMPILED = 4096


def _outline(schema: Any) -> tuple[Any, ...] | None:
    if not isinstance(schema, dict):
        return None
    properties = schema.get("properties")
    return (tuple(schema), tuple(properties) if isinstance(properties, dict) else None)


def _schema_text(schema: Any) -> bytes | None:
    """``schema`` as bytes that only an equal schema has: its ``marshal`` form, which keeps every
    type as it is (``true``, ``1`` and ``1.0`` differ, as they do to a validator; Python's ``==``
    would take them for one) and refuses any other type than JSON's (a plugin's own objects: no
    text, compiled on its own). Keys in another order give other bytes: compiled once more.
    About ten times cheaper than a sorted JSON text, for every tool of a catalog."""
    try:
        return marshal.dumps(schema)
    except (ValueError, TypeError, RecursionError):
        return None


def check_parameters(doc: Document) -> tuple[Any, list[Problem]]:
    """Metaschema-check a Tool's ``parameters`` and compile the call-time validator (once per
    distinct schema: the problems, which name the document, are found for each)."""
    params = doc.data.get("parameters")
    base = ["parameters"]
    meta = _parameters_metaschema()
    problems: list[Problem] = _output_schema_problems(doc, meta)
    outline = _outline(params)
    text = None
    if outline is not None and outline in _OUTLINES:
        text = _schema_text(params)
    elif outline is not None:
        if len(_OUTLINES) >= _MAX_COMPILED:
            _OUTLINES.clear()
        _OUTLINES.add(outline)
    known = _COMPILED.get(text) if text is not None else None
    if known is None and not meta.is_valid(params):
        for error in meta.iter_errors(params):
            path = [*base, *error.instance_path]
            problems.append(
                doc.problem(path, "parameters-invalid", f"not a valid JSON Schema: {_short(error.message)}")
            )
        return None, _dedupe(problems)
    properties = params.get("properties") or {}
    for i, name in enumerate(params.get("required") or []):
        if isinstance(properties, dict) and name not in properties:
            problems.append(
                doc.problem(
                    [*base, "required", i],
                    "parameters-required-unknown",
                    f"required argument {name!r} is not declared in properties",
                )
            )
    if known is not None:
        return known, problems  # a schema that passed the metaschema and compiled before
    try:
        validator = jsonschema_rs.validator_for(params)
    except (jsonschema_rs.ValidationError, ValueError) as exc:
        problems.append(doc.problem(base, "parameters-invalid", f"the schema does not compile: {_short(str(exc))}"))
        return None, problems
    if text is not None:
        if len(_COMPILED) >= _MAX_COMPILED:
            _COMPILED.clear()
            _OUTLINES.clear()
        _COMPILED[text] = validator
    return validator, problems


def _output_schema_problems(doc: Document, meta: Any) -> list[Problem]:
    schema = doc.data.get("output_schema")
    if schema is None or meta.is_valid(schema):
        return []
    return _dedupe(
        [
            doc.problem(
                ["output_schema", *error.instance_path],
                "output-schema-invalid",
                f"not a valid JSON Schema: {_short(error.message)}",
            )
            for error in meta.iter_errors(schema)
        ]
    )


def _short(message: str) -> str:
    return message.split("\n", 1)[0].strip()


def _dedupe(problems: Sequence[Problem]) -> list[Problem]:
    seen: set[tuple[int, int, str, str]] = set()
    out: list[Problem] = []
    for p in problems:
        key = (p.line, p.column, p.code, p.message)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _schema_at(schema: dict[str, Any], path: Sequence[Any]) -> dict[str, Any]:
    """Follow a schema path from an error (resolving local $refs) to the subschema."""
    node: Any = schema
    for segment in path:
        while isinstance(node, dict) and "$ref" in node and segment != "$ref":
            node = _resolve(schema, node["$ref"])
        if isinstance(node, dict):
            node = node.get(segment, {})
        elif isinstance(node, list) and isinstance(segment, int) and segment < len(node):
            node = node[segment]
        else:
            return {}
    while isinstance(node, dict) and "$ref" in node:
        node = _resolve(schema, node["$ref"])
    return node if isinstance(node, dict) else {}


def _resolve(schema: dict[str, Any], ref: str) -> Any:
    node: Any = schema
    for part in ref.lstrip("#/").split("/"):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return node


def _closest_branch(error: Any) -> list[Any] | None:
    """For a failed oneOf/anyOf: the errors of the branch the value was evidently meant for."""
    branches = [list(b) for b in getattr(error.kind, "context", None) or []]
    plausible = [
        b
        for b in branches
        if b and not any(e.kind.name == "type" and list(e.instance_path) == list(error.instance_path) for e in b)
    ]
    if len(plausible) == 1:
        return plausible[0]
    return None


def _problem(doc: Document, error: Any, schema: dict[str, Any], kind: str) -> Problem:
    path = list(error.instance_path)
    keyword = error.kind.name
    if keyword in ("oneOf", "anyOf"):
        branch = _closest_branch(error)
        if branch:
            return _problem(doc, branch[0], schema, kind)
    field = str(path[-1]) if path else ""
    field_of = str(path[-2]) if len(path) >= 2 and isinstance(path[-1], int) else field
    if keyword == "additionalProperties":
        unexpected = list(error.kind.unexpected)
        parent = _schema_at(schema, list(error.schema_path)[:-1])
        known = list((parent.get("properties") or {}).keys())
        name = unexpected[0]
        close = get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else (f" (known: {', '.join(known)})" if known else "")
        where = "/".join(map(str, path)) if path else kind
        return doc.problem([*path, name], "unknown-field", f"unknown field {name!r} in {where}{hint}", key=True)
    if keyword == "propertyNames" and isinstance(error.instance, dict):
        # Located at the name that does not match (`path_classes`, `variable_folders`), not at its mapping.
        names = _schema_at(schema, list(error.schema_path)[:-1])
        pattern = names.get("pattern") if isinstance(names, dict) else None
        bad = [k for k in error.instance if isinstance(k, str) and pattern and not re.search(pattern, k)]
        if bad:
            name = next((k for k in bad if error.message.startswith(json.dumps(k))), bad[0])
            where = "/".join(map(str, path))
            return doc.problem([*path, name], "invalid-name", f"{where}: {name!r} does not match {pattern}", key=True)
    if keyword == "required":
        missing = error.kind.property
        where = f" in {'/'.join(map(str, path))}" if path else ""
        return doc.problem(path, "missing-field", f"missing required field {missing!r}{where}")
    if path[:1] == ["parameters"] and path[1:] == ["type"]:
        return doc.problem(
            path, "parameters-not-object", "parameters must be a JSON Schema with type: object at its root"
        )
    if keyword == "type":
        node = doc.node_at(path)
        expected = " or ".join(error.kind.types)
        # (an item of a list is named with its list's field: `command_readers/2 must be string`, not `2 must be`)
        named = "/".join(map(str, path[-2:])) if field != field_of else field
        message = f"{named or kind} must be {expected}"
        if is_yaml11_bool(node):
            message += f" ({node.value!r} is read as a boolean by YAML 1.1; quote it: '{node.value}')"
        return doc.problem(path, "wrong-type", message)
    if keyword == "pattern" and field_of in _NAME_FIELDS:
        return doc.problem(
            path, "invalid-name", f"{error.instance!r} is not a valid name: use 1-64 characters of A-Z a-z 0-9 _ -"
        )
    if keyword == "pattern" and field_of in _DOTTED_FIELDS:
        return doc.problem(
            path, "invalid-dotted-path", f"{error.instance!r} is not of the form package.module:function"
        )
    if keyword in {"enum", "const"}:
        node = doc.node_at(path)
        message = f"{field or 'value'}: {_short(error.message)}"
        if is_yaml11_bool(node):
            message += f" ({node.value!r} is read as a boolean by YAML 1.1; quote it)"
        return doc.problem(path, "invalid-value", message)
    if keyword == "anyOf" and kind == "DangerPatterns" and not isinstance(error.instance, (str, list)):
        return doc.problem(path, "invalid-value", "a pattern needs match:, regex: or both")
    return doc.problem(path, "invalid-value", f"{'/'.join(map(str, path)) or kind}: {_short(error.message)}")
