"""The shell around a command on another machine (container or ssh host).

The wrapper changes to the command's directory, runs the command in the same shell (so
``cd`` is seen), and on the way out prints a trailer line: a nonce, the exit code and the
directory it ended in. The engine reads output until that line, so a child left in the
background (which keeps the output stream open) does not hold the call. Without a trailer
(the shell was killed or replaced by ``exec``) the runtime's own exit code is used and
the directory is unchanged.

The timeout and close find the command's processes by a marker in their environment,
which survives ``setsid`` and double forks, and kill them with a script of POSIX shell and
``grep -z`` (busybox and GNU grep both have it).
"""

from __future__ import annotations

import os
import re
from typing import Protocol

from engine.runtime.base import RUN_MARKER


class Sink(Protocol):
    def write(self, data: bytes) -> None: ...


WRAPPER = (
    "__hermes_n=$1; __hermes_d=$2; __hermes_c=$3; shift 3; "
    'cd -- "$__hermes_d" 2>/dev/null || '
    '{ printf "cannot change to %s: no such directory\\n" "$__hermes_d"; exit 126; }; '
    'trap \'__hermes_rc=$?; printf "\\n%s %s %s\\n" "$__hermes_n" "$__hermes_rc" "$(pwd -P)"\' EXIT; '
    'unset __hermes_d; eval "$__hermes_c"'
)
# (stop 58) With no shell named, the wrapper runs in bash where the machine has one (the shell the policies read every
# line as: a container's or a host's /bin/sh may be dash or busybox's ash, which read `$'…'`, `[[`, `x+=` otherwise),
# else in /bin/sh: this starts it with the wrapper as its $0 and the wrapper's arguments after.
_BASH_OR_SH = (
    'if command -v bash >/dev/null 2>&1; then exec bash -c "$0" hermes "$@"; fi; exec /bin/sh -c "$0" hermes "$@"'
)
_MARKER = re.compile(r"^[A-Za-z0-9._-]+$")


def nonce() -> str:
    return "__hermes_" + os.urandom(10).hex()


def wrap(command: str, cwd: str, token: str, shell: str | None = None) -> list[str]:
    """argv that runs ``command`` in ``cwd`` and ends with the trailer for ``token`` (in ``shell``; None: bash where
    there is one, else /bin/sh)."""
    if shell is None:
        return ["/bin/sh", "-c", _BASH_OR_SH, WRAPPER, token, cwd, command]
    return [shell, "-c", WRAPPER, "hermes", token, cwd, command]


def quote(text: str) -> str:
    """``text`` as one single-quoted shell word (any character but NUL)."""
    return "'" + text.replace("'", "'\\''") + "'"


def kill_script(marker: str, *, prefix: bool = False) -> str:
    """A script that SIGKILLs every process whose environment holds ``RUN_MARKER=marker`` and
    prints how many it killed (with ``prefix``: every marker starting with ``marker``)."""
    if not _MARKER.match(marker):
        raise ValueError("unsafe marker")
    pattern = f"^{RUN_MARKER}={re.escape(marker)}" + ("" if prefix else "$")
    return (
        f"n=0; for f in $(grep -lsz -e {quote(pattern)} /proc/[0-9]*/environ 2>/dev/null); do "
        'p=${f#/proc/}; kill -9 "${p%/environ}" 2>/dev/null && n=$((n+1)); done; echo "$n"'
    )


class TrailerScanner:
    """Feeds a command's output into ``out`` until the trailer line for ``token`` arrives.

    Only a tail that could be the start of the trailer is held back, so a background
    process's log shows its output as it comes.
    """

    def __init__(self, out: Sink, token: str) -> None:
        self.out = out
        self.needle = f"\n{token} ".encode()
        self.hold = bytearray()
        self.exit_code: int | None = None
        self.cwd: str | None = None
        self.done = False

    def feed(self, data: bytes) -> bool:
        """Take more output; True once the trailer was seen (what follows it is kept as output)."""
        if self.done:
            self.out.write(data)
            return True
        self.hold += data
        at = self.hold.find(self.needle)
        if at < 0:
            keep = self._partial()
            if len(self.hold) > keep:
                self.out.write(bytes(self.hold[: len(self.hold) - keep]))
                del self.hold[: len(self.hold) - keep]
            return False
        if at:
            self.out.write(bytes(self.hold[:at]))
            del self.hold[:at]
        end = self.hold.find(b"\n", len(self.needle))
        if end < 0:
            if len(self.hold) > len(self.needle) + 8192:  # not a trailer after all
                self.out.write(bytes(self.hold))
                self.hold.clear()
            return False
        line = self.hold[len(self.needle) : end].decode("utf-8", errors="replace")
        code, _, cwd = line.partition(" ")
        if code.lstrip("-").isdigit():
            self.exit_code = int(code)
            self.cwd = cwd or None
        self.out.write(bytes(self.hold[end + 1 :]))
        self.hold.clear()
        self.done = True
        return True

    def _partial(self) -> int:
        """The length of the longest tail of ``hold`` that begins the needle."""
        for size in range(min(len(self.needle) - 1, len(self.hold)), 0, -1):
            if self.hold.endswith(self.needle[:size]):
                return size
        return 0

    def finish(self) -> None:
        """The stream ended: whatever is held back is output."""
        if not self.done and self.hold:
            self.out.write(bytes(self.hold))
            self.hold.clear()
