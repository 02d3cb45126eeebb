"""Runtimes: where the terminal, process, file and code tools run (see :mod:`engine.runtime.base`).

``local`` is the host; ``sandbox`` a bubblewrap box on the host; ``docker`` a container per
session; ``ssh`` a remote host. A plugin adds a type with :meth:`RuntimeTypes.register`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_WHERE = {
    **dict.fromkeys(
        (
            "TIMEOUT_EXIT",
            "DirEntry",
            "ExecResult",
            "ProcessHandle",
            "Runtime",
            "RuntimeFailure",
            "RuntimeUnavailable",
            "Session",
        ),
        "base",
    ),
    **dict.fromkeys(("RuntimeManager", "RuntimeRef"), "manager"),
    **dict.fromkeys(("DEFAULT", "LOCAL", "LOCAL_SPEC", "RuntimeSpec", "RuntimeType", "RuntimeTypes"), "registry"),
}


def __getattr__(name: str) -> Any:
    # Imported on first use: the policy layer reads engine.runtime.code (how a program is run
    # inline) without paying for asyncio and the runtimes themselves.
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'engine.runtime' has no attribute {name!r}")
    from importlib import import_module  # noqa: PLC0415

    value = getattr(import_module(f"engine.runtime.{module}"), name)
    globals()[name] = value
    return value
