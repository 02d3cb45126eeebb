"""Hooks around a call: pre_tool_call, post_tool_call, transform_tool_result.

A hook is any callable; it receives only the keyword arguments it declares
(``tool``, ``args``, ``session_id``, ``task_id``, ``tool_call_id``, ``generation``,
and after the call ``result``/``output``). A pre hook may return :class:`Block`,
:class:`ModifyArgs` or :class:`AskApproval` (or the dict forms ``{"block": msg}``,
``{"args": {...}}``, ``{"ask": reason}``); None lets the call go on.
A pre hook that raises or times out blocks the call; a post or transform hook that
fails is logged and ignored.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.dispatch.invoke import CallTimeout, call_bounded
from engine.dispatch.workers import Workers
from engine.errors import ConfigurationError

log = logging.getLogger("hermes_engine.hooks")

HOOK_POINTS = ("pre_tool_call", "post_tool_call", "transform_tool_result")


@dataclass(frozen=True, slots=True)
class Block:
    message: str


@dataclass(frozen=True, slots=True)
class ModifyArgs:
    args: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class AskApproval:
    reason: str


PreOutcome = Block | ModifyArgs | AskApproval | None


@dataclass(frozen=True, slots=True)
class Hook:
    point: str
    function: Callable[..., Any]
    name: str
    accepts: frozenset[str] | None  # None: takes **kwargs
    is_async: bool

    def arguments(self, available: Mapping[str, Any]) -> dict[str, Any]:
        if self.accepts is None:
            return dict(available)
        return {k: v for k, v in available.items() if k in self.accepts}


def make_hook(point: str, function: Callable[..., Any], name: str | None = None) -> Hook:
    """Raises:
    ConfigurationError: unknown hook point or a callable whose signature cannot be read.
    """
    if point not in HOOK_POINTS:
        raise ConfigurationError(f"unknown hook point {point!r} (known: {', '.join(HOOK_POINTS)})")
    if not callable(function):
        raise ConfigurationError(f"a {point} hook must be callable, not {type(function).__name__}")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"cannot read the signature of hook {function!r}: {exc}") from None
    accepts: set[str] | None = set()
    for param in signature.parameters.values():
        if param.kind is param.VAR_KEYWORD:
            accepts = None
            break
        if param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            accepts.add(param.name)  # type: ignore[union-attr]
    label = name or getattr(function, "__qualname__", None) or repr(function)
    return Hook(
        point, function, label, None if accepts is None else frozenset(accepts), inspect.iscoroutinefunction(function)
    )


class HookTimeout(Exception):
    pass


class HookRunner:
    """Registered hooks, kept as tuples swapped whole so a call never sees a half-updated list."""

    def __init__(self, timeout: float, workers: Workers | None = None) -> None:
        self.timeout = timeout
        self.workers = workers
        self._added: dict[str, tuple[Hook, ...]] = {p: () for p in HOOK_POINTS}
        self._configured: dict[str, tuple[Hook, ...]] = {p: () for p in HOOK_POINTS}
        self._hooks: dict[str, tuple[Hook, ...]] = {p: () for p in HOOK_POINTS}
        self._lock = threading.Lock()

    def _combine(self) -> None:
        # Config hooks first (the operator's), then those the host added in code.
        self._hooks = {p: (*self._configured[p], *self._added[p]) for p in HOOK_POINTS}

    def set_config_hooks(self, bound: Mapping[str, tuple[Any, ...]]) -> None:
        """Replace the hooks that came from the project config (on load and reload)."""
        with self._lock:
            self._configured = {
                p: tuple(make_hook(p, b.function, b.path) for b in bound.get(p, ())) for p in HOOK_POINTS
            }
            self._combine()

    def add(self, hook: Hook) -> Callable[[], None]:
        with self._lock:
            self._added[hook.point] = (*self._added[hook.point], hook)
            self._combine()

        def remove() -> None:
            with self._lock:
                self._added[hook.point] = tuple(h for h in self._added[hook.point] if h is not hook)
                self._combine()

        return remove

    def get(self, point: str) -> tuple[Hook, ...]:
        return self._hooks[point]

    def invoke(self, hook: Hook, available: Mapping[str, Any]) -> Any:
        """Run one hook with its declared arguments, bounded by the hook timeout.

        Raises:
            HookTimeout: the hook did not return in time.
            Exception: whatever the hook raised.
        """
        try:
            return call_bounded(
                hook.function, hook.arguments(available), self.timeout or None, self.workers, f"hook {hook.name}"
            )
        except CallTimeout:
            raise HookTimeout(f"hook {hook.name} timed out after {self.timeout:g}s") from None


def interpret_pre(value: Any) -> PreOutcome:
    """Read what a pre hook returned.

    Raises:
        ValueError: the hook returned something that is not a known outcome.
    """
    if value is None or isinstance(value, (Block, ModifyArgs, AskApproval)):
        return value
    if isinstance(value, Mapping) and len(value) == 1:
        ((key, item),) = value.items()
        if key == "block":
            return Block(str(item))
        if key == "args" and isinstance(item, Mapping):
            return ModifyArgs(dict(item))
        if key == "ask":
            return AskApproval(str(item))
    raise ValueError(f"a pre_tool_call hook returned {value!r}; expected None, Block, ModifyArgs or AskApproval")
