"""Finding and loading plugins, one transaction each.

Two sources, both named in ``hermes-engine.yaml`` (``plugins:``):

- installed packages exposing an entry point in the group ``hermes_engine.plugins``; they are
  discovered from package metadata alone and loaded only when ``plugins.enabled`` names them;
- plugin folders inside the project (``plugins.folders``): a ``plugin.yaml`` and a package.

``plugins.disabled`` wins over both: a disabled or not enabled plugin's code is never imported.
A plugin is imported and its ``register(ctx)`` called in a thread bounded by
``plugins.timeout``; whatever it raises (``SystemExit`` included) or a time-out fails it: the
modules it imported are dropped and nothing it registered is kept. What it did register is
validated by the loader like the project's own manifests; any error anywhere fails the load
(as ``validate`` does), so a reload keeps the previous generation serving.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

from engine.compile.binding import BindError, Bound, SourceOnlyLoader, describe, source_only
from engine.config import PLUGIN_NAME, Config
from engine.errors import ConfigurationError, Problem
from engine.plugins.context import CallSite, PluginContext
from engine.runtime.registry import RuntimeType, RuntimeTypes
from engine.source.project import MANIFEST_DIRS, Pack, is_ignored_name
from engine.source.yamlfile import Document, parse_bytes, parse_file

if TYPE_CHECKING:
    import importlib.metadata  # read only when plugins are listed or enabled (with zipfile, csv and e-mail modules)

GROUP = "hermes_engine.plugins"
PLUGIN_FILE = "plugin.yaml"
_MODULE = r"^[A-Za-z_][A-Za-z0-9_]*$"
_DOTTED = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$"
PLUGIN_SCHEMA: dict[str, Any] = {
    "name": {"type": "string", "required": True, "regex": PLUGIN_NAME},
    "package": {"type": "string", "regex": _MODULE},
    "register": {"type": "string", "regex": _DOTTED, "dependencies": "package"},
    "description": {"type": "string"},
    "version": {"type": "string"},
}


@dataclass(slots=True)
class PluginReport:
    """One plugin as ``hermes-engine plugins`` shows it."""

    name: str
    kind: str  # "entry-point" or "folder"
    origin: str
    state: str  # "loaded", "disabled" or "failed"
    reason: str | None = None
    added: dict[str, list[str]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "origin": self.origin,
            "state": self.state,
            "reason": self.reason,
            "added": {k: list(v) for k, v in self.added.items() if v},
        }


@dataclass(slots=True)
class LoadedPlugin:
    """A plugin whose register() succeeded: what it contributes to a load."""

    name: str
    kind: str
    origin: str
    key: tuple[Any, ...]
    packs: list[Pack]
    tool_docs: list[Document]
    remap: dict[str, CallSite]
    hooks: dict[str, tuple[Bound, ...]]
    providers: dict[str, tuple[Bound, CallSite]]
    runtime_types: dict[str, RuntimeType]
    code_dirs: tuple[Path, ...]
    grants: frozenset[str]
    report: PluginReport

    @property
    def prefixes(self) -> tuple[str, ...]:
        return tuple(p.display_prefix for p in self.packs) + tuple(self.remap)


@dataclass(slots=True)
class PluginSet:
    """The plugins of one load (not applied until the load succeeds)."""

    loaded: list[LoadedPlugin] = field(default_factory=list)
    reports: list[PluginReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Providers of agent-loop tools, checked against the loaded tools (by the loader).
    providers: dict[str, Bound] = field(default_factory=dict)

    @property
    def packs(self) -> list[Pack]:
        return [pack for plugin in self.loaded for pack in plugin.packs]

    def runtime_types(self) -> dict[str, RuntimeType]:
        return {name: t for plugin in self.loaded for name, t in plugin.runtime_types.items()}

    def owner(self, file: str) -> LoadedPlugin | None:
        """The plugin a problem's file belongs to."""
        for plugin in self.loaded:
            if any(file == p or (p.endswith("/") and file.startswith(p)) for p in plugin.prefixes):
                return plugin
        return None


@dataclass(slots=True)
class _Candidate:
    name: str
    kind: str
    origin: str
    where: tuple[str, int, int, str]  # file, line, column, pointer: where a failure is reported
    key: tuple[Any, ...]
    code_dir: Path | None  # the plugin's package folder (or plugin folder)
    code_root: Path | None  # what its top-level package sits in
    tops: frozenset[str]
    load: Callable[[], Callable[..., Any] | None]
    folder: Path | None = None
    package: str | None = None


class PluginManager:
    """Resolves the config's plugins on each load, reusing a plugin whose code did not change."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[str, LoadedPlugin] = {}
        self.committed: list[LoadedPlugin] = []
        self._lock = threading.Lock()
        # Whether loads list installed plugins the config does not enable (the `plugins` command
        # does): scanning every distribution's metadata costs tens of milliseconds.
        self.list_installed = False

    # -- one load -------------------------------------------------------------------------

    def resolve(self, config: Config, config_doc: Document | None, base_types: RuntimeTypes) -> PluginSet:
        with self._lock:
            return self._resolve(config, config_doc, base_types)

    def _resolve(self, config: Config, config_doc: Document | None, base_types: RuntimeTypes) -> PluginSet:
        section = config.get("plugins")
        out = PluginSet()
        at = _Locator(config_doc)
        disabled = set(section["disabled"])
        enabled = list(section["enabled"])
        grants = section["grants"]
        candidates: list[_Candidate] = []

        installed = _entry_points() if (enabled or self.list_installed) else {}
        for name, eps in sorted(installed.items()):
            origin = ", ".join(_ep_origin(ep) for ep in eps)
            if name in disabled:
                out.reports.append(
                    PluginReport(name, "entry-point", origin, "disabled", "disabled by plugins.disabled")
                )
            elif name not in enabled:
                reason = "installed, not enabled (list it in plugins.enabled)"
                out.reports.append(PluginReport(name, "entry-point", origin, "disabled", reason))
        for i, name in enumerate(enabled):
            if name in disabled:
                continue
            found = installed.get(name)
            if not found:
                known = ", ".join(sorted(installed)) or "none"
                out.problems.append(
                    at.problem(
                        ["plugins", "enabled", i],
                        "plugin-unknown",
                        f"no installed plugin is named {name!r} (entry point group {GROUP}; installed: {known})",
                    )
                )
                continue
            for ep in found:
                candidates.append(_ep_candidate(ep, at.where(["plugins", "enabled", i])))

        for i, written in enumerate(section["folders"]):
            candidate, problem = self._folder_candidate(written, at.where(["plugins", "folders", i]))
            if problem is not None:
                out.problems.append(problem)
            elif candidate is not None:
                if candidate.name in disabled:
                    out.reports.append(
                        PluginReport(
                            candidate.name, "folder", candidate.origin, "disabled", "disabled by plugins.disabled"
                        )
                    )
                else:
                    candidates.append(candidate)

        by_name: dict[str, list[_Candidate]] = {}
        for candidate in candidates:
            by_name.setdefault(candidate.name, []).append(candidate)
        for name, group in by_name.items():
            if len(group) > 1:
                origins = " and ".join(c.origin for c in group)
                message = f"plugin name {name!r} is used by {origins}; none of them is loaded"
                for candidate in group:
                    out.problems.append(Problem(*candidate.where[:3], "plugin-duplicate", message, candidate.where[3]))
                    out.reports.append(PluginReport(name, candidate.kind, candidate.origin, "failed", message))
        for name in sorted(grants):
            if name not in by_name:
                out.problems.append(
                    at.problem(
                        ["plugins", "grants", name],
                        "plugin-unknown",
                        f"grant for {name!r}, which is not a plugin this project loads",
                        key=True,
                        severity="warning",
                    )
                )

        timeout = float(section["timeout"])
        types: dict[str, RuntimeType] = {}
        for name, group in by_name.items():
            if len(group) > 1:
                continue
            candidate = group[0]
            granted = frozenset(grants.get(name) or ())
            cached = self._cache.get(name)
            if cached is not None and cached.key == candidate.key and cached.grants == granted:
                plugin: LoadedPlugin | None = cached
                problem = None
                taken = set(cached.runtime_types) & (set(types) | set(base_types.staged({}).names()))
                if taken:
                    message = f"plugin {name!r}: runtime type {sorted(taken)[0]!r} is already registered"
                    plugin, problem = None, Problem(*candidate.where[:3], "plugin-failed", message, candidate.where[3])
            else:
                if cached is not None:
                    _drop_modules(cached.code_dirs, cached.report.name)
                    self._cache.pop(name, None)
                plugin, problem = self._load(candidate, config, timeout, base_types.staged(types), granted)
            if plugin is None:
                assert problem is not None
                out.problems.append(problem)
                out.reports.append(PluginReport(name, candidate.kind, candidate.origin, "failed", problem.message))
                continue
            types.update(plugin.runtime_types)
            self._cache[name] = plugin
            out.loaded.append(plugin)
            out.reports.append(plugin.report)
        out.reports.sort(key=lambda r: (r.name, r.origin))
        return out

    def commit(self, plugins: PluginSet, types: RuntimeTypes) -> None:
        """The load succeeded: its plugins are the engine's now."""
        with self._lock:
            keep = {id(p) for p in plugins.loaded}
            for old in self.committed:
                if id(old) not in keep:  # disabled, removed or replaced: its modules go
                    if self._cache.get(old.name) is old:
                        del self._cache[old.name]
                    if all(p.code_dirs != old.code_dirs for p in plugins.loaded):
                        _drop_modules(old.code_dirs, old.name)
            self.committed = list(plugins.loaded)
            types.set_plugin_types(plugins.runtime_types())

    def discard(self, plugin: LoadedPlugin) -> None:
        """A plugin whose contribution failed validation: no trace unless the engine still uses it."""
        with self._lock:
            if self._cache.get(plugin.name) is plugin:
                del self._cache[plugin.name]
            if all(c is not plugin for c in self.committed):
                _drop_modules(plugin.code_dirs, plugin.name)

    # -- candidates ---------------------------------------------------------------------

    def _folder_candidate(
        self, written: str, where: tuple[str, int, int, str]
    ) -> tuple[_Candidate | None, Problem | None]:
        def refuse(message: str, code: str = "plugin-folder-invalid") -> tuple[None, Problem]:
            return None, Problem(*where[:3], code, f"plugin folder {written!r}: {message}", where[3])

        root = self.root
        folder = Path(os.path.normpath(root / Path(written).expanduser()))
        try:
            rel = folder.relative_to(root)
        except ValueError:
            return refuse("is outside the project; a plugin folder must be inside the project root")
        if not rel.parts:
            return refuse("is the project root itself")
        if rel.parts[0] in MANIFEST_DIRS:
            return refuse(f"is inside {rel.parts[0]}/, where every file is read as a manifest of the project")
        probe = root
        for part in rel.parts:
            probe = probe / part
            if probe.is_symlink():
                return refuse(
                    f"goes through a symlink ({probe.relative_to(root).as_posix()}); "
                    "a plugin folder must be a real folder of the project"
                )
        if not folder.is_dir():
            return refuse("is not a directory")
        fingerprint, links = _scan(folder)
        if links:
            shown = ", ".join(p.relative_to(root).as_posix() for p in links[:3])
            return refuse(f"holds a symlink ({shown}); a plugin's files must be its own")
        manifest = folder / PLUGIN_FILE
        if not manifest.is_file():
            return refuse(f"has no {PLUGIN_FILE}")
        display = f"{rel.as_posix()}/{PLUGIN_FILE}"
        parsed = parse_file(manifest, display, pack="plugin")
        if parsed.problems:
            return None, parsed.problems[0]
        if len(parsed.documents) != 1 or not isinstance(parsed.documents[0].data, dict):
            return None, Problem(display, 1, 1, "plugin-invalid", f"{PLUGIN_FILE} must hold one mapping")
        doc = parsed.documents[0]
        problem = _check_plugin_file(doc)
        if problem is not None:
            return None, problem
        data = doc.data
        name = str(data["name"])
        package = data.get("package")
        origin = f"folder {rel.as_posix()}"
        if package is not None:
            if not ((folder / package).is_dir() or (folder / f"{package}.py").is_file()):
                return None, doc.problem(
                    ["package"], "plugin-invalid", f"there is no {package}/ or {package}.py in {rel.as_posix()}"
                )
            shadowed = _shadow_problem(package, folder)
            if shadowed is not None:
                return None, doc.problem(["package"], "plugin-shadowed", shadowed)
        register = data.get("register")
        if register is not None and not (register == package or register.split(":")[0].split(".")[0] == package):
            return None, doc.problem(
                ["register"], "plugin-invalid", f"register {register!r} is not in the plugin's package {package!r}"
            )

        def load() -> Callable[..., Any] | None:
            if package is None:
                return None
            _import_folder_package(folder, package)
            if register is None:
                return None
            module_name, _, attr = register.partition(":")
            module = importlib.import_module(module_name)
            return _callable(getattr(module, attr), register)

        tops = frozenset({package} if package else ())
        import yaml  # noqa: PLC0415  (a plugin's load only: a load without plugins never imports PyYAML)

        key = ("folder", str(folder), fingerprint, yaml.safe_dump(data, sort_keys=True))
        return _Candidate(
            name,
            "folder",
            origin,
            (display, doc.line, doc.column, ""),
            key,
            folder,
            folder,
            tops,
            load,
            folder,
            package,
        ), None

    # -- one plugin -----------------------------------------------------------------------

    def _load(
        self, candidate: _Candidate, config: Config, timeout: float, types: RuntimeTypes, grants: frozenset[str]
    ) -> tuple[LoadedPlugin | None, Problem | None]:
        name = candidate.name
        before = set(sys.modules)
        path_before = list(sys.path)
        ctx = PluginContext(name, self.root, MappingProxyType(dict(config.data)), candidate.code_dir, candidate.tops)

        def work() -> None:
            register = candidate.load()
            if register is not None:
                register(ctx)

        failure = _run_limited(work, timeout, name)
        ctx.seal()
        plugin: LoadedPlugin | None = None
        if failure is None:
            try:
                plugin = self._build(candidate, ctx, types, grants)
            except ConfigurationError as exc:
                failure = exc
        if failure is not None:
            _rollback(before, path_before, candidate)
            return None, _failure_problem(candidate, failure, self.root)
        return plugin, None

    def _build(
        self, candidate: _Candidate, ctx: PluginContext, types: RuntimeTypes, grants: frozenset[str]
    ) -> LoadedPlugin:
        name = candidate.name
        added = ctx.added
        pack_name = f"plugin:{name}"
        roots = list(added.handler_roots)
        if candidate.package and candidate.package not in roots:
            roots.insert(0, candidate.package)
        if not roots:
            roots = sorted(candidate.tops)[:1]
        handler_roots = tuple(roots)
        packs: list[Pack] = []
        code_dirs: list[Path] = []
        if candidate.kind == "folder":
            assert candidate.folder is not None
            rel = candidate.folder.relative_to(self.root).as_posix()
            packs.append(Pack(pack_name, candidate.folder, handler_roots, {}, f"{rel}/", candidate.folder))
            code_dirs.append(candidate.folder)
        elif candidate.code_dir is not None and candidate.code_dir.is_dir():
            assert candidate.code_root is not None
            rel = candidate.code_dir.relative_to(candidate.code_root).as_posix()
            packs.append(
                Pack(pack_name, candidate.code_dir, handler_roots, {}, f"<plugin {name}>/{rel}/", candidate.code_root)
            )
            code_dirs.append(candidate.code_dir)
        for folder, where in added.manifest_folders:
            base = candidate.code_root or candidate.code_dir or folder
            _, links = _scan(folder)
            if links:
                raise _Located(where, f"manifest folder {str(folder)!r} holds a symlink ({links[0]})")
            if candidate.kind == "folder":
                prefix = f"{folder.relative_to(self.root).as_posix()}/"
            else:
                prefix = f"<plugin {name}>/{folder.relative_to(base).as_posix()}/"
            if all(p.root != folder for p in packs):
                packs.append(Pack(pack_name, folder, handler_roots, {}, prefix, candidate.code_root))
        main = (
            packs[0]
            if packs
            else Pack(
                pack_name, candidate.code_dir or self.root, handler_roots, {}, f"<plugin {name}>/", candidate.code_root
            )
        )

        import yaml  # noqa: PLC0415

        tool_docs: list[Document] = []
        remap: dict[str, CallSite] = {}
        for i, declared in enumerate(added.tools):
            file = f"<plugin {name}>/tool #{i + 1} {declared.manifest.get('name')}"
            try:
                text = yaml.safe_dump(declared.manifest, sort_keys=False, allow_unicode=True)
            except yaml.YAMLError as exc:
                raise _Located(declared.where, f"add_tool: the manifest cannot be written as YAML ({exc})") from None
            parsed = parse_bytes(text.encode("utf-8"), file, pack=pack_name)
            tool_docs.extend(parsed.documents)
            remap[file] = declared.where

        hooks: dict[str, list[Bound]] = {}
        for point, function, label in added.hooks:
            try:
                hooks.setdefault(point, []).append(describe(label, function))
            except BindError as exc:
                raise ConfigurationError(f"hook {label}: {exc.message}") from None
        providers: dict[str, tuple[Bound, CallSite]] = {}
        for tool, (function, where) in added.providers.items():
            try:
                providers[tool] = (describe(f"<provider for {tool} from plugin {name}>", function), where)
            except BindError as exc:
                raise _Located(where, f"provider for {tool!r}: {exc.message}") from None
        runtime_types: dict[str, RuntimeType] = {}
        for type_name, (runtime_class, schema, where) in added.runtime_types.items():
            try:
                runtime_types[type_name] = types.make(type_name, runtime_class, schema)
            except ConfigurationError as exc:
                raise _Located(where, str(exc)) from None

        report = PluginReport(
            name,
            candidate.kind,
            candidate.origin,
            "loaded",
            None,
            {
                "manifest folders": [
                    p.display_prefix.rstrip("/") for p in packs if (p is not main or _has_manifests(p))
                ],
                "handler roots": list(handler_roots),
                "tools": [],  # filled by the loader (manifests and Python-declared)
                "toolsets": [],
                "manifests": [],
                "hooks": [f"{point}: {b.path}" for point, items in hooks.items() for b in items],
                "providers": sorted(providers),
                "runtime types": sorted(runtime_types),
            },
        )
        dirs = {*code_dirs, *(f for f, _ in added.manifest_folders)}
        if candidate.code_dir is not None:
            dirs.add(candidate.code_dir)
        return LoadedPlugin(
            name,
            candidate.kind,
            candidate.origin,
            candidate.key,
            packs if packs else [main],
            tool_docs,
            remap,
            {k: tuple(v) for k, v in hooks.items()},
            providers,
            runtime_types,
            tuple(sorted(dirs)),
            grants,
            report,
        )


# -- helpers ---------------------------------------------------------------------------------


class _Locator:
    def __init__(self, doc: Document | None) -> None:
        self.doc = doc

    def where(self, pointer: list[str | int]) -> tuple[str, int, int, str]:
        if self.doc is None:
            return ("<config>", 1, 1, "")
        try:
            problem = self.doc.problem(pointer, "x", "x")
        except Exception:  # the pointer is not in the written config (overrides)
            return (self.doc.file, 1, 1, "")
        return (problem.file, problem.line, problem.column, problem.pointer)

    def problem(
        self, pointer: list[str | int], code: str, message: str, *, key: bool = False, severity: str = "error"
    ) -> Problem:
        if self.doc is not None:
            try:
                return self.doc.problem(pointer, code, message, key=key, severity=severity)
            except Exception:  # written by an override, not in the file
                pass
        file = self.doc.file if self.doc is not None else "<config>"
        return Problem(file, 1, 1, code, message, "", severity)  # type: ignore[arg-type]


class _Located(ConfigurationError):
    """A mistake found after register() returned, located at the call that made it."""

    def __init__(self, where: CallSite, message: str) -> None:
        super().__init__(message)
        self.where = where


_EP_CACHE: list[tuple[tuple[tuple[str, int], ...], dict[str, list[importlib.metadata.EntryPoint]]]] = []


def _entry_points() -> dict[str, list[importlib.metadata.EntryPoint]]:
    """Installed plugins by name, from package metadata only (nothing is imported); reused while
    no folder of sys.path changed (installing a package changes its folder)."""
    key = tuple((p, _mtime(p)) for p in sys.path)
    if _EP_CACHE and _EP_CACHE[0][0] == key:
        return _EP_CACHE[0][1]
    found = _scan_entry_points()
    _EP_CACHE[:] = [(key, found)]
    return found


def _mtime(path: str) -> int:
    try:
        return os.stat(path or ".").st_mtime_ns
    except OSError:
        return -1


def _scan_entry_points() -> dict[str, list[importlib.metadata.EntryPoint]]:
    found: dict[str, list[importlib.metadata.EntryPoint]] = {}
    seen: set[tuple[str, str]] = set()
    import importlib.metadata  # noqa: PLC0415

    for ep in importlib.metadata.entry_points(group=GROUP):
        dist = getattr(ep, "dist", None)
        ident = (ep.name, ep.value)
        if dist is not None:
            ident = (ep.name, f"{ep.value}@{dist.metadata['Name']}")
        if ident in seen:  # the same distribution found twice on sys.path
            continue
        seen.add(ident)
        found.setdefault(ep.name, []).append(ep)
    return found


def _ep_origin(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    owner = f" ({dist.metadata['Name']} {dist.version})" if dist is not None else ""
    return f"entry point {ep.value}{owner}"


def _ep_candidate(ep: importlib.metadata.EntryPoint, where: tuple[str, int, int, str]) -> _Candidate:
    top = ep.value.split(":", 1)[0].split(".", 1)[0]
    dist = getattr(ep, "dist", None)
    tops = {top}
    version = ""
    if dist is not None:
        version = str(dist.version)
        listed = dist.read_text("top_level.txt") or ""
        tops |= {line.strip() for line in listed.splitlines() if line.strip().isidentifier()}
    code_dir: Path | None = None
    code_root: Path | None = None
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: found, not imported
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        if spec.submodule_search_locations:
            code_dir = Path(next(iter(spec.submodule_search_locations))).resolve()
            code_root = code_dir.parent
        elif spec.origin:
            code_root = Path(spec.origin).resolve().parent
            code_dir = None

    def load() -> Callable[..., Any] | None:
        return _callable(ep.load(), ep.value)

    key = ("entry-point", ep.name, ep.value, version, str(code_dir))
    return _Candidate(
        ep.name, "entry-point", _ep_origin(ep), where, key, code_dir, code_root, frozenset(tops), load, None, top
    )


def _callable(obj: Any, written: str) -> Callable[..., Any]:
    if not callable(obj):
        raise ConfigurationError(f"{written} is not callable (it is {type(obj).__name__}); it must be register(ctx)")
    return obj  # type: ignore[no-any-return]


def _check_plugin_file(doc: Document) -> Problem | None:
    from engine.config import _Validator  # noqa: PLC0415

    validator = _Validator(PLUGIN_SCHEMA)
    if validator.validate(doc.data):
        return None
    key, messages = next(iter(sorted(validator.errors.items())))
    message = str(messages[0])
    if message == "unknown field":
        return doc.problem([key], "plugin-invalid", f"unknown field {key!r} in {PLUGIN_FILE}", key=True)
    if key in doc.data:
        return doc.problem([key], "plugin-invalid", f"{key}: {message}")
    return doc.problem([], "plugin-invalid", f"{key}: {message}")


def _shadow_problem(package: str, folder: Path) -> str | None:
    """A plugin package must not take the name of a module found elsewhere (standard or installed)."""
    module = sys.modules.get(package)
    if module is not None:
        location = _location(module)
        if location is not None and location.is_relative_to(folder.resolve()):
            return None
        return f"a module named {package!r} is already imported from {location}; rename the plugin's package"
    # Standard and installed modules only: not the project packages the engine registered itself.
    try:
        spec = (
            importlib.machinery.BuiltinImporter.find_spec(package)
            or importlib.machinery.FrozenImporter.find_spec(package)
            or importlib.machinery.PathFinder.find_spec(package)
        )
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        return f"{package!r} is the name of a standard or installed module ({spec.origin}); rename the plugin's package"
    return None


def _import_folder_package(folder: Path, package: str) -> ModuleType:
    """Import a plugin folder's package without putting the folder on sys.path."""
    existing = sys.modules.get(package)
    if existing is not None:
        return existing
    # From the approved .py sources only, the package and its submodules (never a planted .pyc).
    source_only(package, folder)
    directory = folder / package
    if directory.is_dir():
        init = directory / "__init__.py"
        spec = importlib.util.spec_from_file_location(
            package,
            init,
            loader=SourceOnlyLoader(package, str(init)),
            submodule_search_locations=[str(directory)],
        )
    else:
        module_file = folder / f"{package}.py"
        spec = importlib.util.spec_from_file_location(
            package, module_file, loader=SourceOnlyLoader(package, str(module_file))
        )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {package!r} from {folder}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(package, None)
        raise
    return module


def _location(module: Any) -> Path | None:
    file = getattr(module, "__file__", None)
    if file:
        return Path(file).resolve()
    paths = list(getattr(module, "__path__", []) or [])
    return Path(paths[0]).resolve() if paths else None


def _scan(folder: Path) -> tuple[tuple[tuple[str, int, int], ...], list[Path]]:
    """(fingerprint of every file, symlinks found) under ``folder``."""
    files: list[tuple[str, int, int]] = []
    links: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        base = Path(dirpath)
        for d in list(dirnames):
            if (base / d).is_symlink():
                links.append(base / d)
                dirnames.remove(d)
            elif d == "__pycache__" or is_ignored_name(d):
                dirnames.remove(d)
        for f in filenames:
            path = base / f
            if path.is_symlink():
                links.append(path)
                continue
            if is_ignored_name(f):
                continue
            try:
                st = path.stat()
            except OSError:
                continue
            files.append((path.relative_to(folder).as_posix(), st.st_mtime_ns, st.st_size))
    return tuple(sorted(files)), sorted(links)


def _has_manifests(pack: Pack) -> bool:
    return any((pack.root / d).is_dir() for d in MANIFEST_DIRS)


def _run_limited(work: Callable[[], None], timeout: float, name: str) -> BaseException | None:
    """Run ``work`` in a thread; what it raised (anything), a time-out, or None."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            work()
        except BaseException as exc:  # SystemExit, KeyboardInterrupt: a plugin never ends the host
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=target, name=f"hermes-plugin-{name}", daemon=True)
    thread.start()
    thread.join(timeout)
    if not outcome:
        return TimeoutError(f"its import and register() did not finish within {timeout:g} s (plugins.timeout)")
    return outcome[0]


def _drop_modules(dirs: Iterable[Path], name: str) -> None:
    """Forget every imported module whose file is under the plugin's folders."""
    bases = [d.resolve() for d in dirs]
    if not bases:
        return
    for module_name, module in list(sys.modules.items()):
        location = _location(module)
        if location is not None and any(location.is_relative_to(b) for b in bases):
            sys.modules.pop(module_name, None)
    importlib.invalidate_caches()


def _rollback(before: set[str], path_before: list[str], candidate: _Candidate) -> None:
    """Undo what importing a failed plugin did to the interpreter."""
    bases = [d.resolve() for d in (candidate.code_dir, candidate.folder) if d is not None]
    for module_name in set(sys.modules) - before:
        module = sys.modules.get(module_name)
        location = _location(module)
        top = module_name.split(".", 1)[0]
        mine = top in candidate.tops or (location is not None and any(location.is_relative_to(b) for b in bases))
        if mine:
            sys.modules.pop(module_name, None)
    if sys.path != path_before:
        sys.path[:] = path_before
    importlib.invalidate_caches()


def _failure_problem(candidate: _Candidate, exc: BaseException, root: Path) -> Problem:
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    message = f"plugin {candidate.name!r} failed to load: {what}"
    if isinstance(exc, _Located):
        return Problem(
            _display(exc.where.file, root), exc.where.line, 1, "plugin-failed", f"plugin {candidate.name!r}: {exc}"
        )
    if isinstance(exc, TimeoutError) and exc.__traceback__ is None:
        return Problem(
            *candidate.where[:3],
            "plugin-timeout",
            f"plugin {candidate.name!r} failed to load: {exc}",
            candidate.where[3],
        )
    bases = [d.resolve() for d in (candidate.code_dir, candidate.folder) if d is not None]
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        try:
            path = Path(frame.filename).resolve()
        except (OSError, RuntimeError):
            continue
        if any(path.is_relative_to(b) for b in bases):
            return Problem(_display(str(path), root), frame.lineno or 1, 1, "plugin-failed", message)
    return Problem(*candidate.where[:3], "plugin-failed", message, candidate.where[3])


def _display(file: str, root: Path) -> str:
    """A file of the project relative to its root (like manifests); installed code absolute."""
    try:
        return Path(file).resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):
        return file


def remap_problems(problems: list[Problem], plugins: PluginSet, root: Path) -> list[Problem]:
    """Problems of Python-declared tools moved to the line that declared them; every problem in a
    plugin's files names the plugin."""
    out: list[Problem] = []
    for p in problems:
        owner = plugins.owner(p.file)
        if owner is None:
            out.append(p)
            continue
        message = p.message if p.message.startswith("plugin ") else f"plugin {owner.name!r}: {p.message}"
        site = owner.remap.get(p.file)
        if site is not None:
            file = site.file
            file = _display(file, root)
            out.append(
                Problem(
                    file,
                    site.line,
                    1,
                    p.code,
                    f"{message} (in the tool it declares, at {p.pointer or '/'})",
                    p.pointer,
                    p.severity,
                )
            )
        else:
            out.append(Problem(p.file, p.line, p.column, p.code, message, p.pointer, p.severity))
    return out


def grant_problem(plugin: LoadedPlugin, doc: Document, first: Document) -> Problem | None:
    """A plugin's tool replacing one already defined needs the override grant."""
    if "override" in plugin.grants:
        return None
    return doc.problem(
        ["name"],
        "plugin-override-refused",
        f"plugin {plugin.name!r} may not replace tool {doc.data['name']!r} (defined at {first.file}:{first.line}): "
        f"the config does not grant it (plugins.grants: {{{plugin.name}: [override]}})",
    )


__all__ = [
    "GROUP",
    "LoadedPlugin",
    "PluginManager",
    "PluginReport",
    "PluginSet",
    "grant_problem",
    "remap_problems",
]
