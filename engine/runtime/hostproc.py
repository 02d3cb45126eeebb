"""Processes on the host (the local and sandbox runtimes): run with a deadline, or in the background.

Output is read from a pipe as it comes, so a command that prints without end costs memory
up to the cap and no disk. A command is its own session leader; the process tree is ended
by its process group and by a marker in its environment, which children keep after
``setsid`` or a double fork (the sandbox adds a pid namespace, which ends them all).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from engine.runtime.base import RUN_MARKER, TIMEOUT_EXIT, ExecResult, ProcessHandle, RuntimeFailure
from engine.runtime.output import CappedLog, CappedOutput

_CHUNK = 65536
# After the command exits, output still buffered in the pipe is read for this long; a child
# it left in the background may keep the pipe open, and is not waited for.
_DRAIN_SECONDS = 0.05


def new_marker(prefix: str = "") -> str:
    """A marker for one run; ``prefix`` (a runtime's own) lets :func:`kill_marked` end all its runs."""
    return f"{prefix}{os.urandom(8).hex()}"


def kill_tree(proc: subprocess.Popen[bytes], marker: str | None) -> None:
    """SIGKILL the process group of ``proc`` and every process carrying ``marker``; reap ``proc``."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    if marker:
        for _ in range(3):  # a process may fork while the scan runs
            if not kill_marked(marker):
                break
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def kill_marked(marker: str, *, prefix: bool = False) -> int:
    """SIGKILL every process of this user whose environment holds ``RUN_MARKER=marker``
    (with ``prefix``: a value starting with ``marker``)."""
    killed = 0
    for pid in _marked(marker, prefix):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed


def _marked(marker: str, prefix: bool = False) -> Iterator[int]:
    """The processes of this user whose environment holds ``RUN_MARKER=marker`` (``prefix``: starting with it)."""
    needle = f"{RUN_MARKER}={marker}".encode()
    me = os.getpid()
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        found = environ.split(b"\0")
        if needle in found or (prefix and any(e.startswith(needle) for e in found)):
            yield int(entry.name)


def left_running(group: int, marker: str | None) -> bool:
    """(sess51) Whether a command that ended left processes running: members of its process group (``group``,
    its leader's pid: `cmd &`), or processes carrying its ``marker`` (`setsid cmd`, a double fork). A zombie
    counts: it may be a moment from its end, and what it wrote is on disk by then."""
    try:
        os.killpg(group, 0)
        return True
    except (ProcessLookupError, PermissionError, OSError):
        pass
    return marker is not None and next(_marked(marker), None) is not None


def _left(proc: subprocess.Popen[bytes], marker: str | None) -> Callable[[], bool] | None:
    """(sess51) After ``proc`` ended: a handle telling whether what it left behind still runs, None when nothing
    is left (a foreground line's `… &` keeps writing files after the call returned: SessionMemory.left_behind)."""
    group = proc.pid
    if not left_running(group, marker):
        return None
    return lambda: left_running(group, marker)


def _popen(argv: Sequence[str], cwd: str | None, env: Mapping[str, str], stdin: bool) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        raise RuntimeFailure(f"could not start {argv[0]}: {exc.strerror or exc}") from None


def run(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    timeout: float,
    stdin: bytes | None = None,
    max_output: int,
    marker: str | None = None,
    killer: Callable[[subprocess.Popen[bytes]], None] | None = None,
) -> ExecResult:
    """Run ``argv`` to its end or to ``timeout``; output and stderr together, capped.

    Raises:
        RuntimeFailure: the program could not be started.
    """
    proc = _popen(argv, cwd, env, stdin is not None)
    out = CappedOutput(max_output)
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        timed_out = not _pump(proc, out, stdin, deadline)
    finally:
        if timed_out or proc.poll() is None:
            (killer or (lambda p: kill_tree(p, marker)))(proc)
        for stream in (proc.stdout, proc.stdin):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
    if timed_out:
        return ExecResult(TIMEOUT_EXIT, out.text(), True, out.omitted)
    code = proc.returncode if proc.returncode is not None else -1
    return ExecResult(code, out.text(), False, out.omitted, left=_left(proc, marker))


def _pump(proc: subprocess.Popen[bytes], out: CappedOutput, stdin: bytes | None, deadline: float) -> bool:
    """Feed stdin and collect output until the process exits; False when the deadline passed first."""
    assert proc.stdout is not None
    selector = selectors.DefaultSelector()
    stdout_fd = proc.stdout.fileno()
    os.set_blocking(stdout_fd, False)
    selector.register(stdout_fd, selectors.EVENT_READ)
    pending = memoryview(stdin or b"")
    if proc.stdin is not None:
        stdin_fd = proc.stdin.fileno()
        if pending:
            os.set_blocking(stdin_fd, False)
            selector.register(stdin_fd, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
    exited_at: float | None = None
    try:
        while True:
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > _DRAIN_SECONDS:
                return True
            if now >= deadline:
                return exited_at is not None
            wait = deadline - now if exited_at is None else _DRAIN_SECONDS
            events = selector.select(min(wait, 0.05))
            for key, _ in events:
                if key.fd == stdout_fd:
                    try:
                        chunk = os.read(stdout_fd, _CHUNK)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        selector.unregister(stdout_fd)
                        remaining = deadline - time.monotonic()
                        if remaining <= 0:
                            return proc.poll() is not None
                        proc.wait(timeout=remaining)
                        return True
                    out.write(chunk)
                else:
                    try:
                        written = os.write(key.fd, pending[:_CHUNK])
                    except (BlockingIOError, InterruptedError):
                        continue
                    except BrokenPipeError:
                        written = len(pending)
                    pending = pending[written:]
                    if not pending:
                        selector.unregister(key.fd)
                        assert proc.stdin is not None
                        with contextlib.suppress(OSError):
                            proc.stdin.close()
    except subprocess.TimeoutExpired:
        return False
    finally:
        selector.close()


# How long a wait on an exited process lets the log copier catch up (a child holding the pipe
# open after its parent exited would otherwise keep the wait).
_DRAIN_SECONDS = 1.0


class HostProcess(ProcessHandle):
    """A background process on the host; a thread copies its output into the capped log."""

    def __init__(
        self,
        argv: Sequence[str],
        command: str,
        *,
        cwd: str | None,
        env: Mapping[str, str],
        log: Path,
        log_limit: int,
        marker: str | None,
    ) -> None:
        self.command = command
        self.log = log
        self._marker = marker
        self._sink = CappedLog(log, log_limit)
        self._proc = _popen(argv, cwd, env, stdin=True)
        self._stdin_lock = threading.Lock()
        self._reader = threading.Thread(target=self._copy, name=f"hermes-log-{self._proc.pid}", daemon=True)
        self._reader.start()

    def _copy(self) -> None:
        stream = self._proc.stdout
        assert stream is not None
        try:
            while chunk := os.read(stream.fileno(), _CHUNK):
                self._sink.write(chunk)
        except (OSError, ValueError):
            pass
        finally:
            self._sink.close()
            with contextlib.suppress(OSError):
                stream.close()

    @property
    def pid(self) -> int | None:
        return self._proc.pid

    def is_alive(self) -> bool:
        return self._proc.poll() is None

    @property
    def exit_code(self) -> int | None:
        return self._proc.poll()

    def wait(self, timeout: float) -> bool:
        try:
            self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        # The process has exited; what it wrote last may still be in the pipe. Let the copying
        # thread reach the end (it does at once unless a child left running holds the pipe open),
        # so a wait's tail holds the output (under load `echo bye; exit 3` returned an empty tail).
        self._reader.join(timeout=_DRAIN_SECONDS)
        return True

    def write(self, data: str) -> None:
        stdin = self._proc.stdin
        if stdin is None or self._proc.poll() is not None:
            raise RuntimeFailure("the process has exited; it cannot read input")
        with self._stdin_lock:
            try:
                stdin.write(data.encode("utf-8"))
                stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                raise RuntimeFailure("the process closed its input") from None

    def kill(self) -> None:
        kill_tree(self._proc, self._marker)
        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        self._reader.join(timeout=1)
