"""Damaged state files are kept, never overwritten: moved aside as ``NAME.corrupt-N``."""

from __future__ import annotations

import os
from pathlib import Path


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
