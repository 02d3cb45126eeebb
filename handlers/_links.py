"""The file tools' view of hard links (see engine.policy.hardlinks)."""

from __future__ import annotations

from engine.dispatch.context import CallContext
from engine.policy.hardlinks import HardLinks

from ._paths import SKIPPED, allowed_roots, classes_of, display


def hard_links(ctx: CallContext) -> HardLinks:
    """A call's finder: its roots, its path classes; secrets and the engine's state are hidden."""
    return HardLinks(allowed_roots(ctx), lambda path: classes_of(ctx, path), SKIPPED, lambda path: display(ctx, path))
