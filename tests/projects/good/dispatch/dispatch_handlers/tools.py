"""Handlers that exercise every branch of the call pipeline."""

import asyncio
import threading
import time
from typing import Any

from engine.dispatch.context import CallContext, ToolFailure

# Rendezvous for concurrency tests: two calls that run at the same time both pass.
BARRIER = threading.Barrier(2, timeout=1)
EVENTS: list[str] = []


def echo(text: str) -> str:
    return text


async def aecho(text: str) -> str:
    return text


async def asuspend(text: str) -> str:
    await asyncio.sleep(0.01)
    return text.upper()


def slow(seconds: float) -> str:
    time.sleep(seconds)
    return "done"


async def aslow(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "done"


def raiser(message: str) -> str:
    raise ValueError(message)


def failure(message: str) -> str:
    raise ToolFailure(message, recoverable=False)


def exits() -> str:
    raise SystemExit(3)


def bug() -> str:
    return undefined_name  # type: ignore[name-defined]  # noqa: F821


def returns(kind: str) -> Any:
    return {"object": object(), "int": 5, "none": None, "bytes": b"x", "dict": {"a": [1, 2]},
            "list": [1, "two"], "nan": {"x": float("nan")}}[kind]


def multimodal() -> list[dict[str, Any]]:
    return [{"type": "text", "text": "a chart"}, {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}]


def big(size: int) -> str:
    return "x" * size


def whoami(ctx: CallContext) -> dict[str, Any]:
    return {"tool": ctx.tool, "session": ctx.session_id, "task": ctx.task_id, "call": ctx.tool_call_id,
            "generation": ctx.generation}


def typed(count: int = 0, ratio: float = 0.0, flag: bool = False, tags: list[str] | None = None,
          opts: dict[str, Any] | None = None, code: str | int | None = None, maybe: int | None = -1,
          label: str | None = "unset") -> dict[str, Any]:
    return {"count": count, "ratio": ratio, "flag": flag, "tags": tags, "opts": opts, "code": code, "maybe": maybe,
            "label": label}


def narrow(path: str) -> str:
    return path


def meet(name: str) -> str:
    BARRIER.wait()
    EVENTS.append(name)
    return name


def touch(path: str) -> str:
    EVENTS.append(f"start {path}")
    time.sleep(0.05)
    EVENTS.append(f"end {path}")
    return path


def thread_name() -> str:
    return threading.current_thread().name
