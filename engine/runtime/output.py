"""Output that cannot grow without bound: in memory for a command, on disk for a background log."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import BinaryIO


class CappedOutput:
    """The first and last ``limit / 2`` bytes of a stream; what lies between is counted, not kept."""

    def __init__(self, limit: int) -> None:
        self.half = max(1, limit // 2)
        self._head = bytearray()
        self._tail = bytearray()
        self.omitted = 0

    def write(self, data: bytes) -> None:
        room = self.half - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if not data:
            return
        self._tail += data
        extra = len(self._tail) - self.half
        if extra > 0:
            del self._tail[:extra]
            self.omitted += extra

    def getvalue(self) -> bytes:
        return bytes(self._head + self._tail)

    def text(self) -> str:
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        if not self.omitted:
            return (self._head + self._tail).decode("utf-8", errors="replace")
        return f"{head}\n[... {self.omitted} bytes of output omitted ...]\n{tail}"


class CappedLog:
    """A background process's log file, kept under ``limit`` bytes while the process writes.

    Past the limit the file is cut back to its first quarter and a line says how much was
    dropped, so it keeps the start of the output and the most recent part.
    """

    def __init__(self, path: Path, limit: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.limit = max(1024, limit)
        self._file: BinaryIO = open(path, "wb")  # noqa: SIM115 - closed by close()
        self._size = 0
        self.omitted = 0
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            if self._file.closed:
                return
            if self._size + len(data) > self.limit:
                keep = self.limit // 4
                self.omitted += self._size - keep + len(data)
                self._file.truncate(keep)
                self._file.seek(keep)
                note = f"\n[... {self.omitted} bytes of output omitted ...]\n".encode()
                self._file.write(note)
                self._size = keep + len(note)
                data = data[-(self.limit // 2) :]
                self.omitted -= len(data)
            self._file.write(data)
            self._file.flush()
            self._size += len(data)

    def close(self) -> None:
        with self._lock:
            if not self._file.closed:
                self._file.close()
