"""``check`` and ``validate`` in their plain shapes, run without the command-line library.

``hermes-engine validate [--builtin | --root PATH] [--format FMT]`` (what editors, hooks and CI
run on every save or commit) is parsed here when it has exactly that shape: importing click and
the full command line is ~2% of the instructions of a cold ``validate`` of 1,000 tools, more of a
warm one. Any other shape, and any failure, goes through the full parser (engine.cli.fast), which
reports it as it always has.
``check`` shares the option reading (engine.cli.verdict).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

from engine.errors import EXIT_BROKEN_PIPE, EXIT_INVALID

# The reporters' names (engine.cli.reporters.REPORTERS), without importing them to parse.
FORMATS = ("github", "json", "sarif", "text")


def plain_options(
    args: list[str], valued: tuple[str, ...], flags: tuple[str, ...]
) -> tuple[dict[str, str | bool], list[str]] | None:
    """(the options, the arguments) of ``args`` when each option of ``valued`` (``--name VALUE`` or
    ``--name=VALUE``) and of ``flags`` is given at most once and nothing else starts with "-"; else None."""
    found: dict[str, str | bool] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        name, equals, value = word.partition("=")
        if name in valued:
            if name in found:
                return None
            if not equals:
                if i + 1 >= len(args):
                    return None
                value, i = args[i + 1], i + 2
            else:
                i += 1
            found[name] = value
            continue
        if word in flags:
            if word in found:
                return None
            found[word] = True
            i += 1
            continue
        if word.startswith("-"):
            return None
        positional.append(word)
        i += 1
    return found, positional


def validate_call(args: list[str]) -> tuple[str | None, bool, str] | None:
    """(root, builtin, format) when ``args`` is ``validate`` in the plain shape; else None."""
    parsed = plain_options(args[1:], ("--root", "--format"), ("--builtin",))
    if parsed is None or parsed[1]:
        return None
    found = parsed[0]
    root, fmt = found.get("--root"), found.get("--format", "text")
    builtin = "--builtin" in found
    if root == "" or (root is not None and builtin) or fmt not in FORMATS:
        return None
    return (str(root) if root is not None else None), builtin, str(fmt)


@contextlib.contextmanager
def one_shot_heap() -> Iterator[None]:
    """Around the load of a process that ends with its command: what it builds lives until the
    process exits. The cyclic GC stays off while loading and the result is frozen out of its
    reach, so the pass the first allocation after a big load would trigger (a third of a second's
    work on 1,000 tools is spent scanning objects that can never be garbage) is skipped."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def validate_report(
    root: Path, fmt: str, heap: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext
) -> tuple[int, str]:
    """(exit code, report) of ``validate``'s default load.

    The default load is the one the compiled-project cache holds: a project whose files, engine
    and interpreter are those of an authentic entry is reported from it (its warnings, counts),
    without loading it; any change, or no entry, loads it (and writes the entry when it is valid).

    Raises:
        UsageError: ``root`` is not a project.
    """
    from engine.cli.reporters import REPORTERS  # noqa: PLC0415
    from engine.guard import cache  # noqa: PLC0415

    report, resolved = cache.validated(root)
    if report is not None:
        return 0, REPORTERS[fmt](report, root=resolved)
    with heap():
        # A static check: unapproved changes are warnings (a judging command refuses them), no record written.
        project, result = cache.build(resolved, pin="report")
        if project is not None and cache.storable(result):
            cache.store(project, result, classes=False)
    return (0 if result.ok else EXIT_INVALID), REPORTERS[fmt](result, root=resolved)


def run_validate(args: list[str], spec: tuple[str | None, bool, str]) -> None:
    """``validate`` as its own program, without click; anything but a report is left to the full parser."""
    root, builtin, fmt = spec
    try:
        if builtin:
            from engine.source.project import builtin_pack_dir  # noqa: PLC0415

            where = builtin_pack_dir()
        else:
            where = Path(root) if root is not None else Path.cwd()
        code, text = validate_report(where, fmt, one_shot_heap)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception:  # the full command line reports it (its messages, its exit codes)
        from engine.cli.fast import run_fast  # noqa: PLC0415

        run_fast(args)
        return
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # nobody reads any more: stop quietly, as the full command line does
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        sys.exit(EXIT_BROKEN_PIPE)
    sys.exit(code)
