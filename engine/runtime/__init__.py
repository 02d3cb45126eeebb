"""Runtimes: where the terminal, process, file and code tools run (see :mod:`engine.runtime.base`).

``local`` is the host; ``sandbox`` a bubblewrap box on the host; ``docker`` a container per
session; ``ssh`` a remote host. A plugin adds a type with :meth:`RuntimeTypes.register`.
"""

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
