"""The runtime interface: where commands, processes and files of a session live.

A runtime is one session's view of a machine: the host (``local``), a bubblewrap box on
the host (``sandbox``), a container (``docker``) or a remote host (``ssh``). Every type
keeps the same contract, so the tools above it never ask which one they have:

- ``exec`` returns the exit code and the (capped) output; past its timeout the whole
  process tree is ended, ``setsid`` children included, and the exit code is 124;
- the environment a command sees is the one it is given, nothing of the engine's own;
- ``close`` ends every process and removes every container the runtime started.

A runtime that cannot work raises :class:`RuntimeUnavailable` with the reason; it never
falls back to running somewhere else.
"""

from __future__ import annotations

import abc
import os
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from engine.errors import HermesError
from engine.runtime.loop import LoopThread

TIMEOUT_EXIT = 124
DEFAULT_MAX_OUTPUT = 5 * 1024 * 1024
# Set in every command a remote runtime runs: how the timeout finds the command's
# processes again after they left its process group (setsid, double fork).
RUN_MARKER = "HERMES_ENGINE_RUN"
# Variables that describe the host; a container or a remote host has its own.
HOST_ONLY_ENV = frozenset({"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "PWD", "OLDPWD", "MAIL"})


class RuntimeUnavailable(HermesError):
    """The runtime cannot run anything here; ``reason`` says why, for the model and the user."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RuntimeFailure(HermesError):
    """One operation failed (a missing file, a lost connection); the runtime itself still works."""


@dataclass(frozen=True, slots=True)
class ExecResult:
    exit_code: int
    output: str
    timed_out: bool = False
    omitted: int = 0  # bytes of output dropped from the middle
    cwd: str | None = None  # where the session is after the command (runtimes that track it)
    # (sess51) the command ended but processes it started still run (`(sleep 1; sed -i … x.sh) >/dev/null 2>&1 &`,
    # `setsid …`): whether they still do (hostproc.left_running); None: none left, or not known here
    left: Callable[[], bool] | None = field(default=None, compare=False, repr=False)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"exit_code": self.exit_code, "output": self.output}
        if self.timed_out:
            out["timed_out"] = True
        return out


@dataclass(frozen=True, slots=True)
class DirEntry:
    name: str
    kind: str  # "file", "dir", "link", "other"
    size: int = 0
    target: str | None = None  # of a symlink


class ProcessHandle(abc.ABC):
    """A background process: its output goes to ``log`` on the host as it arrives."""

    command: str
    log: Path

    @property
    @abc.abstractmethod
    def pid(self) -> int | None:
        """The process id where it runs (None when the runtime cannot tell)."""

    @abc.abstractmethod
    def is_alive(self) -> bool: ...

    @property
    @abc.abstractmethod
    def exit_code(self) -> int | None: ...

    @abc.abstractmethod
    def wait(self, timeout: float) -> bool:
        """True once the process has exited (within ``timeout`` seconds)."""

    @abc.abstractmethod
    def write(self, data: str) -> None:
        """Send ``data`` to the process's stdin.

        Raises:
            RuntimeFailure: the process has exited or its stdin is closed.
        """

    @abc.abstractmethod
    def kill(self) -> None:
        """End the process and everything it started; waits until they are gone (bounded)."""


@dataclass(frozen=True, slots=True)
class Session:
    """Who a runtime instance serves: one session of one engine."""

    session_id: str
    workdir: Path  # the engine's working directory on the host
    state_dir: Path  # where host-side logs go
    # The engine's own files (config, manifests, policies, handlers): never writable from a runtime.
    protected: tuple[Path, ...] = ()
    # The engine's state (audit log, grants): not even readable from a runtime.
    hidden: tuple[Path, ...] = ()
    # The manager's background loop, for runtimes that hold connections.
    loop: LoopThread | None = field(default=None, compare=False)


class Runtime(abc.ABC):
    """One session's runtime. Created by the manager, used from handler threads."""

    #: The ``type:`` of a Runtime manifest this class implements.
    type_name: ClassVar[str] = ""
    #: Whether paths are the host's own (file tools then use the host's confinement).
    shares_host_files: ClassVar[bool] = False

    def __init__(self, name: str, settings: Mapping[str, Any], session: Session) -> None:
        self.name = name
        self.settings = settings
        self.session = session

    @classmethod
    def check(cls, settings: Mapping[str, Any]) -> str | None:
        """Why this type cannot work on this machine with these settings (None: it can).

        Cheap and side-effect free: it is asked for tool availability (and cached).
        """
        return None

    @abc.abstractmethod
    def start(self) -> None:
        """Prepare the runtime (connect, create the container); idempotent.

        Raises:
            RuntimeUnavailable: it cannot start here.
        """

    @abc.abstractmethod
    def exec(
        self,
        command: str,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float,
        stdin: bytes | None = None,
        max_output: int = DEFAULT_MAX_OUTPUT,
    ) -> ExecResult:
        """Run ``command`` with ``SHELL -c`` and wait for it (at most ``timeout`` seconds); SHELL is the manifest's
        `shell`, by default bash where the machine has it, else /bin/sh (host_shell, shellwrap.wrap).

        Raises:
            RuntimeUnavailable: the runtime cannot run commands now.
            RuntimeFailure: ``cwd`` does not exist, or the command could not be started.
        """

    @abc.abstractmethod
    def spawn(
        self, command: str, *, log: Path, cwd: str | None = None, env: Mapping[str, str] | None = None
    ) -> ProcessHandle:
        """Start ``command`` in the background; its output goes to ``log`` (capped).

        Raises:
            RuntimeUnavailable: the runtime cannot run commands now.
        """

    @abc.abstractmethod
    def read_file(self, path: str, max_bytes: int) -> bytes:
        """The first ``max_bytes`` bytes of a file in the runtime.

        Raises:
            RuntimeFailure: no such file, a directory, or unreadable.
        """

    @abc.abstractmethod
    def write_file(self, path: str, data: bytes) -> None:
        """Replace (or create) a file in the runtime, creating its parent folders.

        Raises:
            RuntimeFailure: the file cannot be written.
        """

    @abc.abstractmethod
    def list_dir(self, path: str) -> list[DirEntry]:
        """The entries of a folder in the runtime.

        Raises:
            RuntimeFailure: no such folder.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """End every process and remove every resource this runtime started. Never raises."""

    # -- paths -----------------------------------------------------------------------

    def workdir(self) -> str:
        """The runtime's working directory, as a path inside the runtime."""
        return str(self.session.workdir)

    def resolve(self, path: str) -> str:
        """``path`` (relative to the working directory) as a normalised absolute path in the runtime."""
        joined = path if path.startswith("/") else posixpath.join(self.workdir(), path)
        return posixpath.normpath(joined)


# (stop 58) The shell a host runtime runs commands with when its manifest names none: bash, the shell the policies
# read every line as (shell.Analyzer models bash). /bin/sh is dash on Debian, which reads the same text differently:
# `echo $'a\' ; rm -rf ~ # \''` is one echo word in bash and an `rm` in dash, `x+=.bak` and `declare` change nothing
# there, its echo decodes `\c` and `\0NNN` (adv58): a line judged as bash must run in bash. /bin/sh only where no
# bash is installed (a container's and an ssh host's: shellwrap.wrap).
_HOST_SHELLS = ("/bin/bash", "/usr/bin/bash")


def host_shell(settings: Mapping[str, Any]) -> str:
    """The shell a host runtime (local, sandbox) starts commands with: the manifest's `shell`, else bash."""
    configured = settings.get("shell")
    if configured:
        return str(configured)
    return next((path for path in _HOST_SHELLS if os.access(path, os.X_OK)), "/bin/sh")


def remote_env(env: Mapping[str, str] | None, extra: Mapping[str, str]) -> dict[str, str]:
    """The variables a command on another machine gets: the runtime's own (``extra``), plus
    the sanitised ones that are not about the host (language, terminal, time zone, allowlisted)."""
    out = {k: v for k, v in (env or {}).items() if k not in HOST_ONLY_ENV}
    out.update(extra)
    return out


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one of another user counts: it cannot be signalled)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
