"""Runtime manifests at load: each checked and turned into a :class:`RuntimeSpec`, and every
name that points at one (a tool's ``runtime:``, ``terminal.runtime``) checked to exist.

The structure of the builtin types is checked by the published schema (engine/schemas/
runtime.schema.json) like any kind; what a schema cannot say is checked here, located: an
unknown type, a reserved or repeated name, a plugin type's settings against the plugin's
schema, and host paths that must exist (an ssh key, a known_hosts file, bind and mount
sources). A path given as ``${VAR}`` is read when the runtime starts instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from difflib import get_close_matches
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engine.errors import Problem
from engine.registry.specs import Source
from engine.runtime.registry import DEFAULT, LOCAL, LOCAL_SPEC, RESERVED, RuntimeSpec, RuntimeTypes
from engine.source.yamlfile import Document

# Settings that name a file on the host, by type: (field, what it is).
_HOST_FILES = {"ssh": (("key", "private key"), ("known_hosts", "known_hosts file"))}
# Lists of {source: ...} binds, by type.
_HOST_SOURCES = {"sandbox": "binds", "docker": "mounts"}


def check_runtimes(
    docs: Sequence[Document], types: RuntimeTypes, root: Path
) -> tuple[dict[str, RuntimeSpec], list[Problem]]:
    """The declared runtimes by name (``local`` always among them) and the problems found."""
    problems: list[Problem] = []
    specs: dict[str, RuntimeSpec] = {LOCAL: LOCAL_SPEC}
    first: dict[str, Document] = {}
    for doc in docs:
        data = doc.data
        name = str(data["name"])
        if name in RESERVED:
            message = f"runtime name {name!r} is reserved: {LOCAL!r} is the host, {DEFAULT!r} the terminal's runtime"
            problems.append(doc.problem(["name"], "runtime-reserved", message))
            continue
        if name in first:
            other = first[name]
            message = f"runtime {name!r} is already declared at {other.file}:{other.line}"
            problems.append(doc.problem(["name"], "runtime-duplicate", message))
            continue
        first[name] = doc
        kind = types.get(str(data["type"]))
        if kind is None:
            known = types.names()
            close = get_close_matches(str(data["type"]), known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(known)})"
            message = f"unknown runtime type {data['type']!r}{hint}"
            problems.append(doc.problem(["type"], "runtime-type-unknown", message))
            continue
        found = _plugin_settings(doc, kind.schema) if kind.schema is not None else []
        settings, path_problems = _host_paths(doc, root)
        found += path_problems
        problems.extend(found)
        if not found:
            specs[name] = RuntimeSpec(
                name,
                kind.name,
                MappingProxyType(settings),
                Source(doc.file, doc.line, doc.column),
                doc.pack,
                str(data.get("description") or ""),
            )
    return specs, problems


def _plugin_settings(doc: Document, schema: Mapping[str, Any]) -> list[Problem]:
    import jsonschema_rs  # noqa: PLC0415

    settings = {k: v for k, v in doc.data.items() if k not in ("kind", "name", "type", "description")}
    try:
        validator = jsonschema_rs.validator_for(dict(schema))
    except (jsonschema_rs.ValidationError, ValueError) as exc:
        return [doc.problem(["type"], "runtime-type-schema", f"the schema of runtime type {doc.data['type']!r}: {exc}")]
    return [
        doc.problem(list(error.instance_path), "invalid-value", str(error.message).split("\n", 1)[0])
        for error in validator.iter_errors(settings)
    ]


def _host_paths(doc: Document, root: Path) -> tuple[dict[str, Any], list[Problem]]:
    """The settings with host paths made absolute, and the paths that do not exist."""
    data = doc.data
    settings = {k: v for k, v in data.items() if k not in ("kind", "name", "type")}
    problems: list[Problem] = []
    kind = str(data["type"])
    for field, what in _HOST_FILES.get(kind, ()):
        value = data.get(field)
        if not isinstance(value, str) or "${" in value:
            continue
        path = _absolute(value, root)
        settings[field] = str(path)
        if not path.is_file():
            problems.append(doc.problem([field], "runtime-path-missing", f"{what} {value!r} does not exist ({path})"))
        elif not os.access(path, os.R_OK):
            problems.append(doc.problem([field], "runtime-path-missing", f"{what} {value!r} is not readable ({path})"))
    list_field = _HOST_SOURCES.get(kind)
    if list_field and isinstance(data.get(list_field), list):
        entries = []
        for i, entry in enumerate(data[list_field]):
            path = _absolute(str(entry["source"]), root)
            entries.append(MappingProxyType({**entry, "source": str(path)}))
            if not path.exists():
                message = f"{list_field} source {entry['source']!r} does not exist ({path})"
                problems.append(doc.problem([list_field, i, "source"], "runtime-path-missing", message))
        settings[list_field] = tuple(entries)
    return settings, problems


def _absolute(value: str, root: Path) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else (root / path).resolve()


def check_references(
    tool_docs: Sequence[Document],
    runtimes: Mapping[str, RuntimeSpec],
    terminal_runtime: str,
    config_doc: Document | None,
    broken: set[str],
) -> list[Problem]:
    """Every ``runtime:`` of a tool and ``terminal.runtime`` must name a declared runtime.

    ``broken``: runtimes declared with errors (already reported; no second error for their users).
    """
    problems: list[Problem] = []
    known = [*runtimes, DEFAULT]
    for doc in tool_docs:
        name = doc.data.get("runtime")
        if isinstance(name, str) and name not in runtimes and name != DEFAULT and name not in broken:
            problems.append(doc.problem(["runtime"], "runtime-unknown", _unknown(name, known)))
    if terminal_runtime not in runtimes and terminal_runtime not in broken:
        message = "terminal.runtime: " + _unknown(terminal_runtime, list(runtimes))
        if config_doc is None:
            problems.append(Problem("<config>", 1, 1, "runtime-unknown", message))
        else:
            problems.append(config_doc.problem(["terminal", "runtime"], "runtime-unknown", message))
    return problems


def _unknown(name: str, known: list[str]) -> str:
    close = get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f" (declared: {', '.join(sorted(known))})"
    return f"no runtime named {name!r}{hint}; declare it with a kind: Runtime manifest"
