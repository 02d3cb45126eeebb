"""hermes-engine: a declarative tool engine for LLM agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.errors import (
    ConfigurationError,
    HermesError,
    Problem,
    UsageError,
    ValidationFailed,
)

if TYPE_CHECKING:
    from engine.engine import Engine, ToolInfo

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


def __getattr__(name: str) -> Any:
    # The engine (and everything it loads) is imported on first use, so a command that needs
    # only the policy (`guard`, `check` from the cache) does not pay for the whole package.
    if name in ("Engine", "ToolInfo"):
        from engine import engine as _engine  # noqa: PLC0415

        return getattr(_engine, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
