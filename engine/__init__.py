"""hermes-engine: a declarative tool engine for LLM agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.engine import Engine, ToolInfo
    from engine.errors import (
        ConfigurationError,
        HermesError,
        Problem,
        UsageError,
        ValidationFailed,
    )

__all__ = [
    "ConfigurationError",
    "Engine",
    "HermesError",
    "Problem",
    "ToolInfo",
    "UsageError",
    "ValidationFailed",
]
__version__ = "0.1.0"


_ERRORS = ("ConfigurationError", "HermesError", "Problem", "UsageError", "ValidationFailed")


def __getattr__(name: str) -> Any:
    # Nothing imported with the package: the one-shot commands (engine.cli) arrange their
    # start-up (engine.guard.warm) before the first dataclass is made.
    if name in _ERRORS:
        from engine import errors  # noqa: PLC0415

        return getattr(errors, name)
    # The engine (and everything it loads) is imported on first use, so a command that needs
    # only the policy (`guard`, `check` from the cache) does not pay for the whole package.
    if name in ("Engine", "ToolInfo"):
        from engine import engine as _engine  # noqa: PLC0415

        return getattr(_engine, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
