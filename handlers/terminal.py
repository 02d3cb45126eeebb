"""terminal and process: shell commands in the tool's runtime (the host itself by default).

Every runtime keeps the same contract (see engine.runtime): output is read from a pipe and
capped in memory, a background log is capped on disk, the timeout and the engine's close end
the whole process tree (``setsid`` children included), and the child sees only the
allowlisted environment. Background processes belong to the session that started them.
"""

from __future__ import annotations

from typing import Any

from engine.dispatch.context import CallContext

from . import _runtime


def terminal(
    command: str,
    ctx: CallContext,
    timeout: float | None = None,
    cwd: str | None = None,
    background: bool = False,
) -> dict[str, Any]:
    return _runtime.terminal(ctx, command, timeout, cwd, background)  # type: ignore[no-any-return]


def process(
    action: str,
    ctx: CallContext,
    process_id: str | None = None,
    input: str | None = None,
    timeout: float = 30,
    lines: int = 200,
) -> Any:
    return _runtime.process(action, ctx, process_id, input, timeout, lines)
