"""What a plugin's ``register(ctx)`` receives: a :class:`PluginContext` that only records.

Nothing a plugin registers reaches the engine while ``register`` runs: each ``add_*`` call
is checked at once (a mistake raises :class:`ConfigurationError`, which fails the plugin at
that line) and recorded; the loader then validates the whole contribution like the
project's own files and applies it only if everything is valid. A plugin that fails
leaves no trace.
"""

from __future__ import annotations

import inspect
import os
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import ConfigurationError

_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_HERE = str(Path(__file__).resolve().parent)


@dataclass(frozen=True, slots=True)
class CallSite:
    """Where in the plugin's code something was registered (for located errors)."""

    file: str
    line: int


@dataclass(slots=True)
class ToolDeclaration:
    """A tool declared in Python: the manifest it stands for, and where it was declared."""

    manifest: dict[str, Any]
    where: CallSite


@dataclass(slots=True)
class Contribution:
    """Everything one plugin registered, not yet applied."""

    manifest_folders: list[tuple[Path, CallSite]] = field(default_factory=list)
    handler_roots: list[str] = field(default_factory=list)
    hooks: list[tuple[str, Callable[..., Any], str]] = field(default_factory=list)
    providers: dict[str, tuple[Callable[..., Any], CallSite]] = field(default_factory=dict)
    runtime_types: dict[str, tuple[type, Mapping[str, Any] | None, CallSite]] = field(default_factory=dict)
    tools: list[ToolDeclaration] = field(default_factory=list)


def call_site() -> CallSite:
    """The first frame outside this package: the plugin's line that made the call."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            filename = frame.f_code.co_filename
            if not filename.startswith(_HERE):
                return CallSite(filename, frame.f_lineno)
            frame = frame.f_back
    finally:
        del frame
    return CallSite("<plugin>", 1)


class PluginContext:
    """Passed to a plugin's ``register(ctx)``.

    ``name`` is the plugin's name, ``root`` the project root and ``settings`` the project's
    normalised config (read-only). Every ``add_*`` method raises
    :class:`~engine.errors.ConfigurationError` on a mistake.
    """

    def __init__(
        self,
        name: str,
        root: Path,
        settings: Mapping[str, Any],
        code_dir: Path | None,
        allowed_tops: frozenset[str],
    ) -> None:
        self.name = name
        self.root = root
        self.settings = settings
        self._code_dir = code_dir
        self._allowed_tops = allowed_tops
        self._lock = threading.Lock()
        self._sealed = False
        self.added = Contribution()

    # -- the plugin's API -------------------------------------------------------------

    def add_manifests(self, folder: Path | str) -> None:
        """A folder holding ``manifests/``, ``toolsets/`` and ``policies/``, loaded like the
        project's own (inside the plugin's package: a plugin ships the manifests it adds)."""
        with self._open():
            path = Path(folder)
            if not path.is_absolute():
                raise ConfigurationError(
                    f"manifest folder {str(folder)!r} must be an absolute path (use Path(__file__))"
                )
            if self._code_dir is None or not _inside(path, self._code_dir):
                raise ConfigurationError(
                    f"manifest folder {str(folder)!r} is outside the plugin's package ({self._code_dir}); "
                    "a plugin may only add manifests it ships"
                )
            if not path.is_dir():
                raise ConfigurationError(f"manifest folder {str(folder)!r} is not a directory")
            self.added.manifest_folders.append((path, call_site()))

    def add_handler_root(self, prefix: str) -> None:
        """A module prefix the plugin's manifests may bind handlers under; it must be the
        plugin's own code (a package of its distribution)."""
        with self._open():
            if not isinstance(prefix, str) or not _MODULE.match(prefix):
                raise ConfigurationError(f"handler root {prefix!r} is not a module name")
            top = prefix.split(".", 1)[0]
            if top not in self._allowed_tops:
                raise ConfigurationError(
                    f"handler root {prefix!r} is not the plugin's own code (its packages: "
                    f"{', '.join(sorted(self._allowed_tops)) or 'none'})"
                )
            if prefix not in self.added.handler_roots:
                self.added.handler_roots.append(prefix)

    def add_hook(self, point: str, function: Callable[..., Any]) -> None:
        """A hook (pre_tool_call, post_tool_call, transform_tool_result), as Engine.add_hook."""
        from engine.dispatch.hooks import make_hook  # noqa: PLC0415

        with self._open():
            label = f"plugin {self.name}: {getattr(function, '__qualname__', repr(function))}"
            make_hook(point, function, label)  # checks the point and the callable
            self.added.hooks.append((point, function, label))

    def add_provider(self, tool: str, function: Callable[..., Any]) -> None:
        """Answer an agent-loop tool (checked at load like Engine.register_provider)."""
        with self._open():
            if not isinstance(tool, str) or not callable(function):
                raise ConfigurationError("add_provider(tool, function): a tool name and a callable")
            if tool in self.added.providers:
                raise ConfigurationError(f"a provider for {tool!r} is already registered by this plugin")
            self.added.providers[tool] = (function, call_site())

    def add_runtime_type(self, name: str, runtime_class: type, *, schema: Mapping[str, Any] | None = None) -> None:
        """A runtime type ``kind: Runtime`` manifests may name (see docs/runtimes.md)."""
        from engine.runtime import RuntimeTypes  # noqa: PLC0415

        with self._open():
            RuntimeTypes().make(name, runtime_class, schema)  # the name, the class, the schema
            if name in self.added.runtime_types:
                raise ConfigurationError(f"runtime type {name!r} is already registered by this plugin")
            self.added.runtime_types[name] = (runtime_class, schema, call_site())

    def add_tool(
        self,
        function: Callable[..., Any],
        *,
        toolset: str,
        name: str | None = None,
        description: str | None = None,
        parameters: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        """A tool declared in Python. It becomes a ``kind: Tool`` manifest (``handler`` is the
        function's dotted path, which must be under the plugin's handler roots) and is
        validated like one; any other manifest field may be passed by keyword."""
        with self._open():
            if not callable(function):
                raise ConfigurationError(f"add_tool: {function!r} is not callable")
            module = getattr(function, "__module__", None)
            qualname = getattr(function, "__qualname__", "")
            if not module or not qualname or "." in qualname or "<" in qualname:
                raise ConfigurationError(
                    f"add_tool: {function!r} must be a module-level function of the plugin's package"
                )
            doc = inspect.getdoc(function) or ""
            manifest: dict[str, Any] = {
                "kind": "Tool",
                "name": name if name is not None else function.__name__,
                "toolset": toolset,
                "description": description if description is not None else doc,
                "parameters": dict(parameters) if parameters is not None else {"type": "object", "properties": {}},
                **fields,
                "handler": f"{module}:{qualname}",
            }
            self.added.tools.append(ToolDeclaration(manifest, call_site()))

    # -- the loader's side ------------------------------------------------------------

    def seal(self) -> None:
        """After register returned (or ran out of time): later calls are refused."""
        with self._lock:
            self._sealed = True

    def _open(self) -> _Open:
        return _Open(self)


class _Open:
    """Holds the context's lock for one call and refuses calls once it is sealed."""

    def __init__(self, ctx: PluginContext) -> None:
        self.ctx = ctx

    def __enter__(self) -> None:
        self.ctx._lock.acquire()
        if self.ctx._sealed:
            self.ctx._lock.release()
            raise ConfigurationError(f"plugin {self.ctx.name!r}: register() already ended; nothing more can be added")

    def __exit__(self, *exc: object) -> None:
        self.ctx._lock.release()


def _inside(path: Path, base: Path) -> bool:
    """``path`` is ``base`` or under it, with no symlink between them."""
    try:
        written = Path(os.path.normpath(os.path.abspath(path))).relative_to(os.path.normpath(os.path.abspath(base)))
        real = path.resolve().relative_to(base.resolve())
    except (OSError, RuntimeError, ValueError):
        return False
    return written == real


def provider_problem(tool: str, spec: Any, required: frozenset[str]) -> str | None:
    """Why a provider cannot answer ``tool`` (its spec, or None), or None."""
    if spec is None:
        return f"cannot register a provider: unknown tool {tool!r}"
    if not spec.agent_loop:
        return f"tool {tool!r} is not an agent-loop tool; only those take providers"
    properties = spec.parameters.get("properties") or {}
    missing = sorted(p for p in required if p not in properties)
    if missing:
        return f"provider for {tool!r} requires {missing}, which the tool does not declare"
    return None
