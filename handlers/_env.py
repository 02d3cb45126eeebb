"""The environment a child process gets: named variables only, never the engine's secrets.

Name heuristics (``*_KEY``, ``*_TOKEN``) miss ``REDIS_URL`` with a password, Slack webhooks,
connection strings and JWTs; so nothing passes unless it is on the allowlist: what a shell
needs to work, plus what the project names in ``terminal.env_allowlist``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

BASE_NAMES = frozenset({"PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "TMPDIR"})


def is_passed(name: str, allowed: frozenset[str]) -> bool:
    return name in BASE_NAMES or name.startswith("LC_") or name in allowed


def child_env(allowlist: Iterable[str] = (), base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of ``base`` (default ``os.environ``) a child may see.

    ``SSH_AUTH_SOCK`` (the agent holding the user's keys) passes only when the allowlist names it.
    """
    source = os.environ if base is None else base
    allowed = frozenset(allowlist)
    return {k: v for k, v in source.items() if is_passed(k, allowed)}
