"""Handlers that return or raise whatever the test put in OUTCOMES[key] (default: "ok").

A function stored there is called (awaited, when it is a coroutine function) and its
result returned: a test can make a handler block, wait or swallow a cancellation.
"""

from __future__ import annotations

import asyncio
import inspect
import types
from typing import Any

OUTCOMES: dict[str, Any] = {}


def _outcome(key: str) -> Any:
    value = OUTCOMES.get(key, "ok")
    if isinstance(value, BaseException) or (isinstance(value, type) and issubclass(value, BaseException)):
        raise value
    return value


def give(key: str = "", text: Any = None, count: int = 0, flag: bool = False, items: list[Any] | None = None,
         command: str = "", path: str = "") -> Any:
    value = _outcome(key)
    return value() if isinstance(value, types.FunctionType) else value


async def agive(key: str = "", text: Any = None, count: int = 0, flag: bool = False,
                items: list[Any] | None = None) -> Any:
    await asyncio.sleep(0)
    value = _outcome(key)
    if inspect.iscoroutinefunction(value):
        return await value()
    return value() if isinstance(value, types.FunctionType) else value
