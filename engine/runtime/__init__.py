"""Runtimes: where the terminal, process, file and code tools run (see :mod:`engine.runtime.base`).

``local`` is the host; ``sandbox`` a bubblewrap box on the host; ``docker`` a container per
session; ``ssh`` a remote host. A plugin adds a type with :meth:`RuntimeTypes.register`.

The names below are imported on first use: a load that only checks manifests (``validate``)
reads :mod:`engine.runtime.registry` and :mod:`engine.runtime.manifest`, never the runtimes
themselves (their event loop thread imports asyncio: ~4% of the instructions of a cold ``validate``).
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # not typing's: importing the package costs nothing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

    from engine.runtime.base import (
        TIMEOUT_EXIT,
        DirEntry,
        ExecResult,
        ProcessHandle,
        Runtime,
        RuntimeFailure,
        RuntimeUnavailable,
        Session,
    )
    from engine.runtime.manager import RuntimeManager, RuntimeRef
    from engine.runtime.registry import DEFAULT, LOCAL, LOCAL_SPEC, RuntimeSpec, RuntimeType, RuntimeTypes

_FROM = {
    "TIMEOUT_EXIT": "base",
    "DirEntry": "base",
    "ExecResult": "base",
    "ProcessHandle": "base",
    "Runtime": "base",
    "RuntimeFailure": "base",
    "RuntimeUnavailable": "base",
    "Session": "base",
    "RuntimeManager": "manager",
    "RuntimeRef": "manager",
    "DEFAULT": "registry",
    "LOCAL": "registry",
    "LOCAL_SPEC": "registry",
    "RuntimeSpec": "registry",
    "RuntimeType": "registry",
    "RuntimeTypes": "registry",
}

__all__ = [
    "DEFAULT",
    "LOCAL",
    "LOCAL_SPEC",
    "TIMEOUT_EXIT",
    "DirEntry",
    "ExecResult",
    "ProcessHandle",
    "Runtime",
    "RuntimeFailure",
    "RuntimeManager",
    "RuntimeRef",
    "RuntimeSpec",
    "RuntimeType",
    "RuntimeTypes",
    "RuntimeUnavailable",
    "Session",
]


def __getattr__(name: str) -> Any:
    module = _FROM.get(name)
    if module is None:  # a submodule (``from engine.runtime import output``) is imported as such
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
