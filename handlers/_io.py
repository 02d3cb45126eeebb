"""File I/O that cannot be steered by a link swapped in mid-call.

``atomic_write`` replaces a file the engine owns (its state). The ``confined_*`` functions
serve the file tools: every component of a path is opened with ``O_NOFOLLOW`` relative to
the descriptor of the directory before it, starting from the root that confines the call,
so a directory swapped for a symbolic link between the policy's check and the write makes
the call fail instead of landing elsewhere. The temp file is created and renamed inside
the final directory's descriptor, and that directory's real path is checked again just
before the rename. Only regular files are read or replaced: a FIFO, socket or device is
refused before it is opened for reading (a FIFO would block the call forever).

Temp files carry the writer's pid (``.NAME.hermes-PID-RANDOM.tmp``) and are recorded in a
journal in the state dir while they exist: a writer killed mid-write leaves a record, and
the next writer of the same state dir (or of the same file) removes what it left.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from engine.dispatch.context import ToolFailure
from engine.runtime.base import pid_alive

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP = re.compile(r"^\.(?P<name>.+)\.hermes-(?P<pid>\d+)-[0-9a-f]+\.tmp$")
_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFLNK: "a symbolic link",
}


def atomic_write(path: Path, data: str | bytes, *, encoding: str = "utf-8") -> int:
    """Write ``data`` to a temp file beside ``path``, fsync it, then rename over ``path``."""
    payload = data.encode(encoding) if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    mode: int | None = None
    with contextlib.suppress(FileNotFoundError):
        mode = path.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return len(payload)


# -- confined access ------------------------------------------------------------------------


class PathChanged(ToolFailure):
    """A component of the path was replaced (by a link, a file or a move) during the call."""

    def __init__(self, shown: str, detail: str) -> None:
        super().__init__(
            f"{shown!r} changed while it was being opened ({detail}); nothing was written or read through it",
            recoverable=True,
        )


def kind_of(mode: int) -> str | None:
    """What a non-regular, non-directory file is ("a FIFO (named pipe)"...), None for those two."""
    return _KINDS.get(stat.S_IFMT(mode), None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else "a special file")


def _fd_path(fd: int) -> str | None:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def _recheck(fd: int, expected: Path, shown: str) -> None:
    """The directory behind ``fd`` is still at ``expected`` (not moved elsewhere meanwhile)."""
    where = _fd_path(fd)
    if where is not None and where != str(expected):
        raise PathChanged(shown, f"its directory is now {where}")


@contextlib.contextmanager
def walk_to_parent(root: Path, real: Path, shown: str, *, create: bool = False) -> Iterator[int]:
    """A descriptor of ``real``'s directory, reached from ``root`` one ``O_NOFOLLOW`` step at a time.

    ``real`` is a real path inside ``root`` (both already resolved). Missing directories are
    made when ``create``; a component that is now a link or not a directory fails the call.
    """
    parts = real.relative_to(root).parts[:-1] if real != root else ()
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in parts:
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                child = _open_dir(part, fd, shown)
            except OSError as exc:
                raise _changed(exc, shown, part) from None
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _open_dir(part: str, fd: int, shown: str) -> int:
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        raise _changed(exc, shown, part) from None


def _changed(exc: OSError, shown: str, part: str) -> Exception:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return PathChanged(shown, f"{part!r} is no longer a directory")
    return exc


def open_regular(root: Path, real: Path, shown: str) -> int:
    """A read-only descriptor of the regular file ``real`` (see :func:`walk_to_parent`).

    Raises:
        ToolFailure: missing, a directory, a FIFO/socket/device, or changed on the way.
    """
    if real == root:
        raise ToolFailure(f"{shown!r} is a directory; use list_dir")
    try:
        with walk_to_parent(root, real, shown) as parent:
            try:
                before = os.stat(real.name, dir_fd=parent, follow_symlinks=False)
            except FileNotFoundError:
                raise ToolFailure(f"no such file: {shown!r}") from None
            refuse_special(before.st_mode, shown)
            fd = os.open(real.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=parent)
            after = os.fstat(fd)
            if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(after.st_mode):
                os.close(fd)
                raise PathChanged(shown, "the file was replaced")
            _recheck(parent, real.parent, shown)
            return fd
    except FileNotFoundError:
        raise ToolFailure(f"no such file: {shown!r}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathChanged(shown, "it is now a symbolic link") from None
        raise ToolFailure(f"cannot open {shown!r}: {exc.strerror}") from None


def refuse_special(mode: int, shown: str) -> None:
    """Raises:
    ToolFailure: ``mode`` is a directory or not a regular file.
    """
    if stat.S_ISDIR(mode):
        raise ToolFailure(f"{shown!r} is a directory; use list_dir")
    kind = kind_of(mode)
    if kind is not None:
        raise ToolFailure(f"{shown!r} is {kind}; only regular files are read or written", recoverable=False)


_SWEPT: set[str] = set()
_SWEEP_LOCK = threading.Lock()


def _alive(pid: int) -> bool:
    return pid == os.getpid() or pid_alive(pid)


def sweep_interrupted(journal: Path) -> int:
    """Remove the temp files writers that died mid-write left (recorded in ``journal``).

    Runs once per process and journal (the first write); returns how many were removed.
    """
    key = str(journal)
    with _SWEEP_LOCK:
        if key in _SWEPT:
            return 0
        _SWEPT.add(key)
    removed = 0
    try:
        records = list(os.scandir(journal))
    except OSError:
        return 0
    for record in records:
        match = re.fullmatch(r"(\d+)-[0-9a-f]+", record.name)
        if match is None or _alive(int(match.group(1))):
            continue
        with contextlib.suppress(OSError, UnicodeDecodeError):
            temp = Path(Path(record.path).read_text(encoding="utf-8"))
            if _TEMP.match(temp.name) and temp.is_absolute():
                with contextlib.suppress(FileNotFoundError):
                    info = temp.lstat()
                    if stat.S_ISREG(info.st_mode):
                        temp.unlink()
                        removed += 1
        with contextlib.suppress(OSError):
            os.unlink(record.path)
    return removed


def _sweep_siblings(parent: int, name: str) -> None:
    """Remove temp files of ``name`` left in its directory by writers that are gone."""
    with contextlib.suppress(OSError):
        for entry in os.listdir(parent):
            match = _TEMP.match(entry)
            if match is None or match.group("name") != name or _alive(int(match.group("pid"))):
                continue
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.stat(entry, dir_fd=parent, follow_symlinks=False).st_mode):
                    os.unlink(entry, dir_fd=parent)


def confined_write(root: Path, real: Path, shown: str, payload: bytes, journal: Path | None = None) -> bool:
    """Replace ``real`` (inside ``root``) with ``payload`` atomically; True when it existed.

    Raises:
        ToolFailure: a directory or special file is there, or the path changed on the way.
    """
    if real == root:
        raise ToolFailure(f"{shown!r} is a directory")
    name = real.name
    try:
        with walk_to_parent(root, real, shown, create=True) as parent:
            mode = 0o666 & ~_umask()
            existed = False
            with contextlib.suppress(FileNotFoundError):
                current = os.stat(name, dir_fd=parent, follow_symlinks=False)
                if stat.S_ISLNK(current.st_mode):
                    raise PathChanged(shown, "it is now a symbolic link")
                refuse_special(current.st_mode, shown)
                mode = stat.S_IMODE(current.st_mode)
                existed = True
            if journal is not None:
                sweep_interrupted(journal)
            _sweep_siblings(parent, name)
            token = f"{os.getpid()}-{secrets.token_hex(6)}"
            temp = f".{name}.hermes-{token}.tmp"
            if len(temp.encode()) > 255:
                temp = f".hermes-{token}.tmp"
            record = _record(journal, token, real.parent / temp)
            try:
                fd = os.open(
                    temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=parent
                )
                try:
                    with os.fdopen(fd, "wb") as handle:
                        handle.write(payload)
                        handle.flush()
                        os.fchmod(handle.fileno(), mode)
                        os.fsync(handle.fileno())
                    _recheck(parent, real.parent, shown)
                    os.replace(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.unlink(temp, dir_fd=parent)
                    raise
            finally:
                if record is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(record)
            return existed
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathChanged(shown, "a component is now a symbolic link") from None
        if exc.errno == errno.EISDIR:
            raise ToolFailure(f"{shown!r} is a directory") from None
        raise ToolFailure(f"cannot write {shown!r}: {exc.strerror}") from None


def _record(journal: Path | None, token: str, temp: Path) -> Path | None:
    if journal is None:
        return None
    try:
        journal.mkdir(parents=True, exist_ok=True, mode=0o700)
        record = journal / token
        record.write_text(str(temp), encoding="utf-8")
    except OSError:
        return None
    return record


_UMASK: int | None = None


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        current = os.umask(0o022)
        os.umask(current)
        _UMASK = current
    return _UMASK
