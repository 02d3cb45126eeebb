"""A ``re`` pattern's compiled program, kept and read back without parsing the pattern again.

The compiled-project cache (engine.guard.cache) keeps the programs of the policy's regexes,
the warm-start file (engine.guard.warm) those of the modules' own: reading one back is a
fraction of compiling the pattern. Nothing here imports more than ``re`` itself.
"""

from __future__ import annotations

import re
from importlib import import_module
from typing import Any

__all__ = ["from_program", "sre_program"]

_sre: Any = import_module("_sre")
_WORD_SIZE = memoryview(b"").cast("I").itemsize  # of the words a program is kept in


def _words(program: list[int]) -> bytes:
    """``program`` as machine words (``_sre``'s code units: unsigned, CODESIZE bytes each)."""
    import array  # noqa: PLC0415  (when writing only)

    return array.array("I", program).tobytes()


def sre_program(pattern: str | bytes, flags: int) -> tuple[Any, ...] | None:
    """What ``re`` compiles ``pattern`` to (flags, code, groups, group names): reading it back skips
    the parse, most of the cost of compiling. None when this interpreter's ``re`` works otherwise."""
    try:
        parser: Any = import_module("re._parser")
        compiler: Any = import_module("re._compiler")
        tree = parser.parse(pattern, flags)
        code = compiler._code(tree, flags)
        groupindex = dict(tree.state.groupdict)
        indexgroup = [None] * tree.state.groups
        for key, index in groupindex.items():
            indexgroup[index] = key
        words = [int(c) for c in code]  # plain ints: re's named constants do not pickle
        # One bytes object (machine words) when they fit: faster to store and read back than the ints.
        program: list[int] | bytes = _words(words) if getattr(_sre, "CODESIZE", 0) == _WORD_SIZE else words
        return (int(flags | tree.state.flags), program, tree.state.groups - 1, groupindex, tuple(indexgroup))
    except Exception:
        return None


def from_program(pattern: Any, flags: int, program: tuple[Any, ...] | None) -> re.Pattern[Any]:
    """The pattern ``program`` (from :func:`sre_program`, same interpreter) is the program of, without
    a parse; compiled again when there is none or ``_sre`` refuses it."""
    if program is not None:
        try:
            final_flags, code, groups, groupindex, indexgroup = program
            if isinstance(code, bytes):
                code = memoryview(code).cast("I").tolist()
            compiled: re.Pattern[Any] = _sre.compile(pattern, final_flags, code, groups, groupindex, indexgroup)
            return compiled
        except Exception:  # _sre checks the code it is given; anything it refuses is compiled again
            pass
    return re.compile(pattern, flags)
