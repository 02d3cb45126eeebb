"""The ``hermes-engine`` command line.

``check``, ``guard`` and ``validate`` run without importing the rest of it (engine.cli.fast):
the first two are called once per tool call by other agents, the last on every save or commit,
and their start-up is most of their cost.
"""

from __future__ import annotations

import sys
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
    if args[:1] and args[0] in _FAST:
        # A one-shot process: what its imports compile is read back compiled (engine.guard.warm).
        import atexit  # noqa: PLC0415

        from engine.guard import warm  # noqa: PLC0415

        warm.install()
        atexit.register(warm.save)
    hook = _hook_call(list(args)) if args[:1] == ["guard"] else None
    if hook is not None:
        from engine.guard.hook import run_process  # noqa: PLC0415

        run_process(*hook)
        return
    if args[:1] and args[0] in _FAST:
        from engine.cli.fast import run_fast  # noqa: PLC0415

        run_fast(list(args))
        return
    from engine.cli.main import main as full  # noqa: PLC0415

    full(argv)


def __getattr__(name: str) -> Any:
    if name == "cli":
        from engine.cli.main import cli  # noqa: PLC0415

        return cli
    raise AttributeError(f"module 'engine.cli' has no attribute {name!r}")
