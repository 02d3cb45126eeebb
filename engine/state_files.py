"""Damaged state files are kept, never overwritten: moved aside as ``NAME.corrupt-N``."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

# The record of approved engine files (engine.compile.approved), in a project's default state dir.
APPROVED_RECORD_NAME = "approved-files.json"


def state_root() -> Path:
    """Where every project's default state dir lives: per user, outside any project."""
    base = os.environ.get("XDG_STATE_HOME") or ""
    home = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return home.resolve() / "hermes-engine"


def key_dir() -> Path:
    """Where the audit keys and heads (and the compiled-project cache's key) live: the user's config
    directory, outside any work tree."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "hermes-engine" / "audit"


def read_key(path: Path) -> bytes | None:
    """The 32-byte key kept as 64 hex digits in ``path``; None when there is no such file.

    Raises:
        OSError: the file cannot be read.
        ValueError: it does not hold a key.
    """
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(str(exc)) from exc
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise ValueError("expected 64 hex digits")
    return key


def keep_aside(path: Path) -> Path:
    """Move ``path`` to the first free ``NAME.corrupt-N`` beside it and return where it went.

    Two processes doing this at once never pick the same name (the new name is created
    with a hard link, which fails if it exists).

    Raises:
        OSError: the file cannot be moved.
    """
    n = 1
    while True:
        target = path.with_name(f"{path.name}.corrupt-{n}")
        try:
            os.link(path, target)
        except FileExistsError:
            n += 1
            continue
        except OSError:  # no hard links here: a rename, after checking the name is free
            if target.exists():
                n += 1
                continue
            os.replace(path, target)
            return target
        os.unlink(path)
        return target


@contextlib.contextmanager
def locked(path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created 0600 if missing) while the block runs.

    ``flock`` on the lock file, as the ``filelock`` package does on POSIX (the two exclude each
    other), without importing it: a one-shot ``guard`` process pays for every import.

    Raises:
        TimeoutError: another process held the lock for ``timeout`` seconds.
        OSError: the lock file cannot be opened.
    """
    try:
        import fcntl  # noqa: PLC0415
    except ImportError:  # not POSIX
        from filelock import FileLock  # noqa: PLC0415

        with FileLock(str(path), timeout=timeout):
            yield
        return
    deadline = time.monotonic() + timeout
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise TimeoutError(f"{path} is locked by another process") from None
                    time.sleep(0.01)
            if os.fstat(fd).st_nlink == 0:  # the file was removed while we waited: lock the new one
                continue
            yield
            return
        finally:
            os.close(fd)  # closing the descriptor releases the lock
