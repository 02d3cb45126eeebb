"""The real services the runtime tests run against, started by the tests themselves.

- ``bwrap``: must work on this machine.
- ``docker_daemon``: a private ``dockerd`` (root; data root, exec root and socket in a temp
  dir, no bridge, no iptables) and a tiny image imported from a busybox-static rootfs
  (no registry is reachable).
- ``sshd_server``: ``sshd`` on a free loopback port, with a host key and a user key made here.

A service that cannot start fails the test with the reason: CI must never skip them.
Every one is stopped at the end of the session, and nothing it started is left running.
Install the packages with: apt-get install -y bubblewrap docker.io openssh-server busybox-static
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import socket
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

IMAGE = "hermes-test:busybox"


class ServiceError(Exception):
    """A service could not start; the message says why (the fixtures turn it into a test failure)."""


LABEL = "hermes-engine"


def _need(program: str, package: str) -> str:
    found = shutil.which(program) or next(
        (p for p in (f"/usr/sbin/{program}", f"/sbin/{program}") if os.path.exists(p)), None
    )
    if found is None:
        raise ServiceError(f"{program} is not installed: apt-get install -y {package}")
    return found


def _wait_for(condition: object, what: str, proc: subprocess.Popen[bytes] | None, log: Path, limit: float) -> None:
    """Poll ``condition`` until true; fail with the service's log when it exits or ``limit`` passes."""
    deadline = time.monotonic() + limit
    while not condition():  # type: ignore[operator]
        if proc is not None:
            try:
                proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
            else:
                raise ServiceError(f"{what} exited with {proc.returncode}:\n{_tail(log)}")
        if time.monotonic() > deadline:
            raise ServiceError(f"{what} did not become ready within {limit:g}s:\n{_tail(log)}")


def _tail(log: Path) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(log.read_text(errors="replace").splitlines()[-30:])
    return "(no log)"


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _stop(proc: subprocess.Popen[bytes], *, tree: bool) -> None:
    """End a service we started (and, with ``tree``, the processes it forked), by pid."""
    pids = _descendants(proc.pid) if tree else []
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


# -- bubblewrap --------------------------------------------------------------------------


def check_bwrap() -> str:
    from engine.runtime.sandbox import SandboxRuntime

    path = _need("bwrap", "bubblewrap")
    reason = SandboxRuntime.check({})
    if reason:
        raise ServiceError(f"the sandbox cannot work here: {reason}")
    return path


@pytest.fixture(scope="session")
def bwrap() -> str:
    try:
        return check_bwrap()
    except ServiceError as exc:
        pytest.fail(str(exc), pytrace=False)


# -- docker ------------------------------------------------------------------------------


@dataclass
class DockerDaemon:
    host: str
    image: str

    def client(self):  # type: ignore[no-untyped-def]
        import docker

        return docker.DockerClient(base_url=self.host, version="auto", timeout=60)

    def containers(self) -> list[str]:
        """Ids of the engine's containers (labelled), running or not."""
        client = self.client()
        try:
            return [c.id for c in client.containers.list(all=True, filters={"label": LABEL})]
        finally:
            client.close()


def _busybox_rootfs() -> bytes:
    busybox = Path("/bin/busybox")
    if not busybox.exists():
        raise ServiceError("busybox is not installed: apt-get install -y busybox-static")
    applets = subprocess.run([busybox, "--list"], capture_output=True, text=True, check=True).stdout.split()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for folder in ("bin", "tmp", "root", "etc", "proc", "dev", "sys", "usr"):
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if folder == "tmp" else 0o755
            tar.addfile(info)
        # A runtime that mounts the host's /usr (merged-usr Debian) gets its python3 and node.
        for link in ("lib", "lib64"):
            info = tarfile.TarInfo(link)
            info.type, info.linkname = tarfile.SYMTYPE, f"usr/{link}"
            tar.addfile(info)
        tar.add(busybox, "bin/busybox")
        for applet in applets:
            if applet != "busybox":
                info = tarfile.TarInfo(f"bin/{applet}")
                info.type, info.linkname = tarfile.SYMTYPE, "busybox"
                tar.addfile(info)
        passwd = b"root:x:0:0:root:/root:/bin/sh\n"
        info = tarfile.TarInfo("etc/passwd")
        info.size = len(passwd)
        tar.addfile(info, io.BytesIO(passwd))
    return buffer.getvalue()


@pytest.fixture(scope="session")
def docker_daemon() -> Iterator[DockerDaemon]:
    try:
        with start_dockerd() as daemon:
            yield daemon
    except ServiceError as exc:
        pytest.fail(str(exc), pytrace=False)


@contextlib.contextmanager
def start_dockerd() -> Iterator[DockerDaemon]:
    """A private dockerd with the test image (root only)."""
    import docker

    dockerd = _need("dockerd", "docker.io")
    if os.geteuid() != 0:
        raise ServiceError("the docker tests start their own dockerd, which needs root")
    base = Path(tempfile.mkdtemp(prefix="hermes-dockerd-"))
    sock = base / "docker.sock"
    log = base / "dockerd.log"
    argv = [
        dockerd,
        "--data-root", str(base / "data"),
        "--exec-root", str(base / "exec"),
        "--pidfile", str(base / "dockerd.pid"),
        "--host", f"unix://{sock}",
        "--bridge=none", "--iptables=false", "--ip6tables=false",
    ]  # fmt: skip
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    host = f"unix://{sock}"
    try:

        def ready() -> bool:
            if not sock.exists():
                return False
            try:
                client = docker.DockerClient(base_url=host, version="auto", timeout=5)
            except docker.errors.DockerException:
                return False
            with contextlib.closing(client):
                return bool(client.ping())

        _wait_for(ready, "dockerd", proc, log, 60)
        client = docker.DockerClient(base_url=host, version="auto", timeout=60)
        with contextlib.closing(client):
            client.api.import_image_from_data(
                _busybox_rootfs(), repository=IMAGE.split(":", maxsplit=1)[0], tag=IMAGE.split(":")[1]
            )
        yield DockerDaemon(host, IMAGE)
    finally:
        with contextlib.suppress(Exception):
            client = docker.DockerClient(base_url=host, version="auto", timeout=30)
            for container in client.containers.list(all=True):
                container.remove(force=True)
            client.close()
        _stop(proc, tree=True)
        for mount in reversed(_mounts_under(base)):
            subprocess.run(["umount", "-l", mount], check=False, capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def _mounts_under(base: Path) -> list[str]:
    with open("/proc/self/mounts") as handle:
        return [line.split()[1] for line in handle if line.split()[1].startswith(str(base))]


# -- ssh ---------------------------------------------------------------------------------


@dataclass
class SshServer:
    port: int
    user: str
    key: Path
    known_hosts: Path
    base: Path
    proc: subprocess.Popen[bytes]
    argv: list[str]

    def settings(self, **extra: object) -> dict[str, object]:
        return {
            "host": "127.0.0.1",
            "port": self.port,
            "user": self.user,
            "key": str(self.key),
            "known_hosts": str(self.known_hosts),
            **extra,
        }

    def restart(self) -> None:
        """Stop sshd and every connection it serves (as a reboot would), then start it again."""
        _stop(self.proc, tree=True)
        self.proc = _start_sshd(self.argv, self.base / "sshd.log", self.port)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start_sshd(argv: list[str], log: Path, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def ready() -> bool:
        with socket.socket() as probe:
            probe.settimeout(0.5)
            return probe.connect_ex(("127.0.0.1", port)) == 0

    _wait_for(ready, "sshd", proc, log, 30)
    return proc


@pytest.fixture(scope="session")
def sshd_server() -> Iterator[SshServer]:
    try:
        with start_sshd() as server:
            yield server
    except ServiceError as exc:
        pytest.fail(str(exc), pytrace=False)


@contextlib.contextmanager
def start_sshd() -> Iterator[SshServer]:
    """sshd on a free loopback port, with a host key and a user key made here."""
    sshd = _need("sshd", "openssh-server")
    keygen = _need("ssh-keygen", "openssh-client")
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation directory
    base = Path(tempfile.mkdtemp(prefix="hermes-sshd-"))
    for name in ("host_key", "user_key"):
        subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-f", str(base / name)], check=True)
    shutil.copy(base / "user_key.pub", base / "authorized_keys")
    port = _free_port()
    host_key = (base / "host_key.pub").read_text().split()
    (base / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    (base / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {base / 'host_key'}\nPidFile {base / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {base / 'authorized_keys'}\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\n"
        "Subsystem sftp internal-sftp\nMaxSessions 64\n"
    )
    log = base / "sshd.log"
    argv = [sshd, "-D", "-f", str(base / "sshd_config"), "-E", str(log)]
    server = SshServer(port, _user(), base / "user_key", base / "known_hosts", base, _start_sshd(argv, log, port), argv)
    try:
        yield server
    finally:
        _stop(server.proc, tree=True)
        shutil.rmtree(base, ignore_errors=True)


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


# -- waiting -----------------------------------------------------------------------------


def running(token: str) -> list[int]:
    """Pids of processes on this machine whose command line contains ``token``."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as handle:
                    if token.encode() in handle.read():
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


def gone(token: str, limit: float = 60.0) -> bool:
    """Whether every process running ``token`` exits within ``limit`` (waits on pidfds, not sleeps)."""
    import select

    deadline = time.monotonic() + limit
    for pid in running(token):
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return False
        finally:
            os.close(fd)
    return not running(token)


def eventually(predicate: object, limit: float = 60.0) -> bool:
    """Poll ``predicate`` (for things with no event to wait on, like a file's content) up to ``limit``."""
    deadline = time.monotonic() + limit
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
