"""Path confinement shared by the file tools and the terminal's cwd."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from engine.dispatch.context import CallContext, ToolFailure

# Where a model must never write, wherever the working directory is.
_HOME_CREDENTIALS = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".config/gh",
    ".config/gcloud",
    ".azure",
    ".pgpass",
    ".pypirc",
    ".npmrc",
    ".hermes",
)
_SYSTEM_CREDENTIALS = ("/etc/passwd", "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh")
_SECRET_NAMES = (".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "id_ecdsa*", "credentials")


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def allowed_roots(ctx: CallContext) -> list[Path]:
    roots = [_real(ctx.workdir)]
    for extra in ctx.config.get("files", "roots"):
        roots.append(_real(ctx.root / Path(extra).expanduser()))
    return roots


def is_credential_path(real: Path) -> bool:
    home = _real(Path.home())
    text = str(real)
    for item in _HOME_CREDENTIALS:
        base = home / item
        if real == base or real.is_relative_to(base):
            return True
    for item in _SYSTEM_CREDENTIALS:
        if text == item or text.startswith(item + "/"):
            return True
    return any(fnmatch.fnmatch(real.name, pattern) for pattern in _SECRET_NAMES)


def is_policy_path(ctx: CallContext, real: Path) -> bool:
    """The engine's own config and policies: editing them would let a model approve itself."""
    root = _real(ctx.root)
    if real.parent == root and real.name in ("hermes-engine.yaml", "hermes-engine.yml"):
        return True
    policies = root / "policies"
    return real == policies or real.is_relative_to(policies)


def resolve(ctx: CallContext, raw: str, *, write: bool = False) -> Path:
    """The real path for ``raw``, refused unless it stays inside an allowed root.

    Raises:
        ToolFailure: traversal or a symlink leads outside, or a write targets credentials.
    """
    if not raw or "\x00" in raw:
        raise ToolFailure("path must be a non-empty string without NUL bytes")
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute():
        candidate = ctx.workdir / candidate
    real = _real(candidate)
    roots = allowed_roots(ctx)
    if not any(real == root or real.is_relative_to(root) for root in roots):
        raise ToolFailure(
            f"{raw!r} resolves to {real}, outside the working directory {roots[0]}"
            + (" and the configured roots" if len(roots) > 1 else "")
        )
    if write:
        if is_credential_path(real):
            raise ToolFailure(f"refusing to write {raw!r}: it is a credential or secrets location", recoverable=False)
        if is_policy_path(ctx, real):
            raise ToolFailure(
                f"refusing to write {raw!r}: the agent cannot edit the project config or its approval policies",
                recoverable=False,
            )
        safe_root = ctx.config.get("files", "safe_root")
        if safe_root:
            safe = _real(ctx.root / Path(safe_root).expanduser())
            if not (real == safe or real.is_relative_to(safe)):
                raise ToolFailure(f"refusing to write {raw!r}: writes are restricted to {safe}")
    return real


def display(ctx: CallContext, real: Path) -> str:
    """A path as the model should see it: relative to the working directory when inside it."""
    workdir = _real(ctx.workdir)
    try:
        return real.relative_to(workdir).as_posix() or "."
    except ValueError:
        return str(real)
