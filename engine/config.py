"""The project config, ``hermes-engine.yaml``: normalised with cerberus.

Cerberus fills defaults and coerces the YAML 1.1 surprises (``mode: off`` is read
by YAML as ``False``); its error tree is mapped back to file positions. The
JSON Schema published for editors is derived from the same cerberus schema, so
the two can never drift apart.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from engine import state_files
from engine.digests import sha256
from engine.errors import Problem
from engine.records import Record

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

    from engine.source.yamlfile import Document

_MODULE = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
_DOTTED = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$"
_TOOLSET = r"^([A-Za-z0-9_-]{1,64}|\*)$"
PLUGIN_NAME = r"^[a-z0-9][a-z0-9_-]{0,63}$"
PLUGIN_CAPABILITIES = ("override",)

# Upper bounds: every number is one the engine can hold (a float, a thread wait, a slice).
_HOUR = 3600
_DAY = 86_400
_WEEK = 7 * _DAY
_YEAR = 365 * _DAY
_MAX_CHARS = 100_000_000


def _off_word(value: Any) -> Any:
    """YAML 1.1 reads a bare ``off`` as ``False``; the approval mode means the word."""
    return "off" if value is False else value


def _strings(regex: str | None = None, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "string", "empty": False}
    if regex:
        item["regex"] = regex
    return {"type": "list", "schema": item, **extra}


def _hook_list(doc: str) -> dict[str, Any]:
    return _strings(_DOTTED, default=[], meta={"description": doc})


# Providers a project may target (config `targets`, `validate --target`).
TARGETS = ("openai", "anthropic", "gemini", "mcp")

CONFIG_SCHEMA: dict[str, Any] = {
    "handler_roots": _strings(
        _MODULE,
        default=["handlers"],
        meta={
            "description": "Module prefixes manifests in this project may bind handlers and checks under. "
            "The project root is importable for them.",
        },
    ),
    "include_builtin": {
        "type": "boolean",
        "default": True,
        "meta": {
            "description": "Whether the builtin pack's tools, toolsets and policies are part of this project.",
        },
    },
    "toolsets": {
        "type": "dict",
        "default": {},
        "schema": {
            "enabled": {
                **_strings(_TOOLSET),
                "nullable": True,
                "default": None,
                "meta": {
                    "description": "Toolsets offered to the model; null means all.",
                },
            },
            "disabled": {
                **_strings(_TOOLSET),
                "default": [],
                "meta": {
                    "description": "Toolsets removed last, after enabled is resolved.",
                },
            },
        },
    },
    "workdir": {
        "type": "string",
        "empty": False,
        "nullable": True,
        "default": None,
        "meta": {
            "description": "The working directory of file tools and the terminal (relative to the project root); "
            "null means the directory the engine was started in.",
        },
    },
    "state_dir": {
        "type": "string",
        "empty": False,
        "nullable": True,
        "default": None,
        "meta": {
            "description": "Where spilled results, todo/memory state, background process logs and the audit log live "
            "(relative to the project root; ~ is the home directory). null: a directory per user and project "
            "outside the project, under $XDG_STATE_HOME/hermes-engine (default ~/.local/state/hermes-engine).",
        },
    },
    "integrity": {
        "type": "string",
        "allowed": ["pinned", "off"],
        "default": "pinned",
        "meta": {
            "description": "pinned: a load refuses engine files (this config, manifests, handler sources, plugin "
            "folders) whose content changed since they were last approved (hermes-engine trust, the dev loop, or "
            "the first load), so a tool call that writes one cannot change what the engine loads. off: no check "
            "(honoured only when this config is itself the approved one).",
        },
    },
    "check_ttl": {
        "type": "number",
        "min": 0,
        "max": _YEAR,
        "default": 30,
        "meta": {
            "description": "Seconds an availability check result is reused.",
        },
    },
    "max_result_size_chars": {
        "type": "integer",
        "min": 1,
        "max": _MAX_CHARS,
        "default": 100_000,
        "meta": {
            "description": "Project default cap on a result's length; longer results are spilled to a file.",
        },
    },
    "targets": {
        **_strings(default=["openai", "anthropic", "mcp"]),
        "schema": {"type": "string", "allowed": list(TARGETS)},
        "meta": {
            "description": "The providers whose definitions this project uses (openai, anthropic, gemini, mcp): "
            "validate warns only about what those would refuse. Default: all but gemini.",
        },
    },
    "openai": {
        "type": "dict",
        "default": {},
        "schema": {
            "strict": {
                "type": ["string", "boolean"],
                "allowed": ["auto", True, False],
                "default": "auto",
                "meta": {
                    "description": "OpenAI strict mode in the openai and openai-responses formats: auto (strict: true "
                    "for every tool whose schema strict mode can take, rewritten for it), true (every tool must be: "
                    "one that cannot is a load error), false (never).",
                },
            },
        },
    },
    "max_manifest_bytes": {"type": "integer", "min": 1, "max": 64 * 1024 * 1024, "default": 1024 * 1024},
    "hook_timeout": {"type": "number", "min": 0, "max": _HOUR, "default": 5},
    "max_handler_threads": {
        "type": "integer",
        "min": 1,
        "max": 4096,
        "default": 256,
        "meta": {
            "description": "Worker threads for handlers with a timeout (and for sync handlers called with acall). "
            "A handler past its timeout keeps its thread until it returns; when every thread is taken, "
            "calls fail with an overloaded error instead of waiting.",
        },
    },
    "hooks": {
        "type": "dict",
        "default": {},
        "schema": {
            "pre_tool_call": _hook_list("Called before a tool runs; may block, rewrite arguments or ask."),
            "post_tool_call": _hook_list("Called after a tool ran, with its result."),
            "transform_tool_result": _hook_list("May replace the text of a result."),
        },
    },
    "approvals": {
        "type": "dict",
        "default": {},
        "schema": {
            "mode": {
                "type": "string",
                "allowed": ["manual", "smart", "off"],
                "coerce": _off_word,
                "nullable": True,
                "default": None,
            },
            "timeout": {"type": "number", "min": 0, "max": _DAY, "nullable": True, "default": None},
            "yolo": {"type": "boolean", "nullable": True, "default": None},
            "judge": {"type": "string", "regex": _DOTTED, "nullable": True, "default": None},
            "command_allowlist": _strings(default=[]),
            "audit_log": {"type": "string", "empty": False, "nullable": True, "default": None},
        },
    },
    "terminal": {
        "type": "dict",
        "default": {},
        "schema": {
            "timeout": {"type": "number", "min": 0, "max": _WEEK, "default": 180},
            "max_timeout": {"type": "number", "min": 0, "max": _WEEK, "default": 3600},
            "cwd": {"type": "string", "empty": False, "nullable": True, "default": None},
            "env_allowlist": _strings(r"^[A-Za-z_][A-Za-z0-9_]*$", default=[]),
            "shell": {"type": "string", "empty": False, "default": "/bin/sh"},
            "runtime": {
                "type": "string",
                "regex": r"^[A-Za-z0-9_-]{1,64}$",
                "default": "local",
                "meta": {
                    "description": "Where the terminal, process, file and code tools run: local (the host) "
                    "or the name of a Runtime manifest.",
                },
            },
        },
    },
    "files": {
        "type": "dict",
        "default": {},
        "schema": {
            "roots": _strings(
                default=[],
                meta={
                    "description": "Directories file tools may read and write besides the working directory.",
                },
            ),
            "safe_root": {
                "type": "string",
                "empty": False,
                "nullable": True,
                "default": None,
                "meta": {
                    "description": "When set, every write must land under this directory.",
                },
            },
            "max_read_chars": {"type": "integer", "min": 1, "max": _MAX_CHARS, "default": 200_000},
        },
    },
    "tool_search": {
        "type": "dict",
        "default": {},
        "schema": {
            "budget_tokens": {
                "type": "integer",
                "min": 1,
                "nullable": True,
                "default": None,
                "meta": {
                    "description": "Tokens the tool definitions may take; the tools that do not fit are deferred "
                    "behind tool_search, tool_describe and tool_call. null: every tool is listed.",
                },
            },
            "always": _strings(
                default=[],
                meta={
                    "description": "Tools listed first (tool names, toolset names or globs of either); "
                    "overrides defer.",
                },
            ),
            "defer": _strings(
                default=[],
                meta={
                    "description": "Tools never listed, only found through tool_search "
                    "(tool names, toolset names or globs of either).",
                },
            ),
            "max_catalog": {
                "type": "integer",
                "min": 1,
                "max": 10_000,
                "default": 200,
                "meta": {
                    "description": "Tools a session keeps found at once; the oldest are forgotten first.",
                },
            },
        },
    },
    "plugins": {
        "type": "dict",
        "default": {},
        "schema": {
            "enabled": _strings(
                PLUGIN_NAME,
                default=[],
                meta={
                    "description": "Installed plugins (entry point group hermes_engine.plugins) to load, by name. "
                    "An installed plugin that is not listed is never imported.",
                },
            ),
            "folders": _strings(
                default=[],
                meta={
                    "description": "Plugin folders (a plugin.yaml and its package) inside the project, "
                    "relative to the project root.",
                },
            ),
            "disabled": _strings(
                PLUGIN_NAME,
                default=[],
                meta={
                    "description": "Plugins never loaded (their code is not imported), "
                    "whatever enabled and folders say.",
                },
            ),
            "grants": {
                "type": "dict",
                "default": {},
                "keysrules": {"type": "string", "regex": PLUGIN_NAME},
                "valuesrules": {
                    "type": "list",
                    "schema": {"type": "string", "allowed": list(PLUGIN_CAPABILITIES)},
                },
                "meta": {
                    "description": "Capabilities granted to plugins by name: override lets a plugin replace "
                    "a builtin or project tool.",
                },
            },
            "timeout": {
                "type": "number",
                "min": 0.01,
                "max": _HOUR,
                "default": 10,
                "meta": {
                    "description": "Seconds a plugin's import and register(ctx) may take; past it the plugin "
                    "fails to load.",
                },
            },
        },
    },
    "web": {
        "type": "dict",
        "default": {},
        "schema": {
            "timeout": {"type": "number", "min": 0, "max": _HOUR, "default": 20},
            "max_bytes": {"type": "integer", "min": 1, "max": 1024**3, "default": 2_000_000},
            "allow_private_networks": {"type": "boolean", "default": False},
        },
    },
}


class Config(Record, frozen=True):
    """The normalised project config. ``data`` holds every key with its default filled."""

    __slots__ = ("data", "root", "file", "fingerprint")  # noqa: RUF023  (the fields' order)

    data: Mapping[str, Any]
    root: Path
    file: str | None  # display path of the config file, when there is one
    fingerprint: str

    def __init__(self, data: Mapping[str, Any], root: Path, file: str | None = None, fingerprint: str = "") -> None:
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "fingerprint", fingerprint)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, *path: str) -> Any:
        value: Any = self.data
        for key in path:
            value = value[key]
        return value

    @property
    def state_dir(self) -> Path:
        configured = self.data.get("state_dir")
        if not configured:
            return default_state_dir(self.root)
        return (self.root / Path(str(configured)).expanduser()).resolve()

    def workdir(self, started_in: Path) -> Path:
        configured = self.data.get("workdir")
        return (self.root / configured).resolve() if configured else started_in


def state_root() -> Path:
    """Where every project's default state dir lives: per user, outside any project."""
    return state_files.state_root()


def default_state_dir(root: Path) -> Path:
    """The state dir of the project at ``root`` when the config names none: keyed by its real path,
    so two projects (or two checkouts with one name) never share one, and no tool working in the
    project reaches it by a relative path."""
    real = root.resolve()
    digest = sha256(str(real).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", real.name)[:40] or "root"
    return state_root() / f"{name}-{digest}"


def _state_dir_problem(value: Any, root: Path) -> str | None:
    """Why ``value`` cannot be the state dir: it must be (or become) a directory the engine can write in."""
    if not isinstance(value, str) or not value:
        return None  # the schema reports it
    path = root / Path(value).expanduser()
    probe = path
    while not os.path.lexists(probe):
        if probe.parent == probe:
            return f"{value!r} cannot be created (no existing parent)"
        probe = probe.parent
    if not probe.is_dir():
        what = "is not a directory" if probe == path else f"cannot be created: {probe} is not a directory"
        return f"{value!r} {what}"
    if not os.access(probe, os.W_OK | os.X_OK):
        where = "" if probe == path else f" (its parent {probe})"
        return f"{value!r}{where} is not writable by this user"
    return None


@functools.cache
def _validator_class() -> tuple[Any, Any]:
    """(the validator class, the class of the engine's own schemas in it)."""
    # Imported when a config is first read, not with the package; from its submodules, which a
    # one-shot process imports without running cerberus' own __init__ (engine.guard.deferred).
    from engine.guard.deferred import defer_init  # noqa: PLC0415

    defer_init("cerberus")
    from cerberus.schema import DefinitionSchema  # noqa: PLC0415
    from cerberus.validator import Validator  # noqa: PLC0415

    class _Validator(Validator):  # type: ignore[misc]
        # The meta rule only carries editor documentation.
        def _validate_meta(self, constraint: Any, field: Any, value: Any) -> None:
            """{'type': 'dict'}"""

    class _OwnSchema(DefinitionSchema):  # type: ignore[misc]
        """A schema of the engine's own (CONFIG_SCHEMA, PLUGIN_SCHEMA: constants). cerberus checks a
        schema against its rules whenever a validator is made with it: most of the cost of reading a
        config (~60 ms of a cold ``validate``). These are checked once, by the tests
        (tests/test_config_schema.py), not by every load; a schema given otherwise is checked as ever."""

        def validate(self, schema: Any = None) -> None:
            return None

    return _Validator, _OwnSchema


def _Validator(schema: dict[str, Any]) -> Any:
    """A validator of the engine's own ``schema`` (see ``_OwnSchema``)."""
    validator_class, own_schema = _validator_class()
    validator = validator_class()
    validator.schema = own_schema(validator, schema)
    return validator


def _flatten(errors: Mapping[Any, Any], path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    for key, items in errors.items():
        for item in items:
            if isinstance(item, Mapping):
                yield from _flatten(item, (*path, key))
            else:
                yield (*path, key), str(item)


def normalise(
    document: Document | None, root: Path, overrides: Mapping[str, Any] | None = None
) -> tuple[Config, list[Problem]]:
    """Validate and normalise the config document (``None``: no config file)."""
    raw: Any = document.data if document is not None else {}
    problems: list[Problem] = []
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        assert document is not None
        problems.append(document.problem([], "config-invalid", "hermes-engine.yaml must be a mapping"))
        raw = {}
    if overrides:
        raw = _deep_merge(raw, overrides)
    # Containers of the wrong kind are refused before cerberus sees them: it crashes on some
    # (a mapping where a list of strings belongs), and a removed key takes its default.
    found = _wrong_containers(CONFIG_SCHEMA, raw)
    raw = _without(raw, [path for path, _ in found])
    validator = _Validator(CONFIG_SCHEMA)
    try:
        if not validator.validate(raw):
            found.extend(_flatten(validator.errors))
        document_data = validator.document
    except Exception as exc:  # cerberus failing on a shape it did not expect: still an input problem
        found.append(((), f"cannot be checked ({type(exc).__name__}: {exc})"))
        document_data = None
    if found:
        for path, message in found:
            problems.append(_config_problem(document, path, message))
        defaults = _Validator(CONFIG_SCHEMA).normalized({}) or {}
        failed = {tuple(path) for path, _ in found}
        data = _salvage(CONFIG_SCHEMA, defaults, document_data or raw, failed)
    else:
        data = document_data
    state_problem = _state_dir_problem(data.get("state_dir"), root)
    if state_problem is not None:
        problems.append(_config_problem(document, ("state_dir",), state_problem))
    import hashlib  # noqa: PLC0415  (a load from source only)

    fingerprint = hashlib.sha1(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return Config(data, root, document.file if document else None, fingerprint), problems


def _config_problem(document: Document | None, path: tuple[Any, ...], message: str) -> Problem:
    from engine.source.yamlfile import is_yaml11_bool, to_pointer  # noqa: PLC0415

    dotted = ".".join(map(str, path))
    if document is None:
        return Problem("<overrides>", 1, 1, "config-invalid", f"{dotted}: {message}")
    text = message
    node = document.node_at(list(path))
    if message == "unknown field":
        node = document.node_at(list(path), key=True)
        text = f"unknown field {path[-1]!r}"
    elif is_yaml11_bool(node):
        text = f"{message} ({node.value!r} is read as a boolean by YAML 1.1; quote it)"
    line, column = node.start_mark.line + 1, node.start_mark.column + 1
    message = f"{dotted or 'the config'}: {text}"
    return Problem(document.file, line, column, "config-invalid", message, to_pointer(list(path)))


def _wrong_containers(
    schema: Mapping[str, Any], values: Mapping[str, Any], prefix: tuple[Any, ...] = ()
) -> list[tuple[tuple[Any, ...], str]]:
    """(path, message) for every value that should be a mapping or a list and is not."""
    out: list[tuple[tuple[Any, ...], str]] = []
    for key, rule in schema.items():
        value = values.get(key)
        if value is None:
            continue
        kind = rule.get("type")
        if kind == "dict":
            if not isinstance(value, dict):
                out.append(((*prefix, key), "must be of dict type"))
            elif "schema" in rule:
                out.extend(_wrong_containers(rule["schema"], value, (*prefix, key)))
        elif kind == "list" and not isinstance(value, list):
            out.append(((*prefix, key), "must be of list type"))
    return out


def _without(values: dict[str, Any], paths: list[tuple[Any, ...]]) -> dict[str, Any]:
    """A copy of ``values`` without the keys at ``paths`` (copied only along them)."""
    if not paths:
        return values
    out = dict(values)
    for path in paths:
        parent = out
        for key in path[:-1]:
            parent[key] = dict(parent[key])
            parent = parent[key]
        parent.pop(path[-1], None)
    return out


def _salvage(
    schema: Mapping[str, Any], defaults: Mapping[str, Any], values: Any, failed: set[tuple[Any, ...]]
) -> dict[str, Any]:
    """An invalid config's values where they are valid, defaults everywhere else.

    Later checks (toolset names, hooks, the policy) still run on an invalid config to
    report what else is wrong, so every value they read must have its declared type.
    """
    out = dict(defaults)
    if not isinstance(values, Mapping):
        return out
    for key, rule in schema.items():
        if key not in values:
            continue
        inside = {path[1:] for path in failed if path[:1] == (key,)}
        if not inside:
            out[key] = values[key]
        elif rule.get("type") == "dict" and "schema" in rule and () not in inside:
            out[key] = _salvage(rule["schema"], defaults.get(key) or {}, values[key], inside)
    return out


def _deep_merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def default_config(root: Path) -> Config:
    config, _ = normalise(None, root)
    return config


_CERBERUS_TYPES = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "list": "array",
    "dict": "object",
}


def _to_json_schema(rule: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    kind = rule.get("type")
    if kind:
        json_type: Any = [_CERBERUS_TYPES[k] for k in kind] if isinstance(kind, list) else _CERBERUS_TYPES[kind]
        out["type"] = [json_type, "null"] if rule.get("nullable") else json_type
    if "allowed" in rule:
        allowed = list(rule["allowed"])
        if rule.get("coerce") is _off_word:
            allowed.append(False)
        out["enum"] = allowed + ([None] if rule.get("nullable") else [])
        out.pop("type", None)
    if "regex" in rule:
        out["pattern"] = rule["regex"]
    if rule.get("empty") is False and kind == "string":
        out["minLength"] = 1
    if "min" in rule:
        out["minimum"] = rule["min"]
    if "max" in rule:
        out["maximum"] = rule["max"]
    if "default" in rule and not callable(rule["default"]):
        out["default"] = rule["default"]
    if "meta" in rule and "description" in rule["meta"]:
        out["description"] = rule["meta"]["description"]
    if kind == "list" and "schema" in rule:
        out["items"] = _to_json_schema(rule["schema"])
    if kind == "dict" and "schema" in rule:
        out["properties"] = {k: _to_json_schema(v) for k, v in rule["schema"].items()}
        out["additionalProperties"] = False
    if kind == "dict" and "valuesrules" in rule:
        out["additionalProperties"] = _to_json_schema(rule["valuesrules"])
    if kind == "dict" and "keysrules" in rule:
        out["propertyNames"] = _to_json_schema(rule["keysrules"])
    return out


def config_json_schema() -> dict[str, Any]:
    """The JSON Schema of ``hermes-engine.yaml``, derived from the cerberus schema."""
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://hermes-engine.dev/schemas/config.schema.json",
        "title": "hermes-engine project config (hermes-engine.yaml)",
        "type": "object",
        "additionalProperties": False,
        "properties": {k: _to_json_schema(v) for k, v in CONFIG_SCHEMA.items()},
    }


def audit_path(config: Config) -> Path:
    """The audit log of a project: ``approvals.audit_log`` (relative to the root) or the state dir's.
    (Here rather than in engine.policy.audit, which re-exports it: ``check`` needs the path, not the log.)"""
    configured = config.get("approvals").get("audit_log")
    return (config.root / configured) if configured else config.state_dir / "audit.jsonl"
