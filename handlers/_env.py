"""The environment a child process gets: the parent's, minus anything secret."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

_SECRET_NAME = re.compile(
    r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|_PASS$|_PWD$|DSN$|API)",
    re.IGNORECASE,
)
_SAFE_NAMES = frozenset(
    {"PWD", "OLDPWD", "XAUTHORITY", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KEYBOARD", "SESSION_MANAGER"}
)
_SECRET_VALUE = re.compile(
    r"(^sk-[A-Za-z0-9_-]{16,}|^(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|^github_pat_|^xox[abpr]-|^AKIA[0-9A-Z]{16}"
    r"|^AIza[0-9A-Za-z_-]{30,}|-----BEGIN [A-Z ]*PRIVATE KEY|://[^/\s:@]+:[^/\s@]+@)"
)


def is_secret(name: str, value: str) -> bool:
    if name in _SAFE_NAMES:
        return False
    return bool(_SECRET_NAME.search(name) or _SECRET_VALUE.search(value))


def child_env(allowlist: Iterable[str] = (), base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) without secrets; ``allowlist`` names are kept anyway."""
    source = os.environ if base is None else base
    allowed = set(allowlist)
    return {k: v for k, v in source.items() if k in allowed or not is_secret(k, v)}
