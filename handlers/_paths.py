"""Path confinement shared by the file tools and the terminal's cwd."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from engine.dispatch.context import CallContext, ToolFailure
from engine.policy.landing import case_folded

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
    try:
        candidate = Path(raw).expanduser()
    except RuntimeError:
        user = raw[1:].split("/", 1)[0]
        raise ToolFailure(f"{raw!r}: there is no user {user!r} on this machine to expand ~{user} for") from None
    if not candidate.is_absolute():
        candidate = ctx.workdir / candidate
    real = _real(candidate)
    roots = allowed_roots(ctx)
    if not any(real == root or real.is_relative_to(root) for root in roots):
        raise ToolFailure(
            f"{raw!r} resolves to {real}, outside the working directory {roots[0]}"
            + (" and the configured roots" if len(roots) > 1 else "")
        )
    protected(ctx, raw, real, write=write)
    if not write:
        # A read where a file system that ignores case lands it: `.ENV` opens `.env` on macOS, and
        # the policy, which asks for `.env`, judged the spelling.
        folded = Path(case_folded(str(real), str(root_of(ctx, real))))
        if folded != real:
            protected(ctx, raw, folded, write=False)
            hidden = (classes_of(ctx, folded) & SKIPPED) - classes_of(ctx, real)
            if hidden:
                raise ToolFailure(
                    f"refusing {raw!r}: a file system that ignores case opens {display(ctx, folded)} for it "
                    f"({sorted(hidden)[0]}); name it as it is spelled on disk (reading it asks)",
                    recoverable=False,
                )
    if write:
        # Judged as spelled and where a case-insensitive file system (macOS, Windows, a casefold
        # folder) lands it: `POLICIES/x.yaml` is `policies/x.yaml` there.
        for spelling in dict.fromkeys((real, Path(case_folded(str(real), str(root_of(ctx, real)))))):
            if spelling != real:
                protected(ctx, raw, spelling, write=True)
            if is_credential_path(spelling):
                raise ToolFailure(
                    f"refusing to write {raw!r}: it is a credential or secrets location", recoverable=False
                )
            if is_policy_path(ctx, spelling):
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


# What no file tool may do whatever a human answers: change the engine's files, read its state.
_HARD_WRITE = frozenset({"engine_files"})
_HARD_READ = frozenset({"engine_state"})
# What a search or a listing skips (a read of each asks on its own): secrets and the state.
SKIPPED = frozenset({"credential", "secret", "engine_state"})


def classes_of(ctx: CallContext, real: Path) -> frozenset[str]:
    """The path classes of a real path on this engine (empty without a classifier)."""
    if ctx.paths is None:
        return frozenset()
    return frozenset(ctx.paths.view().classify(str(real)))


def protected(ctx: CallContext, raw: str, real: Path, *, write: bool) -> None:
    """Judge the real path the handler is about to use again: the policy judged the spelling
    and where it landed when it was checked; a link made since lands here.

    Raises:
        ToolFailure: a write to the engine's files or a read of its state (not recoverable).
    """
    found = classes_of(ctx, real)
    hard = found & (_HARD_WRITE if write else _HARD_READ)
    if hard:
        what = "change the engine's own files" if write else "read the engine's state"
        raise ToolFailure(
            f"refusing {raw!r} (resolved to {real}): no tool may {what} (hardline class {sorted(hard)[0]})",
            recoverable=False,
        )


def root_of(ctx: CallContext, real: Path) -> Path:
    """The allowed root that confines ``real`` (the innermost one)."""
    inside = [root for root in allowed_roots(ctx) if real == root or real.is_relative_to(root)]
    if not inside:
        raise ToolFailure(f"{real} is outside the working directory")
    return max(inside, key=lambda root: len(root.parts))


def display(ctx: CallContext, real: Path) -> str:
    """A path as the model should see it: relative to the working directory when inside it."""
    workdir = _real(ctx.workdir)
    try:
        return real.relative_to(workdir).as_posix() or "."
    except ValueError:
        return str(real)
