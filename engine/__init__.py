"""hermes-engine: a declarative tool engine for LLM agents."""

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
