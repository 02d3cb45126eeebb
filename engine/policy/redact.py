"""Credentials masked before a command is written down (the audit log).

Best effort over text: header values (`Authorization:`), bearer tokens, user:password
pairs (`-u user:pass`, URLs), database passwords glued to their option
(`mysql -pPASS`), password and token options and environment assignments, and the
shapes of well-known keys. What is kept says which kind of secret was there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_FIELD = 2000
MASK = "[redacted]"

_VALUE = r"""(['"]?)[^\s'"]+"""
_RULES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    # Authorization: Basic ..., Proxy-Authorization: Bearer ..., X-Api-Key: ...
    (
        re.compile(
            r"(?i)\b((?:proxy-)?authorization|x-[a-z-]*(?:token|key|secret)|api-key|cookie)(\s*:\s*)"
            r"(?:(bearer|basic|token|digest|negotiate)\s+)?[^\s'\"]+"
        ),
        lambda m: f"{m[1]}{m[2]}{m[3] + ' ' if m[3] else ''}{MASK}",
    ),
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{6,}"), r"\1 " + MASK),
    # curl -u user:pass, --user=user:pass, --proxy-user user:pass
    (
        re.compile(r"(?<![\w-])(-u\s*|-U\s*|--(?:proxy-)?user(?:=|\s+))(['\"]?)([^\s:'\"]*):[^\s'\"]+"),
        r"\1\2\3:" + MASK,
    ),
    # mysql -pPASS (the password glued to -p), sshpass -pPASS
    (
        re.compile(r"(?i)\b((?:mysql\w*|mariadb[\w-]*|sshpass)\b[^;&|\n]*?\s)-p" + _VALUE),
        r"\1-p\2" + MASK,
    ),
    # --password=X, --password X, --token X, --api-key X, ...
    (
        re.compile(
            r"(?i)(--?(?:password|passwd|pass|token|secret|api[-_]?key|access[-_]token|auth[-_]token|client[-_]secret)"
            r"(?:=|\s+))" + _VALUE
        ),
        r"\1\2" + MASK,
    ),
    # MYSQL_PWD=..., GITHUB_TOKEN=..., AWS_SECRET_ACCESS_KEY=...
    (
        re.compile(
            r"\b([A-Za-z0-9_]*(?:PASSWORD|PASSWD|PWD|TOKEN|SECRET|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)"
            r"[A-Za-z0-9_]*=)" + _VALUE,
            re.IGNORECASE,
        ),
        r"\1\2" + MASK,
    ),
    # password: x, secret=x, api_key: x (config-ish text)
    (re.compile(r"(?i)\b(password|passwd|secret|token|api[_-]?key)(\s*[:=]\s*)" + _VALUE), r"\1\2\3" + MASK),
    # scheme://user:password@host
    (re.compile(r"(://[^/\s:@'\"]+:)[^/\s@'\"]+@"), r"\1" + MASK + "@"),
    # Key shapes: OpenAI/Anthropic, GitHub, Slack, AWS, Google, Stripe, JWTs.
    (
        re.compile(
            r"\b(?:sk-(?:ant-)?[A-Za-z0-9_-]{16,}|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_\w{20,}"
            r"|xox[abposr]-[\w-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"
            r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
        ),
        MASK,
    ),
)


def redact(text: str) -> str:
    """``text`` with values that look like credentials masked, cut to MAX_FIELD characters."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text[:MAX_FIELD]
