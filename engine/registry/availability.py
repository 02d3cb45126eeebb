"""Whether a tool can be offered right now: requires_env and check functions, TTL-cached."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.registry.specs import ToolSpec


class Unavailable(Exception):
    """Raised by a check to say why its tool cannot be used now, in words a user reads as is."""


@dataclass(frozen=True, slots=True)
class Availability:
    available: bool
    reason: str | None = None


AVAILABLE = Availability(True)


class AvailabilityCache:
    """Per-tool availability, reused for ``ttl`` seconds.

    Tools without ``requires_env`` or a check are always available and never
    cached. A check that raises makes its tool unavailable with the reason.
    """

    def __init__(
        self,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
        runtime_reason: Callable[[ToolSpec], str | None] | None = None,
    ) -> None:
        self.ttl = ttl
        self._clock = clock
        # Why the runtime a tool names cannot work (None: it can, or the tool names none).
        self._runtime_reason = runtime_reason
        self._entries: dict[str, tuple[float, Availability]] = {}
        self._lock = threading.Lock()

    def get(self, spec: ToolSpec) -> Availability:
        if not spec.requires_env and spec.check is None and spec.runtime is None:
            return AVAILABLE
        now = self._clock()
        entry = self._entries.get(spec.name)
        if entry is not None and entry[0] > now:
            return entry[1]
        result = evaluate(spec)
        if result.available and spec.runtime is not None and self._runtime_reason is not None:
            reason = self._runtime_reason(spec)
            if reason is not None:
                result = Availability(False, reason)
        with self._lock:
            self._entries[spec.name] = (now + self.ttl, result)
        return result

    def expires_at(self, spec: ToolSpec) -> float:
        """When the cached answer for ``spec`` stops being valid (inf: never cached)."""
        if not spec.requires_env and spec.check is None and spec.runtime is None:
            return float("inf")
        entry = self._entries.get(spec.name)
        return entry[0] if entry is not None else 0.0

    def invalidate(self, name: str | None = None) -> None:
        with self._lock:
            if name is None:
                self._entries.clear()
            else:
                self._entries.pop(name, None)


def evaluate(spec: ToolSpec) -> Availability:
    missing = [v for v in spec.requires_env if not os.environ.get(v)]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        return Availability(False, f"missing environment variable{plural}: {', '.join(missing)}")
    if spec.check is not None:
        try:
            ok = spec.check.function()
        except Unavailable as exc:
            return Availability(False, str(exc))
        except Exception as exc:
            return Availability(False, f"check {spec.check.path} raised {type(exc).__name__}: {exc}")
        if not ok:
            return Availability(False, f"check {spec.check.path} returned {ok!r}")
    return AVAILABLE
