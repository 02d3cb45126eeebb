"""Dotted paths in manifests → Python callables, under the allowed handler roots only.

A manifest names ``package.module:function``. It may only name code the project
allowed: the module must sit under one of the pack's handler roots, and the
object found must be a function *defined* there (``handlers.x:run`` where
``handlers/x.py`` did ``from subprocess import run`` is refused).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from engine.source.project import BUILTIN_HANDLER_PACKAGE, Pack


@dataclass(frozen=True, slots=True)
class Bound:
    """A resolved handler or check function and what its signature accepts."""

    path: str  # as written in the manifest
    function: Callable[..., Any]
    is_async: bool
    accepts_ctx: bool
    params: frozenset[str]
    required: frozenset[str]
    var_kwargs: bool
    # The declared return type when it is one the result contract refuses (int, None, ...).
    refused_return: str | None = None


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles the ``.py`` on every import; no ``__pycache__`` file is read or written.

    Python takes a cached ``.pyc`` whose recorded size and mtime match the source; a tool
    could plant one next to an approved handler (engine.compile.approved hashes sources).
    Without source stats the import system neither trusts nor writes bytecode."""

    def path_stats(self, path: str) -> Any:
        raise OSError("bytecode caches are not used for project handlers")

    def get_data(self, path: str) -> bytes:
        data: bytes = super().get_data(path)
        expected = EXPECTED_SOURCES.get(path)
        if expected is not None and hashlib.sha256(data).hexdigest() != expected:
            # Changed between the approval check and this import: never run it.
            raise ImportError(f"{Path(path).name} changed after its approved content was checked", path=path)
        return data


# Approved SHA-256 of handler and plugin sources, by path (engine.compile.approved sets it): an
# import reads the bytes once and runs them only when they are the approved ones.
EXPECTED_SOURCES: dict[str, str] = {}


class _HandlerSources(importlib.abc.MetaPathFinder):
    """Project handler packages import from their ``.py`` sources only (never a ``.pyc``, ``.so``)."""

    def __init__(self) -> None:
        # top-level package name -> its project directories, the most recently prepared first
        # (as sys.path.insert(0, root) ordered them when the roots were put on sys.path)
        self.places: dict[str, list[Path]] = {}

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        places = self.places.get(fullname.partition(".")[0])
        if not places:
            return None
        # A top-level handler package is looked up in its project only: the project root is never
        # on sys.path, so a file the tools write there (resource.py, stringprep.py) shadows nothing.
        where = path if path is not None else [str(d.parent) for d in places]
        spec = importlib.machinery.PathFinder.find_spec(fullname, where)
        if spec is None:
            return None
        top_level = "." not in fullname
        origin = Path(spec.origin) if spec.origin and spec.has_location else None
        if origin is None:
            if top_level:  # a namespace package: found by whatever (a .pyc, a .so) sits beside it
                raise ImportError(f"{fullname!r} must be a .py module or a package with __init__.py", name=fullname)
            return spec  # a folder without __init__.py inside the package: it runs nothing itself
        # Only the exact names the approval check hashed: root/top.py, root/top/__init__.py and the
        # .py files under root/top/. Python's finder prefers an extension module (top.abi3.so) and
        # takes top.pyc when top/ has no __init__.py: neither is a source, neither is ever run.
        allowed = any(origin.is_relative_to(d) or origin == d.with_suffix(".py") for d in places)
        if not allowed or origin.suffix != ".py" or type(spec.loader) is not importlib.machinery.SourceFileLoader:
            raise ImportError(
                f"{origin.name} is not a .py source of the handler package; handler packages import sources only",
                name=fullname,
            )
        spec.loader = SourceOnlyLoader(fullname, str(origin))
        return spec


_SOURCES = _HandlerSources()


def source_only(top: str, root: Path) -> None:
    """Import the package (or module) ``top`` found in ``root`` from its approved ``.py`` sources only."""
    places = _SOURCES.places.setdefault(top, [])
    if places[:1] != [root / top]:
        with contextlib.suppress(ValueError):
            places.remove(root / top)
        places.insert(0, root / top)
    if _SOURCES not in sys.meta_path:
        sys.meta_path.insert(0, _SOURCES)


class BindError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _under(module: str, roots: tuple[str, ...]) -> bool:
    return any(module == r or module.startswith(r + ".") for r in roots)


def _location(module: Any) -> Path | None:
    file = getattr(module, "__file__", None)
    if file:
        return Path(file).resolve()
    paths = list(getattr(module, "__path__", []) or [])
    return Path(paths[0]).resolve() if paths else None


class Binder:
    """Imports handler modules for packs and resolves dotted paths.

    Imported modules are cached by ``sys.modules`` as usual; :meth:`reimport`
    drops a pack's modules so a reload picks up edited handler files.
    """

    def __init__(self) -> None:
        self._prepared: set[tuple[str, Path]] = set()
        # (pack, root, handler roots, dotted path) -> (module, function, description). Many
        # tools share a handler, and a reload re-binds every tool: while the module object
        # and the function are the very same, no import, allow-list, shadowing or signature
        # work is needed again (a re-imported module is a new object and misses).
        self._bound: dict[tuple[str, Path, tuple[str, ...], str], tuple[Any, Any, Bound]] = {}
        self._unshadowed: dict[tuple[str, str], Any] = {}

    def prepare(self, pack: Pack) -> None:
        if pack.name == "builtin":
            # Cheap when installed; needed again after reimport() dropped it.
            install_builtin_package(pack.root / "handlers")
            return
        if pack.is_plugin:
            return  # a plugin's package is imported by engine.plugins, never put on sys.path
        for prefix in pack.handler_roots:
            source_only(prefix.split(".", 1)[0], pack.root)
        self._prepared.add((pack.name, pack.root))

    def import_name(self, module: str, pack: Pack) -> str:
        for prefix, real in pack.module_alias.items():
            if module == prefix or module.startswith(prefix + "."):
                return real + module[len(prefix) :]
        return module

    def allowed_roots(self, pack: Pack) -> tuple[str, ...]:
        return tuple(self.import_name(r, pack) for r in pack.handler_roots)

    def bind(self, dotted: str, pack: Pack) -> Bound:
        """Resolve ``module:function`` for ``pack``.

        Raises:
            BindError: the path is not allowed, does not import or is not a function.
        """
        module_name, _, attr = dotted.partition(":")
        key = (pack.name, pack.root, pack.handler_roots, dotted)
        cached = self._bound.get(key)
        if cached is not None:
            module, obj, bound = cached
            if sys.modules.get(module.__name__) is module and getattr(module, attr, None) is obj:
                return bound
        if not _under(module_name, pack.handler_roots):
            roots = ", ".join(pack.handler_roots) or "(none)"
            raise BindError(
                "handler-not-allowed",
                f"outside the handler roots ({roots}); a manifest may only bind "
                "functions under the project's handler_roots (see hermes-engine.yaml)",
            )
        if attr.startswith("__"):
            raise BindError("handler-not-allowed", "dunder names cannot be bound")
        top = module_name.split(".", 1)[0]
        if pack.name != "builtin" and not is_project_package(top, pack.package_root):
            raise BindError(
                "handler-not-allowed",
                f"{top!r} is not a package of this project (there is no {top}/ or {top}.py in "
                f"{pack.package_root}); handlers must be the project's own code, not an installed or standard module",
            )
        self.prepare(pack)
        real = self.import_name(module_name, pack)
        module = self._import(real, module_name, pack)
        try:
            obj = getattr(module, attr)
        except AttributeError:
            names = [n for n, v in vars(module).items() if callable(v) and not n.startswith("_")]
            close = get_close_matches(attr, names, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise BindError("handler-not-found", f"module {module_name!r} has no attribute {attr!r}{hint}") from None
        function = inspect.unwrap(obj) if callable(obj) else obj
        if not (inspect.isfunction(function) or inspect.isbuiltin(function)) or not callable(obj):
            raise BindError("handler-not-callable", f"not a function (it is {type(obj).__name__})")
        defined_in = getattr(function, "__module__", None) or ""
        if not _under(defined_in, self.allowed_roots(pack)):
            raise BindError(
                "handler-not-allowed",
                f"it is {defined_in}.{getattr(function, '__qualname__', attr)}, defined outside "
                "the handler roots; bind a function defined in your handler package instead",
            )
        bound = describe(dotted, obj)
        self._bound[key] = (module, obj, bound)
        return bound

    def _import(self, real: str, written: str, pack: Pack) -> Any:
        top = real.split(".", 1)[0]
        try:
            _import_parents(real)
            module = importlib.import_module(real)
        except ModuleNotFoundError as exc:
            if exc.name and (real == exc.name or real.startswith(exc.name + ".")):
                raise BindError("handler-import-failed", f"no module named {written!r}") from None
            raise BindError("handler-import-failed", f"importing {written!r} failed: {_summary(exc)}") from None
        except SyntaxError as exc:
            where = f"{Path(exc.filename or '?').name}:{exc.lineno}" if exc.lineno else ""
            raise BindError(
                "handler-import-failed", f"importing {written!r} failed: SyntaxError at {where}: {exc.msg}"
            ) from None
        except BaseException as exc:  # a handler module runs arbitrary code when imported
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise BindError("handler-import-failed", f"importing {written!r} failed: {_summary(exc)}") from None
        if pack.name != "builtin":
            self._check_shadowing(top, pack)
        return module

    def _check_shadowing(self, top: str, pack: Pack) -> None:
        module = sys.modules.get(top)
        base = pack.package_root
        if self._unshadowed.get((str(base), top)) is module:
            return
        location = _location(sys.modules.get(top))
        if location is None or not location.is_relative_to(base):
            raise BindError(
                "handler-shadowed",
                f"module {top!r} is already imported from {location}, not from this project's "
                f"{top}/; another package with the same name was loaded first in this process "
                "(rename your handler package and its handler_roots entry)",
            )
        self._unshadowed[(str(base), top)] = module

    def reimport(self, pack: Pack, files: set[Path] | None = None) -> list[str]:
        """Forget a pack's handler modules (all, or those loaded from ``files``)."""
        roots = self.allowed_roots(pack)
        dropped: list[str] = []
        for name, module in list(sys.modules.items()):
            if not _under(name, roots):
                continue
            location = _location(module)
            if files is None or (location is not None and location in files):
                del sys.modules[name]
                dropped.append(name)
        if files is not None and dropped:
            # Parents cache their submodules as attributes; a changed leaf must be
            # re-executed, so its parents are dropped too.
            for name in list(sys.modules):
                if _under(name, roots) and any(d.startswith(name + ".") for d in dropped):
                    del sys.modules[name]
                    dropped.append(name)
        importlib.invalidate_caches()
        return dropped


def _import_parents(name: str) -> None:
    """Import the packages above ``name`` that a reload dropped, and hang their kept
    submodules back on them.

    A reload drops a changed module and its parents but keeps unchanged siblings, and
    ``import_module`` returns a kept ``pkg.b`` without importing ``pkg`` again: the
    package would be missing (and ``pkg.b`` no attribute of it).
    """
    parts = name.split(".")
    for depth in range(1, len(parts)):
        parent = ".".join(parts[:depth])
        if parent not in sys.modules:
            importlib.import_module(parent)
    for depth in range(1, len(parts)):
        parent, child = ".".join(parts[:depth]), ".".join(parts[: depth + 1])
        package, module = sys.modules.get(parent), sys.modules.get(child)
        if package is not None and module is not None and not hasattr(package, parts[depth]):
            setattr(package, parts[depth], module)


def is_project_package(top: str, root: Path) -> bool:
    """Whether the top-level module ``top`` is a folder or a ``.py`` file of the project at ``root``."""
    try:
        return (root / top).is_dir() or (root / f"{top}.py").is_file()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte: no such package
        return False


def _summary(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def describe(dotted: str, obj: Callable[..., Any]) -> Bound:
    """What a callable accepts, as the dispatcher needs to know it."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError) as exc:
        raise BindError("handler-not-callable", f"cannot read its signature ({exc})") from None
    params: set[str] = set()
    required: set[str] = set()
    var_kwargs = False
    for p in signature.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            var_kwargs = True
        elif p.kind is p.VAR_POSITIONAL:
            continue
        elif p.kind is p.POSITIONAL_ONLY:
            if p.default is p.empty:
                raise BindError(
                    "handler-signature",
                    f"positional-only parameter {p.name!r} cannot receive a named argument",
                )
        else:
            params.add(p.name)
            if p.default is p.empty:
                required.add(p.name)
    is_async = inspect.iscoroutinefunction(inspect.unwrap(obj))
    return Bound(
        path=dotted,
        function=obj,
        is_async=is_async,
        accepts_ctx="ctx" in params,
        params=frozenset(params - {"ctx"}),
        required=frozenset(required - {"ctx"}),
        var_kwargs=var_kwargs,
        refused_return=_refused_return(signature.return_annotation),
    )


# Return types a handler may not have: the result contract takes str, dict, list (or
# multimodal parts), so a function declared to return one of these fails every call.
_REFUSED_RETURNS = {
    int: "int",
    float: "float",
    bool: "bool",
    bytes: "bytes",
    bytearray: "bytearray",
    complex: "complex",
    set: "set",
    frozenset: "frozenset",
    tuple: "tuple",
    type(None): "None",
}
_REFUSED_NAMES = frozenset(_REFUSED_RETURNS.values())


def _refused_return(annotation: Any) -> str | None:
    if annotation is None:
        return "None"
    if isinstance(annotation, str):  # postponed annotations: judge the plain names only
        name = annotation.strip()
        return name if name in _REFUSED_NAMES else None
    try:
        return _REFUSED_RETURNS.get(annotation)
    except TypeError:  # an unhashable annotation object
        return None


def install_builtin_package(directory: Path) -> None:
    """Make ``engine._pack_handlers`` the builtin handlers package, wherever it lives."""
    existing = sys.modules.get(BUILTIN_HANDLER_PACKAGE)
    if existing is not None:
        return
    init = directory / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        BUILTIN_HANDLER_PACKAGE, init, submodule_search_locations=[str(directory)]
    )
    if spec is None or spec.loader is None:  # pragma: no cover - the pack ships __init__.py
        raise BindError("handler-import-failed", f"cannot load the builtin handlers from {directory}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[BUILTIN_HANDLER_PACKAGE] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[BUILTIN_HANDLER_PACKAGE]
        raise
