"""``ssh``: a remote host over one asyncssh connection per session.

Opening an exec channel costs sshd a fork and a login shell (~120 ms on loopback), so
commands go to a long-lived ``/bin/sh`` on a channel of its own (a "control shell"), one
per concurrent command, reused: a command is one line written to it, and its end is a
line with a fresh nonce that the control shell prints after the command's wrapper
(:mod:`engine.runtime.shellwrap`) exits. Files go through one SFTP channel.

The connection sends keep-alives; when it is found dead (the server restarted, the
network went), the next call connects again. A timeout kills the command's processes by
their marker from a second channel.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import getpass
import os
import re
import signal
import socket
import threading
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.runtime import shellwrap
from engine.runtime.base import (
    DEFAULT_MAX_OUTPUT,
    RUN_MARKER,
    TIMEOUT_EXIT,
    DirEntry,
    ExecResult,
    ProcessHandle,
    Runtime,
    RuntimeFailure,
    RuntimeUnavailable,
    Session,
    remote_env,
)
from engine.runtime.loop import LoopThread
from engine.runtime.output import CappedLog, CappedOutput

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SPAWN_SETTLE = 2.0  # how long after a spawn close keeps sweeping for its not-yet-started process
_GRACE = 5.0  # after a kill, how long the control shell has to report the command's end


def expand(value: Any) -> str:
    """``${NAME}`` in a manifest value replaced from the engine's environment.

    Raises:
        RuntimeUnavailable: a named variable is not set.
    """
    text = str(value)

    def sub(match: re.Match[str]) -> str:
        found = os.environ.get(match.group(1))
        if not found:
            raise RuntimeUnavailable(f"environment variable {match.group(1)} is not set")
        return found

    return _ENV_REF.sub(sub, text)


def _asyncssh() -> Any:
    try:
        with warnings.catch_warnings():
            # cryptography 51 deprecates DSA, and asyncssh (2.24) names its DSA key types when it is imported: a
            # warning about a key type nobody here uses, which a host running with `-W error` would see as the
            # runtime failing to load.
            warnings.filterwarnings("ignore", message="DSA is deprecated", category=UserWarning)
            import asyncssh  # noqa: PLC0415  (an optional dependency)
    except ImportError:
        raise RuntimeUnavailable("the ssh runtime needs asyncssh: pip install 'hermes-engine[ssh]'") from None
    return asyncssh


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


class _Chain:
    """Adapts a scanner to the sink interface, so the control marker and the wrapper's trailer
    can be peeled off one stream in turn."""

    def __init__(self, scanner: shellwrap.TrailerScanner) -> None:
        self.scanner = scanner

    def write(self, data: bytes) -> None:
        self.scanner.feed(data)


class _Control:
    """A ``/bin/sh`` reading command lines from its channel."""

    def __init__(self, process: Any) -> None:
        self.process = process

    @property
    def alive(self) -> bool:
        return self.process.exit_status is None and not self.process.stdout.at_eof()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.process.close()


def _assignments(env: Mapping[str, str]) -> str:
    return " ".join(f"{k}={shellwrap.quote(v)}" for k, v in env.items() if _NAME.match(k))


def _wrapped(command: str, run_dir: str, token: str, shell: str | None) -> str:
    return " ".join(shellwrap.quote(a) for a in shellwrap.wrap(command, run_dir, token, shell))


class SshRuntime(Runtime):
    type_name = "ssh"

    def __init__(self, name: str, settings: Mapping[str, Any], session: Session) -> None:
        super().__init__(name, settings, session)
        self._own_loop = session.loop is None
        self._loop = session.loop or LoopThread(f"hermes-ssh-{name}")
        self._conn: Any = None
        self._sftp: Any = None
        self._idle: list[_Control] = []
        self._procs: list[SshProcess] = []
        self._lock = threading.Lock()
        self._connecting: asyncio.Lock | None = None
        self._workdir: str | None = None
        self._cwd: str | None = None
        self._prefix = shellwrap.nonce()[9:21] + "."
        self._closed = False

    @classmethod
    def check(cls, settings: Mapping[str, Any]) -> str | None:
        try:
            _asyncssh()
            for field in ("host", "user", "key", "port"):
                if settings.get(field) is not None:
                    expand(settings[field])
            host, port = expand(settings["host"]), int(expand(settings.get("port") or 22))
        except RuntimeUnavailable as exc:
            return exc.reason
        # Reachable at all? (a TCP connect, bounded; the login itself is tried on first use)
        try:
            socket.create_connection(
                (host, port), timeout=min(3.0, float(settings.get("connect_timeout") or 10))
            ).close()
        except OSError as exc:
            return f"cannot reach {host}:{port}: {exc.strerror or exc}"
        return None

    # -- the connection ------------------------------------------------------------------

    def _options(self) -> dict[str, Any]:
        settings = self.settings
        key = settings.get("key")
        known = settings.get("known_hosts")
        options: dict[str, Any] = {
            "host": expand(settings["host"]),
            "port": int(expand(settings.get("port") or 22)),
            "username": expand(settings.get("user") or getpass.getuser()),
            "known_hosts": os.path.expanduser(expand(known)) if known else os.path.expanduser("~/.ssh/known_hosts"),
            "keepalive_interval": float(settings.get("keepalive") or 15),
            "keepalive_count_max": 3,
            "connect_timeout": float(settings.get("connect_timeout") or 10),
        }
        if key:
            options["client_keys"] = [os.path.expanduser(expand(key))]
            options["agent_path"] = None
        return options

    async def _connection(self) -> Any:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            conn = self._conn
            if conn is not None and not conn.is_closed():
                return conn
            self._drop_connection()
            asyncssh = _asyncssh()
            options = self._options()
            where = f"{options['username']}@{options['host']}:{options['port']}"
            try:
                conn = await asyncssh.connect(**options)
            except (OSError, asyncssh.Error, ValueError) as exc:
                raise RuntimeUnavailable(f"cannot connect to {where}: {_short(exc)}") from None
            self._conn = conn
            if self._workdir is None:
                self._workdir = await self._prepare_workdir(conn)
            return conn

    def _drop_connection(self) -> None:
        for control in self._idle:
            control.close()
        self._idle.clear()
        self._sftp = None
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None

    async def _prepare_workdir(self, conn: Any) -> str:
        wanted = str(self.settings.get("workdir") or ".")
        script = f"mkdir -p -- {shellwrap.quote(wanted)} && cd -- {shellwrap.quote(wanted)} && pwd -P"
        result = await conn.run("/bin/sh", input=script, check=False)
        path = str(result.stdout or "").strip()
        if result.exit_status != 0 or not path.startswith("/"):
            raise RuntimeUnavailable(f"cannot use {wanted!r} as the remote working directory: {result.stderr!s}")
        return path

    def start(self) -> None:
        if self._closed:
            raise RuntimeUnavailable("the runtime is closed")
        self._loop.run(self._connection(), timeout=float(self.settings.get("connect_timeout") or 10) + 30)

    def workdir(self) -> str:
        return self._workdir or str(self.settings.get("workdir") or ".")

    async def _control(self) -> _Control:
        for attempt in (0, 1):
            conn = await self._connection()
            while self._idle:
                control = self._idle.pop()
                if control.alive:
                    return control
                control.close()
            try:
                process = await conn.create_process("/bin/sh", encoding=None)
            except Exception as exc:
                if attempt or not conn.is_closed():
                    raise RuntimeFailure(f"cannot open a channel to the ssh host: {_short(exc)}") from None
                continue  # the connection died under us: connect again once
            return _Control(process)
        raise AssertionError("unreachable")

    # -- exec ----------------------------------------------------------------------------

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
        if self._closed:
            raise RuntimeUnavailable("the runtime is closed")
        return self._loop.run(self._exec(command, cwd, env, timeout, stdin, max_output))

    async def _exec(
        self,
        command: str,
        cwd: str | None,
        env: Mapping[str, str] | None,
        timeout: float,
        stdin: bytes | None,
        max_output: int,
    ) -> ExecResult:
        control = await self._control()
        token, ctrl = shellwrap.nonce(), shellwrap.nonce()
        marker = self._prefix + token[9:]
        run_dir = self.resolve(cwd) if cwd else (self._cwd or self.workdir())
        child_env = {**remote_env(env, self.settings.get("env") or {}), RUN_MARKER: marker}
        shell = str(self.settings["shell"]) if self.settings.get("shell") else None
        run = f"{_assignments(child_env)} {_wrapped(command, run_dir, token, shell)}"
        report = f"printf '\\n%s %s\\n' {ctrl} \"$?\""
        if stdin is None:
            line = f"{run} </dev/null 2>&1; {report}\n"
        else:  # the input travels in a here-document, base64 so that any byte can
            body = base64.encodebytes(stdin).decode("ascii")
            line = f"base64 -d <<'{ctrl}_in' | {run} 2>&1; {report}\n{body}{ctrl}_in\n"
        out = CappedOutput(max_output)
        trailer = shellwrap.TrailerScanner(out, token)
        done = shellwrap.TrailerScanner(_Chain(trailer), ctrl)
        deadline = time.monotonic() + timeout
        try:
            control.process.stdin.write(line.encode())
            finished = await self._pump(control, done, deadline)
        except (OSError, EOFError, ConnectionError) as exc:
            control.close()
            raise RuntimeFailure(
                f"the connection to the ssh host was lost while the command ran ({_short(exc)}); "
                "it may or may not have completed"
            ) from None
        if not finished:
            await self._kill(marker)
            if not await self._pump(control, done, time.monotonic() + _GRACE):
                control.close()
                control = None  # type: ignore[assignment]
        if control is not None:
            self._idle.append(control)
        done.finish()
        trailer.finish()
        if not finished:
            return ExecResult(TIMEOUT_EXIT, out.text(), True, out.omitted, self._cwd or self.workdir())
        code = trailer.exit_code if trailer.exit_code is not None else done.exit_code
        if trailer.cwd:
            self._cwd = trailer.cwd
        return ExecResult(code if code is not None else -1, out.text(), False, out.omitted, self._cwd or self.workdir())

    async def _pump(self, control: _Control, done: shellwrap.TrailerScanner, deadline: float) -> bool:
        stdout = control.process.stdout
        while (left := deadline - time.monotonic()) > 0:
            try:
                data = await asyncio.wait_for(stdout.read(65536), left)
            except TimeoutError:
                return False
            if not data:
                raise EOFError("the control shell closed")
            if done.feed(data):
                return True
        return False

    async def _kill(self, marker: str, *, prefix: bool = False) -> None:
        conn = self._conn
        if conn is None or conn.is_closed():
            return
        script = shellwrap.kill_script(marker, prefix=prefix)
        for _ in range(3):
            try:
                result = await asyncio.wait_for(conn.run("/bin/sh", input=script, check=False), 30)
            except Exception:
                return
            if str(result.stdout or "").strip() in ("", "0"):
                return

    # -- background processes ---------------------------------------------------------

    def spawn(
        self, command: str, *, log: Path, cwd: str | None = None, env: Mapping[str, str] | None = None
    ) -> ProcessHandle:
        if self._closed:
            raise RuntimeUnavailable("the runtime is closed")
        token = shellwrap.nonce()
        marker = self._prefix + token[9:]
        run_dir = self.resolve(cwd) if cwd else (self._cwd or self.workdir())
        child_env = {**remote_env(env, self.settings.get("env") or {}), RUN_MARKER: marker}
        shell = str(self.settings["shell"]) if self.settings.get("shell") else None
        exports = _assignments(child_env)
        script = (f"export {exports}; " if exports else "") + f"exec {_wrapped(command, run_dir, token, shell)} 2>&1"
        # Its own channel, started with the command: input written to a shell that is about to
        # exec could be read by that shell and lost.
        remote = f"exec /bin/sh -c {shellwrap.quote(script)}"
        sink = CappedLog(log, int(self.settings.get("log_limit") or 16 * 1024 * 1024))

        async def open_process() -> SshProcess:
            conn = await self._connection()
            try:
                process = await conn.create_process(remote, encoding=None)
            except Exception as exc:
                raise RuntimeFailure(f"cannot open a channel to the ssh host: {_short(exc)}") from None
            return SshProcess(self, _Control(process), command, token, marker, log, sink)

        proc = self._loop.run(open_process())
        with self._lock:
            self._procs.append(proc)
        return proc

    # -- files -------------------------------------------------------------------------

    async def _sftp_client(self) -> Any:
        conn = await self._connection()
        if self._sftp is None:
            try:
                self._sftp = await conn.start_sftp_client()
            except Exception as exc:
                raise RuntimeFailure(f"the ssh host does not offer SFTP: {_short(exc)}") from None
        return self._sftp

    def _files(self, operation: Any) -> Any:
        asyncssh = _asyncssh()

        async def run() -> Any:
            sftp = await self._sftp_client()
            try:
                return await operation(sftp)
            except asyncssh.SFTPError as exc:
                raise RuntimeFailure(exc.reason or _short(exc)) from None

        if self._closed:
            raise RuntimeUnavailable("the runtime is closed")
        return self._loop.run(run(), timeout=120)

    def read_file(self, path: str, max_bytes: int) -> bytes:
        real = self.resolve(path)

        async def read(sftp: Any) -> bytes:
            if await sftp.isdir(real):
                raise RuntimeFailure(f"{path!r} is a directory")
            async with sftp.open(real, "rb") as handle:
                data: bytes = await handle.read(max_bytes)
                return data

        result: bytes = self._files(read)
        return result

    def write_file(self, path: str, data: bytes) -> None:
        real = self.resolve(path)

        async def write(sftp: Any) -> None:
            parent = real.rsplit("/", 1)[0] or "/"
            await sftp.makedirs(parent, exist_ok=True)
            temp = f"{real}.hermes-tmp.{os.urandom(4).hex()}"
            async with sftp.open(temp, "wb") as handle:
                await handle.write(data)
            try:
                await sftp.posix_rename(temp, real)
            except Exception:
                with contextlib.suppress(Exception):
                    await sftp.remove(temp)
                raise

        self._files(write)

    def list_dir(self, path: str) -> list[DirEntry]:
        real = self.resolve(path)
        asyncssh = _asyncssh()

        async def listing(sftp: Any) -> list[DirEntry]:
            out = []
            for item in await sftp.readdir(real):
                name = str(item.filename)
                if name in (".", ".."):
                    continue
                kind = item.attrs.type
                if kind == asyncssh.FILEXFER_TYPE_SYMLINK:
                    target = await sftp.readlink(f"{real}/{name}")
                    out.append(DirEntry(name, "link", 0, str(target)))
                elif kind == asyncssh.FILEXFER_TYPE_DIRECTORY:
                    out.append(DirEntry(name, "dir"))
                elif kind == asyncssh.FILEXFER_TYPE_REGULAR:
                    out.append(DirEntry(name, "file", int(item.attrs.size or 0)))
                else:
                    out.append(DirEntry(name, "other"))
            return out

        result: list[DirEntry] = self._files(listing)
        return result

    # -- the end -----------------------------------------------------------------------

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._lock:
            procs, self._procs = self._procs, []

        async def finish() -> None:
            await self._kill(self._prefix, prefix=True)
            # A process spawned just before close may not have exec'd yet (its channel is open, its
            # marker not yet in /proc): sweep again until a few seconds after the newest spawn.
            newest = max((p.started for p in procs), default=0.0)
            while time.monotonic() - newest < _SPAWN_SETTLE:
                await asyncio.sleep(0.25)
                await self._kill(self._prefix, prefix=True)
            for proc in procs:
                proc.detach_now()
            self._drop_connection()

        with contextlib.suppress(Exception):
            self._loop.run(finish(), timeout=60)
        if self._own_loop:
            self._loop.close()


def _exit_code(process: Any) -> int | None:
    """A channel's exit status; a signal is reported as its negative number, as on the host."""
    signal_info = process.exit_signal
    if signal_info:
        with contextlib.suppress(KeyError, AttributeError):
            return -int(signal.Signals[f"SIG{signal_info[0]}"])
    status = process.exit_status
    return None if status is None or status < 0 else int(status)


class SshProcess(ProcessHandle):
    def __init__(
        self, runtime: SshRuntime, control: _Control, command: str, token: str, marker: str, log: Path, sink: CappedLog
    ) -> None:
        self.command = command
        self.log = log
        self.started = time.monotonic()
        self._runtime = runtime
        self._control = control
        self._marker = marker
        self._sink = sink
        self._scanner = shellwrap.TrailerScanner(sink, token)
        self._exited = threading.Event()
        self._code: int | None = None
        self._task = asyncio.get_running_loop().create_task(self._copy())

    async def _copy(self) -> None:
        stdout = self._control.process.stdout
        try:
            while data := await stdout.read(65536):
                if self._scanner.feed(data):
                    break
        except Exception:
            pass
        finally:
            self._scanner.finish()
            self._code = self._scanner.exit_code
            if self._code is None:
                self._code = _exit_code(self._control.process)
            self._sink.close()
            self._control.close()
            self._exited.set()

    @property
    def pid(self) -> int | None:
        return None

    def is_alive(self) -> bool:
        return not self._exited.is_set()

    @property
    def exit_code(self) -> int | None:
        return self._code if self._exited.is_set() else None

    def wait(self, timeout: float) -> bool:
        return self._exited.wait(timeout)

    def write(self, data: str) -> None:
        if self._exited.is_set():
            raise RuntimeFailure("the process has exited; it cannot read input")
        stdin = self._control.process.stdin
        loop = self._runtime._loop.loop
        loop.call_soon_threadsafe(stdin.write, data.encode("utf-8"))

    def kill(self) -> None:
        if not self._exited.is_set():
            with contextlib.suppress(Exception):
                self._runtime._loop.run(self._runtime._kill(self._marker), timeout=60)
        if not self._exited.wait(10):
            self._runtime._loop.loop.call_soon_threadsafe(self.detach_now)

    def detach_now(self) -> None:
        """Stop following the process and close its channel (on the loop's thread)."""
        self._control.close()
        if not self._task.done():
            self._task.cancel()
