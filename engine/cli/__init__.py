"""The ``hermes-engine`` command line."""

from engine.cli.main import cli, main

__all__ = ["cli", "main"]
