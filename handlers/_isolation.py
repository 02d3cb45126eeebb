"""Keeping the engine's own process out of its children's reach.

A child runs as the same user as the engine, so by default it may read
``/proc/<engine pid>/environ`` (the engine's API keys) or attach a debugger to it.

- Before it starts a child, the engine marks itself non-dumpable: its ``/proc/<pid>/``
  files then belong to root, and a same-user process needs ``CAP_SYS_PTRACE`` (or
  ``CAP_SYS_ADMIN``/``CAP_PERFMON``, which Linux also accepts for reading) to open them.
  The mark stays for the life of the process, since a child may outlive the call that
  started it; it also means no core dumps and no same-user debugger (gdb, py-spy).
- An engine running as root holds those capabilities, and so would its children. A command
  on the host is therefore started from a thread of its own that first drops them from its
  capability bounding set: nothing it executes can ever hold them again, while the engine
  and its other threads keep theirs. Such commands cannot mount or trace (as root).

Elsewhere (macOS) neither exists; the sandbox runtime is the answer there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_PR_SET_DUMPABLE = 4
_PR_CAPBSET_READ = 23
_PR_CAPBSET_DROP = 24
# CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_PERFMON: each lets a process read another's environ.
_READERS = (21, 19, 38)

_lock = threading.Lock()
_marked = False


def _load_prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None
    function = libc.prctl
    function.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    function.restype = ctypes.c_int
    return function


_PRCTL = _load_prctl()


def mark_host() -> None:
    """Make this process's ``/proc`` files unreadable to its children (once, for good)."""
    global _marked
    if _PRCTL is None or _marked:
        return
    with _lock:
        if not _marked:
            _PRCTL(_PR_SET_DUMPABLE, 0, 0, 0, 0)
            _marked = True


def _holds_reader_caps() -> bool:
    return _PRCTL is not None and any(_PRCTL(_PR_CAPBSET_READ, cap, 0, 0, 0) == 1 for cap in _READERS)


def spawn_isolated(start: Callable[[], T]) -> T:
    """Run ``start`` (which starts a child and may wait for it) so the child cannot read the engine.

    Raises:
        whatever ``start`` raises.
    """
    mark_host()
    if not _holds_reader_caps():
        return start()
    outcome: list[Any] = []

    def run() -> None:
        try:
            for cap in _READERS:
                _PRCTL(_PR_CAPBSET_DROP, cap, 0, 0, 0)
            outcome.append((True, start()))
        except BaseException as exc:  # handed back to the caller's thread
            outcome.append((False, exc))

    thread = threading.Thread(target=run, name="hermes-spawn", daemon=True)
    thread.start()
    thread.join()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]
