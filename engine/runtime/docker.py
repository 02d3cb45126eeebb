"""``docker``: one container per session, through the Docker Engine API (the ``docker`` SDK).

The container is created on first use from the manifest's image, mounts, network and limits
(every capability dropped, no new privileges, no network unless ``network: true``), kept
running between calls, and removed when the session closes or has been idle for
``idle_timeout`` seconds. Each command is a ``docker exec`` of the wrapper in
:mod:`engine.runtime.shellwrap`; a timeout kills the command's processes by their marker.

The SDK measured faster than the CLI per exec (~58 ms against ~68 ms on the same daemon),
and gives the exec's raw stream, which stdin and background processes need.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import struct
import threading
import time
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
    pid_alive,
    remote_env,
)
from engine.runtime.output import CappedLog, CappedOutput

LABEL = "hermes-engine"


def _shell(settings: Mapping[str, Any]) -> str | None:
    """The manifest's `shell`; None: bash where the container has one, else /bin/sh (shellwrap.wrap)."""
    shell = settings.get("shell")
    return str(shell) if shell else None


# The container's init: a shell no signal from inside can stop (init ignores what it does not
# handle, and SIGKILL from its own namespace), which reaps orphans each time one exits.
_KEEPALIVE = ["/bin/sh", "-c", "trap '' TERM INT HUP QUIT; while :; do sleep 3600 & wait $!; done"]
_FILE_TIMEOUT = 60.0
_LIST_SCRIPT = (
    'cd -- "$1" || exit 2; for f in * .*; do '
    '{ [ "$f" = . ] || [ "$f" = .. ]; } && continue; { [ -e "$f" ] || [ -L "$f" ]; } || continue; '
    'if [ -L "$f" ]; then printf \'link\\0000\\000%s\\000%s\\000\' "$f" "$(readlink -- "$f")"; '
    'elif [ -d "$f" ]; then printf \'dir\\0000\\000%s\\000\\000\' "$f"; '
    'elif [ -f "$f" ]; then printf \'file\\000%s\\000%s\\000\\000\' "$(wc -c < "$f" | tr -d \' \')" "$f"; '
    "else printf 'other\\0000\\000%s\\000\\000' \"$f\"; fi; done"
)
_READ_SCRIPT = 'if [ -d "$1" ]; then echo "is a directory" >&2; exit 21; fi; head -c "$2" -- "$1"'
_WRITE_SCRIPT = (
    'd=$(dirname -- "$1"); mkdir -p -- "$d" || exit 1; t="$1.hermes-tmp.$$"; '
    'cat > "$t" && mv -f -- "$t" "$1" || { rm -f -- "$t"; exit 1; }'
)


def _sdk() -> Any:
    try:
        import docker  # noqa: PLC0415  (an optional dependency)
    except ImportError:
        raise RuntimeUnavailable(
            "the docker runtime needs the docker Python package: pip install 'hermes-engine[docker]'"
        ) from None
    return docker


def _client(settings: Mapping[str, Any], timeout: float = 30) -> Any:
    """A client speaking the daemon's API version (asked first, on a client that is always closed)."""
    docker = _sdk()
    base_url = settings.get("host") or os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
    if base_url.startswith("unix://"):
        # Connect once ourselves: the SDK leaks the socket of a connection that fails.
        with socket.socket(socket.AF_UNIX) as probe_socket:
            probe_socket.settimeout(timeout)
            try:
                probe_socket.connect(base_url[len("unix://") :])
            except OSError as exc:
                raise RuntimeUnavailable(
                    f"cannot reach the Docker daemon at {base_url}: {exc.strerror or exc}"
                ) from None
    probe = None
    try:
        probe = docker.APIClient(
            base_url=base_url, version=docker.constants.MINIMUM_DOCKER_API_VERSION, timeout=timeout
        )
        version = str(probe.version(api_version=False)["ApiVersion"])
    except Exception as exc:
        raise RuntimeUnavailable(f"cannot reach the Docker daemon at {base_url}: {_short(exc)}") from None
    finally:
        if probe is not None:
            probe.close()
    if docker.utils.version_lt(docker.constants.DEFAULT_DOCKER_API_VERSION, version):
        version = docker.constants.DEFAULT_DOCKER_API_VERSION
    return docker.DockerClient(base_url=base_url, version=version, timeout=timeout)


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def _refused(text: str) -> bool:
    """Whether an exec's only output is the daemon saying the container was not there to run it."""
    return not text or any(s in text for s in ("OCI runtime", "not running", "stopped", "No such exec"))


class _Frames:
    """The multiplexed stdout/stderr stream of an exec, read with deadlines."""

    def __init__(self, sock: Any) -> None:
        self.sock: socket.socket = getattr(sock, "_sock", sock)
        self.wrapper = sock
        self.buf = bytearray()

    def read(self, timeout: float) -> tuple[list[tuple[int, bytes]], bool]:
        """Whole frames that arrived within ``timeout`` and whether the stream has ended."""
        ready, _, _ = select.select([self.sock], [], [], max(0.0, timeout))
        if not ready:
            return [], False
        try:
            chunk = self.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return [], False
        except OSError:
            chunk = b""
        self.buf += chunk
        frames: list[tuple[int, bytes]] = []
        while len(self.buf) >= 8:
            kind = self.buf[0]
            (size,) = struct.unpack(">I", self.buf[4:8])
            if len(self.buf) < 8 + size:
                break
            frames.append((kind, bytes(self.buf[8 : 8 + size])))
            del self.buf[: 8 + size]
        return frames, not chunk

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def close_input(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        for thing in (self.sock, self.wrapper):
            with contextlib.suppress(Exception):
                thing.close()


class DockerRuntime(Runtime):
    type_name = "docker"

    def __init__(self, name: str, settings: Mapping[str, Any], session: Session) -> None:
        super().__init__(name, settings, session)
        self._client: Any = None
        self._container: Any = None
        self._lock = threading.RLock()
        self._procs: list[DockerProcess] = []
        self._cwd: str | None = None
        self._prefix = shellwrap.nonce()[9:21] + "."
        self._closed = False

    @classmethod
    def check(cls, settings: Mapping[str, Any]) -> str | None:
        try:
            client = _client(settings, timeout=10)
        except RuntimeUnavailable as exc:
            return exc.reason
        try:
            client.images.get(settings["image"])
        except Exception as exc:
            if type(exc).__name__ == "ImageNotFound":
                return f"image {settings['image']!r} is not present on the Docker daemon; docker pull or build it first"
            return f"cannot reach the Docker daemon: {_short(exc)}"
        finally:
            client.close()
        return None

    # -- the container -------------------------------------------------------------------

    def workdir(self) -> str:
        return str(self.settings.get("workdir") or "/workspace")

    def start(self) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeUnavailable("the runtime is closed")
            if self._container is not None:
                return
            if self._client is None:
                self._client = _client(self.settings)
            self._container = self._create()

    def _create(self) -> Any:
        docker = _sdk()
        settings = self.settings
        labels = {
            LABEL: "1",
            f"{LABEL}.runtime": self.name,
            f"{LABEL}.session": self.session.session_id[:200],
            f"{LABEL}.host": socket.gethostname(),
            f"{LABEL}.pid": str(os.getpid()),
        }
        self._sweep_orphans()
        mounts = [
            docker.types.Mount(str(m["target"]), str(m["source"]), type="bind", read_only=not m.get("writable"))
            for m in settings.get("mounts") or ()
        ]
        command = list(settings.get("command") or _KEEPALIVE)
        options: dict[str, Any] = {
            "detach": True,
            "init": bool(settings.get("command")),  # docker's init exits with its child
            "labels": labels,
            "mounts": mounts,
            "network_mode": "bridge" if settings.get("network") else "none",
            "cap_drop": ["ALL"],
            "cap_add": list(settings.get("cap_add") or ()) or None,
            "security_opt": ["no-new-privileges"],
            "pids_limit": int(settings.get("pids_limit") or 1024),
            "environment": dict(settings.get("env") or {}),
            "working_dir": None,
        }
        if settings.get("memory"):
            options["mem_limit"] = settings["memory"]
        if settings.get("cpus"):
            options["nano_cpus"] = int(float(settings["cpus"]) * 1e9)
        if settings.get("user"):
            options["user"] = str(settings["user"])
        try:
            container = self._client.containers.run(settings["image"], command, **options)
        except Exception as exc:
            raise RuntimeUnavailable(f"cannot start a container from {settings['image']!r}: {_short(exc)}") from None
        try:
            rc, out = self._run_bytes(container, ["mkdir", "-p", "--", self.workdir()], None, _FILE_TIMEOUT)
        except BaseException:
            self._remove(container)
            raise
        if rc != 0:
            self._remove(container)
            raise RuntimeUnavailable(f"cannot create {self.workdir()} in the container: {out.decode(errors='replace')}")
        return container

    def _sweep_orphans(self) -> None:
        """Remove containers left by an engine on this host that died without closing them."""
        wanted = {"label": [f"{LABEL}=1", f"{LABEL}.host={socket.gethostname()}"]}
        with contextlib.suppress(Exception):
            for container in self._client.containers.list(all=True, filters=wanted):
                pid = container.labels.get(f"{LABEL}.pid", "")
                if pid.isdigit() and not pid_alive(int(pid)):
                    self._remove(container)

    def _remove(self, container: Any) -> None:
        with contextlib.suppress(Exception):
            container.remove(force=True)

    @property
    def container_id(self) -> str | None:
        return None if self._container is None else str(self._container.id)

    # -- exec ----------------------------------------------------------------------------

    def _open(self, container: Any, argv: list[str], env: Mapping[str, str] | None, stdin: bool) -> tuple[str, _Frames]:
        api = self._client.api
        for attempt in (0, 1):
            try:
                exec_id = api.exec_create(container.id, argv, environment=dict(env or {}), stdin=stdin)["Id"]
                sock = api.exec_start(exec_id, socket=True)
            except Exception as exc:
                name = type(exc).__name__
                if name == "NotFound":
                    # The container is gone (removed by hand, or the daemon lost it): make a new one next time.
                    with self._lock:
                        if self._container is container:
                            self._container = None
                    raise RuntimeFailure("the container was removed; the next call starts a new one") from None
                if attempt == 0 and name == "APIError" and "is not running" in str(exc):
                    self._revive(container, stopping=True)  # its keep-alive process was killed
                    continue
                raise RuntimeFailure(f"docker exec failed: {_short(exc)}") from None
            return exec_id, _Frames(sock)
        raise AssertionError("unreachable")

    def _revive(self, container: Any, *, stopping: bool = False) -> None:
        """Start a container that stopped (its files are kept; its processes are not).

        ``stopping``: runc refused an exec, so the container is on its way down; wait for it.
        """
        try:
            container.reload()
            if stopping and container.status == "running":
                with contextlib.suppress(Exception):
                    container.wait(timeout=10)
                container.reload()
            if container.status != "running":
                container.start()
                self._cwd = None
        except Exception as exc:
            raise RuntimeFailure(f"the container stopped and could not be started again: {_short(exc)}") from None

    def _run_bytes(self, container: Any, argv: list[str], stdin: bytes | None, timeout: float) -> tuple[int, bytes]:
        """A helper command's exit code and stdout (stderr on failure), no wrapper."""
        exec_id, frames = self._open(container, argv, None, stdin is not None)
        out, err = bytearray(), bytearray()
        deadline = time.monotonic() + timeout
        try:
            if stdin is not None:
                frames.send(stdin)
                frames.close_input()
            while time.monotonic() < deadline:
                got, ended = frames.read(deadline - time.monotonic())
                for kind, data in got:
                    (err if kind == 2 else out).extend(data)
                if ended:
                    break
            else:
                raise RuntimeFailure(f"{argv[0]} in the container took longer than {timeout:g}s")
        finally:
            frames.close()
        rc = self._exit_of(exec_id)
        return rc, bytes(out if rc == 0 else err or out)

    def _exit_of(self, exec_id: str) -> int:
        """An exec's exit code (-1 when the daemon no longer knows it: its container stopped)."""
        try:
            code = self._client.api.exec_inspect(exec_id).get("ExitCode")
        except Exception:
            return -1
        return int(code) if code is not None else -1

    def exec(
        self,
        command: str,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float,
        stdin: bytes | None = None,
        max_output: int = DEFAULT_MAX_OUTPUT,
        _retried: bool = False,
    ) -> ExecResult:
        self.start()
        container = self._container
        token = shellwrap.nonce()
        marker = self._prefix + token[9:]
        run_dir = self.resolve(cwd) if cwd else (self._cwd or self.workdir())
        argv = shellwrap.wrap(command, run_dir, token, _shell(self.settings))
        child_env = {**remote_env(env, self.settings.get("env") or {}), RUN_MARKER: marker}
        exec_id, frames = self._open(container, argv, child_env, stdin is not None)
        out = CappedOutput(max_output)
        scanner = shellwrap.TrailerScanner(out, token)
        deadline = time.monotonic() + timeout
        timed_out = True
        try:
            if stdin is not None:
                frames.send(stdin)
                frames.close_input()
            while (left := deadline - time.monotonic()) > 0:
                got, ended = frames.read(left)
                if any(scanner.feed(data) for _, data in got) or ended:
                    timed_out = False
                    break
        finally:
            if timed_out:
                self._kill(container, marker)
            frames.close()
        scanner.finish()
        if timed_out:
            return ExecResult(TIMEOUT_EXIT, out.text(), True, out.omitted, self._cwd or self.workdir())
        code = scanner.exit_code
        if code is None:
            code = self._exit_of(exec_id)
            if code in (126, -1) and not _retried and _refused(out.text()):
                self._revive(container, stopping=True)  # it stopped between our request and runc's exec
                return self.exec(
                    command, cwd=cwd, env=env, timeout=timeout, stdin=stdin, max_output=max_output, _retried=True
                )
        if scanner.cwd:
            self._cwd = scanner.cwd
        return ExecResult(code, out.text(), False, out.omitted, self._cwd or self.workdir())

    def _kill(self, container: Any, marker: str, *, prefix: bool = False) -> None:
        """End every process of a run (or, with ``prefix``, of this runtime); if the image cannot
        run the kill script, the container goes instead and the next call gets a new one."""
        script = shellwrap.kill_script(marker, prefix=prefix)
        try:
            for _ in range(3):
                rc, out = self._run_bytes(container, ["/bin/sh", "-c", script], None, 30)
                if rc != 0:
                    raise RuntimeFailure(out.decode(errors="replace"))
                if out.strip() in (b"", b"0"):
                    return
        except RuntimeFailure:
            with self._lock:
                if self._container is container:
                    self._container = None
                    self._cwd = None
            self._remove(container)

    # -- background processes ---------------------------------------------------------

    def spawn(
        self, command: str, *, log: Path, cwd: str | None = None, env: Mapping[str, str] | None = None
    ) -> ProcessHandle:
        self.start()
        token = shellwrap.nonce()
        marker = self._prefix + token[9:]
        run_dir = self.resolve(cwd) if cwd else (self._cwd or self.workdir())
        argv = shellwrap.wrap(command, run_dir, token, _shell(self.settings))
        child_env = {**remote_env(env, self.settings.get("env") or {}), RUN_MARKER: marker}
        with self._lock:
            exec_id, frames = self._open(self._container, argv, child_env, True)
            proc = DockerProcess(self, self._container, command, exec_id, frames, token, marker, log)
            self._procs.append(proc)
        return proc

    # -- files -------------------------------------------------------------------------

    def _file_op(self, script: str, args: list[str], stdin: bytes | None = None) -> bytes:
        self.start()
        rc, out = self._run_bytes(self._container, ["/bin/sh", "-c", script, "sh", *args], stdin, _FILE_TIMEOUT)
        if rc != 0:
            detail = out.decode("utf-8", errors="replace").strip().splitlines()
            raise RuntimeFailure(detail[-1] if detail else f"exit {rc}")
        return out

    def read_file(self, path: str, max_bytes: int) -> bytes:
        return self._file_op(_READ_SCRIPT, [self.resolve(path), str(max_bytes)])

    def write_file(self, path: str, data: bytes) -> None:
        self._file_op(_WRITE_SCRIPT, [self.resolve(path)], data)

    def list_dir(self, path: str) -> list[DirEntry]:
        raw = self._file_op(_LIST_SCRIPT, [self.resolve(path)]).split(b"\0")
        out = []
        for i in range(0, len(raw) - 3, 4):
            kind, size, name, target = (part.decode("utf-8", errors="replace") for part in raw[i : i + 4])
            out.append(DirEntry(name, kind, int(size) if size.isdigit() else 0, target or None))
        return out

    # -- the end -----------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._closed = True
            container, self._container = self._container, None
            procs, self._procs = self._procs, []
        for proc in procs:
            proc.detach()
        if container is not None:
            self._remove(container)
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()


class DockerProcess(ProcessHandle):
    def __init__(
        self,
        runtime: DockerRuntime,
        container: Any,
        command: str,
        exec_id: str,
        frames: _Frames,
        token: str,
        marker: str,
        log: Path,
    ) -> None:
        self.command = command
        self.log = log
        self._runtime = runtime
        self._container = container
        self._exec_id = exec_id
        self._frames = frames
        self._marker = marker
        self._sink = CappedLog(log, int(runtime.settings.get("log_limit") or 16 * 1024 * 1024))
        self._scanner = shellwrap.TrailerScanner(self._sink, token)
        self._exited = threading.Event()
        self._code: int | None = None
        self._reader = threading.Thread(target=self._copy, name="hermes-docker-log", daemon=True)
        self._reader.start()

    def _copy(self) -> None:
        try:
            while not self._exited.is_set():
                got, ended = self._frames.read(1.0)
                if any(self._scanner.feed(data) for _, data in got) or ended:
                    break
        except Exception:  # the socket was closed under us by kill/close
            pass
        finally:
            self._scanner.finish()
            self._code = self._scanner.exit_code
            if self._code is None:
                code = self._runtime._exit_of(self._exec_id)
                self._code = None if code == -1 else code
            self._sink.close()
            self._frames.close()
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
        try:
            self._frames.send(data.encode("utf-8"))
        except OSError:
            raise RuntimeFailure("the process closed its input") from None

    def kill(self) -> None:
        if not self._exited.is_set():
            self._runtime._kill(self._container, self._marker)
        self._exited.wait(10)

    def detach(self) -> None:
        """Stop copying output (the container is about to go)."""
        self._frames.close()
        self._exited.wait(5)
