"""Digests for the start of a judging process, without OpenSSL.

``hashlib`` loads OpenSSL's library on import (a few milliseconds of every ``guard`` and ``check``
start). CPython's own SHA-256 and BLAKE2 modules give the same digests without it:

- :func:`sha256` is SHA-256 (the same bytes as ``hashlib.sha256``: the state dir's name, the audit
  log's HMAC chain);
- :func:`mac` is keyed BLAKE2b-256 (RFC 7693's keyed mode, a MAC by design), for the engine's own
  files (the compiled-project cache, the warm-start file): over hundreds of kilobytes it is several
  times faster than CPython's SHA-256 without OpenSSL;
- :func:`digest` is unkeyed BLAKE2b-256, for what only needs to change when its input does (the
  cache's key over the project's files).

Each falls back to ``hashlib``/``hmac`` on an interpreter without those modules.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import hashlib
    from hashlib import sha256
__all__ = ["compare_digest", "digest", "mac", "sha256"]


def _first(*candidates: tuple[str, str]) -> Any:
    for module, name in candidates:
        try:
            return getattr(import_module(module), name)
        except (ImportError, AttributeError):
            continue
    raise ImportError(candidates[-1][0])  # pragma: no cover - hashlib is always there


if not TYPE_CHECKING:  # the type checker reads hashlib's (the same interface)
    sha256 = _first(("_sha256", "sha256"), ("_sha2", "sha256"), ("hashlib", "sha256"))
_blake2b: Any = _first(("_blake2", "blake2b"), ("hashlib", "blake2b"))
# Constant time, as hmac.compare_digest (which is this function when OpenSSL is absent).
compare_digest: Any = _first(("_operator", "_compare_digest"), ("hmac", "compare_digest"))

_MAX_KEY = 64  # BLAKE2b's longest key


def mac(key: bytes, data: bytes) -> bytes:
    """Keyed BLAKE2b-256 of ``data`` (a key past 64 bytes is hashed down to 64 first)."""
    if len(key) > _MAX_KEY:
        key = _blake2b(key).digest()
    result: bytes = _blake2b(data, key=key, digest_size=32).digest()
    return result


def digest(data: bytes = b"") -> hashlib.blake2b:
    """An unkeyed BLAKE2b-256 hash object (``update``, ``digest``, ``hexdigest``)."""
    made: hashlib.blake2b = _blake2b(data, digest_size=32)
    return made
