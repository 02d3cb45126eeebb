"""Standard modules a one-shot process imports but almost never uses, loaded on first use.

``dataclasses`` itself (~2 ms with ``copy`` and the rest) is used by no module a warm ``guard`` or
``check`` that allows or denies imports (their classes are engine.records'), only by those an
``ask`` or a load from source imports; it imports ``inspect`` (with ``ast``, ``dis``,
``tokenize``...: about a tenth of a warm ``guard``) for one call, made only for a dataclass
without a docstring; ``pathlib`` imports
``urllib.parse`` (~2 ms) for one function, ``quote_from_bytes`` (``Path.as_uri``), and
``urllib.parse`` imports ``ipaddress`` for one function; ``importlib.metadata`` (with its zip, csv and e-mail
modules) is imported by cerberus, which
reads it only in its own ``__init__`` (see :data:`DEFERRED_INITS`), and by the plugin manager
only to list installed plugins. In ``guard``, ``check`` and ``validate``
processes (engine.cli) those modules are put in ``sys.modules`` as modules that hold only their
spec (and the package's attribute, for ``urllib.parse``): the first read of any other attribute
runs the module's code in them, as an import would have, so any code that uses one (a handler, a
plugin) sees no difference. The functions a module takes from one by ``from ... import`` when it
is imported (``pathlib``'s ``quote_from_bytes``) are there already, as functions that run the
module on their first call and then call its own.
(Not :class:`importlib.util.LazyLoader`: on this Python an ``import`` statement reads
``__spec__``, which loads its modules at once.) Nothing here runs in a process that imports the
engine as a library.
"""

from __future__ import annotations

import gc
import sys
import types

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEFERRED", "DEFERRED_INITS", "defer_init", "defer_stdlib", "hold_collection", "release_collection"]

DEFERRED = ("dataclasses", "inspect", "ipaddress", "urllib.parse", "importlib.metadata")
# What modules imported on a judging start take from a deferred one by name, at their import.
_TAKEN = {"urllib.parse": ("quote_from_bytes",)}
# Packages whose own ``__init__`` does work that the submodules a load imports never need:
# cerberus reads its own version from package metadata (importlib.metadata and an e-mail parser:
# with importlib.metadata's import, ~1% of the instructions of a cold ``validate`` of 1,000 tools);
# the engine imports only cerberus.validator and cerberus.schema. Deferred as the modules above
# when a one-shot process first reads a config (defer_init): its submodules import as usual, and
# the first read of any other attribute of the package (``cerberus.Validator``) runs its ``__init__``.
DEFERRED_INITS = ("cerberus",)


class _Deferred(types.ModuleType):
    """A module not run yet: its first missing attribute runs it (once) and is read from it."""

    def __getattr__(self, name: str) -> Any:
        if name == "__path__":
            # What ``from module import name`` asks first (is it a package?). A module's spec sets
            # its ``__path__`` when it is one, so for these it is missing after running them too.
            raise AttributeError(name)
        if "__path__" in vars(self) and _is_submodule(self, name):
            # ``from package import submodule``: missing here, so the import system imports it
            # (as it would before the package's own code set it), without running the package.
            raise AttributeError(name)
        _run(self)
        return getattr(self, name)


def _is_submodule(package: types.ModuleType, name: str) -> bool:
    try:
        import importlib.util  # noqa: PLC0415

        return importlib.util.find_spec(f"{package.__name__}.{name}") is not None
    except (ImportError, ValueError):
        return False


def _run(module: types.ModuleType) -> None:
    """Run a deferred module's code in it (once: it is an ordinary module from then on)."""
    if not isinstance(module, _Deferred):
        return
    spec = module.__spec__
    if spec is None or spec.loader is None:  # pragma: no cover - set by defer_stdlib
        raise AttributeError(module.__name__)
    module.__class__ = types.ModuleType  # type: ignore[assignment]  # from now on an ordinary module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(spec.name, None)  # the next import loads it as usual (and reports its error)
        raise


def defer_stdlib() -> None:
    """Put each of :data:`DEFERRED` not imported yet in ``sys.modules``, run on first use. Never raises:
    a module that cannot be deferred is left to the usual import."""
    _ACTIVE.append(True)
    for name in DEFERRED:
        _defer(name)


def defer_init(name: str) -> None:
    """In a one-shot process (after :func:`defer_stdlib`), just before the first import of one of
    :data:`DEFERRED_INITS`' submodules: the package in ``sys.modules`` with its own ``__init__`` not
    run yet (see :data:`DEFERRED_INITS`). Anywhere else, and when it is imported already, nothing."""
    if _ACTIVE and name in DEFERRED_INITS:
        _defer(name)


def _defer(name: str) -> None:
    if name in sys.modules:
        return
    try:
        import importlib.util  # noqa: PLC0415

        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _Deferred
        for taken in _TAKEN.get(name, ()):
            setattr(module, taken, _on_first_call(module, taken))
        parent, _, child = name.rpartition(".")
        sys.modules[name] = module
        if parent:  # what an import of the submodule does to its package
            setattr(sys.modules[parent], child, module)
    except Exception:
        sys.modules.pop(name, None)


_ACTIVE: list[bool] = []  # defer_stdlib ran: a one-shot process


def _on_first_call(module: types.ModuleType, name: str) -> Any:
    """``module.name`` for a module not run yet: the first call runs the module (which puts its own
    function in its place), and every call is passed on to the module's own."""

    def call(*args: Any, **kwargs: Any) -> Any:
        _run(module)
        return getattr(module, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


_HELD: list[bool] = []


def hold_collection() -> None:
    """No garbage collection while a judging process starts: what it imports and reads from the
    cache lives as long as the process, and each collection would walk all of it again (tens of
    them, several milliseconds of a warm ``guard``). See :func:`release_collection`."""
    if gc.isenabled() and not _HELD:
        gc.disable()
        _HELD.append(True)


def release_collection() -> None:
    """The start is over (the evaluator is built), or is not a warm one (the project is built from
    source): what exists now is kept out of every later collection (``gc.freeze``: it lives as long
    as the process), and collection is on again. Does nothing unless :func:`hold_collection` turned
    it off."""
    if _HELD:
        _HELD.clear()
        gc.freeze()
        gc.enable()
