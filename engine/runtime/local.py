"""``local``: commands run on the host, in the engine's working directory."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.runtime import hostproc
from engine.runtime.base import (
    DEFAULT_MAX_OUTPUT,
    RUN_MARKER,
    DirEntry,
    ExecResult,
    ProcessHandle,
    Runtime,
    RuntimeFailure,
    Session,
    host_shell,
)

LOG_LIMIT = 16 * 1024 * 1024


class HostRuntime(Runtime):
    """What ``local`` and ``sandbox`` share: host processes, host files, tracked background jobs."""

    shares_host_files = True

    def __init__(self, name: str, settings: Mapping[str, Any], session: Session) -> None:
        super().__init__(name, settings, session)
        self._procs: list[ProcessHandle] = []
        self._lock = threading.Lock()
        self._closed = False
        # Every run's marker starts with this: close() finds what runs left behind.
        self._marker_prefix = hostproc.new_marker() + "."

    def start(self) -> None:
        return None

    def argv(self, command: str, cwd: str) -> list[str]:
        """How ``command`` is started (the sandbox wraps it)."""
        return [host_shell(self.settings), "-c", command]

    def _run_dir(self, cwd: str | None) -> str:
        path = self.resolve(cwd) if cwd else self.workdir()
        if not os.path.isdir(path):
            raise RuntimeFailure(f"cwd {cwd!r} is not a directory")
        return path

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
        run_dir = self._run_dir(cwd)
        marker = hostproc.new_marker(self._marker_prefix)
        child_env = {**(env or {}), RUN_MARKER: marker}
        return hostproc.run(
            self.argv(command, run_dir),
            cwd=run_dir,
            env=child_env,
            timeout=timeout,
            stdin=stdin,
            max_output=max_output,
            marker=marker,
        )

    def spawn(
        self, command: str, *, log: Path, cwd: str | None = None, env: Mapping[str, str] | None = None
    ) -> ProcessHandle:
        run_dir = self._run_dir(cwd)
        marker = hostproc.new_marker(self._marker_prefix)
        with self._lock:
            if self._closed:
                raise RuntimeFailure("the runtime is closed")
            handle = hostproc.HostProcess(
                self.argv(command, run_dir),
                command,
                cwd=run_dir,
                env={**(env or {}), RUN_MARKER: marker},
                log=log,
                log_limit=int(self.settings.get("log_limit") or LOG_LIMIT),
                marker=marker,
            )
            self._procs.append(handle)
        return handle

    def read_file(self, path: str, max_bytes: int) -> bytes:
        real = self.resolve(path)
        try:
            with open(real, "rb") as handle:
                return handle.read(max_bytes)
        except IsADirectoryError:
            raise RuntimeFailure(f"{path!r} is a directory") from None
        except OSError as exc:
            raise RuntimeFailure(f"cannot read {path!r}: {exc.strerror or exc}") from None

    def write_file(self, path: str, data: bytes) -> None:
        real = Path(self.resolve(path))
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            real.write_bytes(data)
        except OSError as exc:
            raise RuntimeFailure(f"cannot write {path!r}: {exc.strerror or exc}") from None

    def list_dir(self, path: str) -> list[DirEntry]:
        real = self.resolve(path)
        try:
            entries = list(os.scandir(real))
        except OSError as exc:
            raise RuntimeFailure(f"cannot list {path!r}: {exc.strerror or exc}") from None
        out = []
        for entry in entries:
            if entry.is_symlink():
                out.append(DirEntry(entry.name, "link", 0, os.readlink(entry.path)))
            elif entry.is_dir():
                out.append(DirEntry(entry.name, "dir"))
            elif entry.is_file():
                out.append(DirEntry(entry.name, "file", entry.stat().st_size))
            else:
                out.append(DirEntry(entry.name, "other"))
        return out

    def close(self) -> None:
        with self._lock:
            self._closed = True
            procs, self._procs = self._procs, []
        for proc in procs:
            proc.kill()
        hostproc.kill_marked(self._marker_prefix, prefix=True)


class LocalRuntime(HostRuntime):
    """The host itself: the terminal's behaviour before runtimes existed."""

    type_name = "local"
