"""The ``hermes-engine`` command line.

``check``, ``guard`` and ``validate`` run without importing the rest of it (engine.cli.fast):
the first two are called once per tool call by other agents, the last on every save or commit,
and their start-up is most of their cost.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["cli", "main"]

_FAST = ("check", "guard", "validate")


def _hook_call(args: list[str]) -> tuple[str, str | None, bool] | None:
    """(agent, root, builtin) when ``args`` is exactly ``guard --for AGENT [--root PATH | --builtin]``,
    the form agents run once per tool call; anything else goes through the full parser."""
    agent: str | None = None
    root: str | None = None
    builtin = False
    rest = args[1:]
    i = 0
    while i < len(rest):
        word = rest[i]
        name, equals, value = word.partition("=")
        if name in ("--for", "--root") and not equals:
            if i + 1 >= len(rest):
                return None
            value, i = rest[i + 1], i + 2
        elif name in ("--for", "--root"):
            i += 1
        elif word == "--builtin" and not builtin:
            builtin, i = True, i + 1
            continue
        else:
            return None
        if name == "--for" and agent is None:
            agent = value
        elif name == "--root" and root is None and value:
            root = value
        else:
            return None
    if agent not in ("claude-code", "codex", "gemini") or (root is not None and builtin):
        return None
    return agent, root, builtin


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    args = sys.argv[1:] if argv is None else argv
    if not (args[:1] and args[0] in _FAST):
        from engine.cli.main import main as full  # noqa: PLC0415

        full(argv)
        return
    # A one-shot process: what its imports compile is read back compiled (engine.guard.warm).
    import atexit  # noqa: PLC0415

    from engine.guard.deferred import defer_stdlib, hold_collection  # noqa: PLC0415

    if args[0] in ("check", "guard"):
        # Until the evaluator is built (engine.guard.hook.evaluator_for; engine.cli.fast for any
        # other shape of these commands).
        hold_collection()
    defer_stdlib()
    from engine.guard import warm  # noqa: PLC0415

    warm.install()  # before the first module that makes a dataclass or compiles a regex
    atexit.register(warm.save)
    hook = _hook_call(list(args)) if args[:1] == ["guard"] else None
    check = plain = None
    if args[:1] == ["check"]:
        from engine.cli.verdict import check_call  # noqa: PLC0415

        check = check_call(list(args))
    elif args[:1] == ["validate"]:
        from engine.cli.plain import validate_call  # noqa: PLC0415

        plain = validate_call(list(args))
    try:
        if hook is not None:
            from engine.guard.hook import run_process  # noqa: PLC0415

            run_process(*hook)
        elif check is not None:
            from engine.cli.verdict import run_check  # noqa: PLC0415

            run_check(list(args), check)
        elif plain is not None:
            from engine.cli.plain import run_validate  # noqa: PLC0415

            run_validate(list(args), plain)
        else:
            from engine.cli.fast import run_fast  # noqa: PLC0415

            run_fast(list(args))
    except SystemExit as exc:
        # The program itself (not a caller's main([...])), and nothing profiling or tracing it
        # (cProfile, coverage: they write their data at exit): end it now.
        if argv is None and sys.getprofile() is None and sys.gettrace() is None:
            _exit_now(exc.code)
        raise


def _exit_now(code: str | int | None) -> None:
    """Exit as ``sys.exit(code)`` would, without tearing the interpreter down: a hook process ends
    right after its answer, and freeing every module and object it loaded costs more than the
    verdict (~20 ms of a warm guard here). What an exit does besides is still done: the atexit
    functions run (the warm-start file, logging's flush, anything a plugin registered) and the
    output is flushed. A process with another thread still running exits the usual way."""
    import atexit  # noqa: PLC0415
    import contextlib  # noqa: PLC0415
    import os  # noqa: PLC0415

    threading = sys.modules.get("threading")
    if threading is not None and any(
        t is not threading.main_thread() and t.is_alive() and not t.daemon for t in threading.enumerate()
    ):
        sys.exit(code)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): the message on stderr, status 1
        print(code, file=sys.stderr)
        status = 1
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)
    if run_exitfuncs is None:  # not CPython's atexit: the usual exit
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that went away: nothing more to say
            stream.flush()
    run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status & 0xFF)


def __getattr__(name: str) -> Any:
    if name == "cli":
        from engine.cli.main import cli  # noqa: PLC0415

        return cli
    raise AttributeError(f"module 'engine.cli' has no attribute {name!r}")
