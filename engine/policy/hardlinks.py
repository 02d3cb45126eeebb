"""Files with several names: a hard link shows a secret under a harmless name.

A program the model wrote can make one that no text check sees (`os.link(open('cfg').read(), 'k')`
in execute_code); `read_file k` then printed `~/.ssh/id_ed25519`. A symbolic link is followed
to where it lands and refused outside the roots; a hard link has no target to follow, only
other names of the same inode. So a regular file with more than one link is read only when
every other name is found inside the roots (a walk of the roots, once per call, on the same
file system: a hard link cannot cross one) and none of them is a secret or the engine's state.
Not all names found -- another name elsewhere (a key in `~/.ssh`, the engine's audit key, a
package store's copy), or past the walk's bound -- fails closed. Used by the file tools and by
the guard (an agent's own Read).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path

_MAX_ENTRIES = 200_000
_MAX_SECONDS = 5.0


class HardLinks:
    """The other names of multiply-linked files inside ``roots``, found once per call.

    ``classify`` gives a path's classes; a name in one of ``hidden`` (secrets, the engine's
    state) is never read through another name."""

    def __init__(
        self,
        roots: Iterable[Path],
        classify: Callable[[Path], frozenset[str]],
        hidden: frozenset[str],
        shown: Callable[[Path], str] = str,
    ) -> None:
        self._roots = list(roots)
        self._classify = classify
        self._hidden = hidden
        self._shown = shown
        self._names: dict[tuple[int, int], list[str]] = {}
        self._walked: set[int] = set()  # devices whose part of the roots was walked
        self._complete = True

    def refusal(self, real: Path, info: os.stat_result, shown: str) -> str | None:
        """Why ``real`` (a regular file, ``info`` from the opened descriptor) is not read, or None."""
        if info.st_nlink <= 1 or not stat.S_ISREG(info.st_mode):
            return None
        self._walk(info.st_dev)
        names = self._names.get((info.st_dev, info.st_ino), [])
        for name in names:
            if name != str(real) and self._classify(Path(name)) & self._hidden:
                return (
                    f"{shown!r} is a hard link to {self._shown(Path(name))}, a secret file; "
                    "it is not read under another name"
                )
        if len(names) < info.st_nlink:
            where = "" if self._complete else " (the working directory is too large to look through)"
            return (
                f"{shown!r} has {info.st_nlink} names (hard links) and not all of them are inside the "
                f"working directory{where}: another name may be a secret, so it is not read"
            )
        return None

    def _walk(self, device: int) -> None:
        if device in self._walked:
            return
        self._walked.add(device)
        deadline = time.monotonic() + _MAX_SECONDS
        seen = 0
        pending: list[str] = []
        for root in self._roots:
            try:
                if os.stat(root).st_dev == device:
                    pending.append(str(root))
            except OSError:
                continue
        visited: set[str] = set()
        while pending:
            folder = pending.pop()
            if folder in visited:
                continue  # nested roots
            visited.add(folder)
            try:
                entries = os.scandir(folder)
            except OSError:
                continue
            with entries:
                for entry in entries:
                    seen += 1
                    if seen > _MAX_ENTRIES or (seen % 4096 == 0 and time.monotonic() > deadline):
                        self._complete = False
                        return
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if info.st_dev != device:
                        continue  # another file system (a mount): no link of this one is there
                    if stat.S_ISDIR(info.st_mode):
                        pending.append(entry.path)
                    elif stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                        self._names.setdefault((info.st_dev, info.st_ino), []).append(entry.path)
