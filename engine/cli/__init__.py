"""The ``hermes-engine`` command line.

``check`` and ``guard`` run without importing the rest of it (engine.cli.fast): they are
called once per tool call by other agents, and their start-up is most of their cost.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["cli", "main"]

_FAST = ("check", "guard")


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    args = sys.argv[1:] if argv is None else argv
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
