"""Standard modules a one-shot process imports but almost never uses, loaded on first use.

``dataclasses`` imports ``inspect`` (with ``ast``, ``dis``, ``tokenize``...: about a tenth of a
warm ``guard``) for one call, made only for a dataclass without a docstring; ``urllib.parse``
(which ``pathlib`` imports) imports ``ipaddress`` for one function. In ``guard``, ``check`` and
``validate`` processes (engine.cli) those modules are put in ``sys.modules`` as modules that
hold only their spec: the first read of any other attribute runs the module's code in them, as
an import would have, so any code that uses one (a handler, a plugin) sees no difference.
(Not :class:`importlib.util.LazyLoader`: on this Python an ``import`` statement reads
``__spec__``, which loads its modules at once.) Nothing here runs in a process that imports the
engine as a library.
"""

from __future__ import annotations

import gc
import sys
import types
from typing import Any

__all__ = ["DEFERRED", "defer_stdlib", "hold_collection", "release_collection"]

DEFERRED = ("inspect", "ipaddress")


class _Deferred(types.ModuleType):
    """A module not run yet: its first missing attribute runs it (once) and is read from it."""

    def __getattr__(self, name: str) -> Any:
        spec = self.__spec__
        if spec is None or spec.loader is None:  # pragma: no cover - set by defer_stdlib
            raise AttributeError(name)
        self.__class__ = types.ModuleType  # type: ignore[assignment]  # from now on an ordinary module
        try:
            spec.loader.exec_module(self)
        except BaseException:
            sys.modules.pop(spec.name, None)  # the next import loads it as usual (and reports its error)
            raise
        return getattr(self, name)


def defer_stdlib() -> None:
    """Put each of :data:`DEFERRED` not imported yet in ``sys.modules``, run on first use. Never raises:
    a module that cannot be deferred is left to the usual import."""
    try:
        import importlib.util  # noqa: PLC0415
    except Exception:  # pragma: no cover - the standard library is there
        return
    for name in DEFERRED:
        if name in sys.modules:
            continue
        try:
            spec = importlib.util.find_spec(name)
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                continue
            module = importlib.util.module_from_spec(spec)
            module.__class__ = _Deferred
            sys.modules[name] = module
        except Exception:
            sys.modules.pop(name, None)


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
