"""McpServer manifests: what one declares, its static checks, and the names of its tools.

Secrets never sit in a manifest: ``env`` and ``headers`` values name the engine's own
environment variables as ``${VAR}``, and a literal value under a name that looks secret
(a token, a key, a password, Authorization…) is an error.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import Problem
from engine.source.yamlfile import Document

DEFAULT_TIMEOUT = 60.0
DEFAULT_CONNECT_TIMEOUT = 10.0
MAX_NAME = 64
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SECRET_NAME = re.compile(
    r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|_PASS$|_PWD$|DSN$)",
    re.IGNORECASE,
)
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
_STDIO_ONLY = ("command", "args", "env", "cwd")
_HTTP_ONLY = ("url", "headers")


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, every character outside ``[A-Za-z0-9_]`` replaced by ``_``."""
    return f"mcp__{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"


def references(value: str) -> list[str]:
    return _REFERENCE.findall(value)


def expand(value: str, environ: Mapping[str, str] | None = None) -> tuple[str, list[str]]:
    """``value`` with each ``${VAR}`` replaced from the environment; the names that are unset."""
    source = os.environ if environ is None else environ
    missing = [name for name in references(value) if not source.get(name)]
    return _REFERENCE.sub(lambda m: source.get(m.group(1), ""), value), missing


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One McpServer manifest, normalised."""

    name: str
    transport: str
    command: str | None
    args: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str | None
    url: str | None
    headers: Mapping[str, str]
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    timeout: float
    connect_timeout: float
    enabled: bool
    toolset: str
    approval_default: str | None  # None: not written (a destructive tool asks, the rest are allowed)
    approval_tools: Mapping[str, str]
    file: str
    line: int
    column: int

    @classmethod
    def from_data(cls, data: Mapping[str, Any], file: str, line: int, column: int = 1) -> ServerConfig:
        approval = data.get("approval")
        if isinstance(approval, Mapping):
            default, per_tool = approval.get("default"), dict(approval.get("tools") or {})
        else:
            default, per_tool = approval, {}
        name = data["name"]
        return cls(
            name=name,
            transport=data["transport"],
            command=data.get("command"),
            args=tuple(data.get("args") or ()),
            env=dict(data.get("env") or {}),
            cwd=data.get("cwd"),
            url=data.get("url"),
            headers=dict(data.get("headers") or {}),
            include=tuple(data.get("include") or ()),
            exclude=tuple(data.get("exclude") or ()),
            timeout=float(data.get("timeout", DEFAULT_TIMEOUT)),
            connect_timeout=float(data.get("connect_timeout", DEFAULT_CONNECT_TIMEOUT)),
            enabled=bool(data.get("enabled", True)),
            toolset=data.get("toolset") or f"mcp-{name}",
            approval_default=default,
            approval_tools=per_tool,
            file=file,
            line=line,
            column=column,
        )

    def wanted(self, tool: str) -> bool:
        """include/exclude, by the server's own tool name (names or globs; exclude wins)."""
        if self.include and not any(fnmatch.fnmatchcase(tool, p) for p in self.include):
            return False
        return not any(fnmatch.fnmatchcase(tool, p) for p in self.exclude)

    def approval(self, tool: str, destructive: bool = False) -> str:
        """allow, ask or deny for the server's tool ``tool``: the first per-tool glob that matches,
        else the written default, else ask for a tool the server marks destructive.

        A server's hints only ever add a question: an unwritten approval never allows what the
        server itself says may destroy something.
        """
        for pattern, decision in self.approval_tools.items():
            if fnmatch.fnmatchcase(tool, pattern):
                return decision
        if self.approval_default is not None:
            return self.approval_default
        return "ask" if destructive else "allow"

    def missing_env(self) -> list[str]:
        """The engine variables its env/headers name that are unset (the server cannot start)."""
        values = [*self.env.values(), *self.headers.values()]
        return sorted({name for v in values for name in references(v) if not os.environ.get(name)})

    def working_dir(self, root: Path) -> Path | None:
        return None if self.cwd is None else (root / self.cwd)

    def problem(self, code: str, message: str) -> Problem:
        return Problem(self.file, self.line, self.column, code, message, "", "warning")


def check_servers(
    docs: Sequence[Document], toolsets: Mapping[str, Any], toolset_aliases: Mapping[str, str]
) -> tuple[list[Problem], set[str]]:
    """Static checks of McpServer manifests; returns the problems and the toolset names they declare."""
    problems: list[Problem] = []
    declared: set[str] = set()
    first: dict[str, Document] = {}
    prefixes: dict[str, Document] = {}
    for doc in docs:
        data = doc.data
        name = data["name"]
        if name in first:
            other = first[name]
            problems.append(
                doc.problem(
                    ["name"],
                    "mcp-server-duplicate",
                    f"McpServer {name!r} is already declared at {other.file}:{other.line}",
                )
            )
            continue
        first[name] = doc
        prefix = tool_name(name, "")
        if prefix in prefixes:
            other = prefixes[prefix]
            problems.append(
                doc.problem(
                    ["name"],
                    "mcp-server-duplicate",
                    f"McpServer {name!r} gives its tools the same names as {other.data['name']!r} "
                    f"({other.file}:{other.line}): both become {prefix}TOOL",
                )
            )
            continue
        prefixes[prefix] = doc
        problems.extend(_transport_problems(doc))
        problems.extend(_secret_problems(doc))
        toolset = data.get("toolset") or f"mcp-{name}"
        if toolset in toolsets or toolset in toolset_aliases:
            problems.append(
                doc.problem(
                    ["toolset"] if "toolset" in data else ["name"],
                    "toolset-duplicate",
                    f"toolset {toolset!r} of McpServer {name!r} is already declared by a Toolset manifest; "
                    "name another with toolset:",
                )
            )
        declared.update({toolset, name})
    return problems, declared


def _transport_problems(doc: Document) -> list[Problem]:
    data = doc.data
    transport = data["transport"]
    problems: list[Problem] = []
    needed, foreign = ("command", _HTTP_ONLY) if transport == "stdio" else ("url", _STDIO_ONLY)
    if needed not in data:
        problems.append(doc.problem([], "missing-field", f"a {transport} McpServer needs {needed}:"))
    for key in foreign:
        if key in data:
            problems.append(
                doc.problem(
                    [key], "mcp-transport-mismatch", f"{key}: is for the other transport, not {transport}", key=True
                )
            )
    return problems


def _secret_problems(doc: Document) -> list[Problem]:
    problems: list[Problem] = []
    for section in ("env", "headers"):
        for key, value in (doc.data.get(section) or {}).items():
            if not isinstance(value, str) or not _SECRET_NAME.search(key):
                continue
            if not references(value):
                problems.append(
                    doc.problem(
                        [section, key],
                        "mcp-secret-in-manifest",
                        f"{section}.{key} looks secret: put the value in an environment variable and write "
                        f'${{VAR}} here (e.g. {key}: "${{{_UNSAFE.sub("_", key).upper()}}}")',
                    )
                )
    return problems
