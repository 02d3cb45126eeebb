"""execute_code: a Python or JavaScript snippet, run in the tool's runtime like the terminal runs commands."""

from __future__ import annotations

from typing import Any

from engine.dispatch.context import CallContext
from engine.runtime.code import inline_command

from . import _runtime


def execute_code(code: str, ctx: CallContext, language: str = "python", timeout: float | None = None) -> dict[str, Any]:
    # The very line the policy judged: `python3 -c CODE` / `node -e CODE`.
    return _runtime.run(ctx, inline_command(language, code), timeout=timeout)
