"""What the framework adapters share: the tools on offer, and results as content parts."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.engine import Engine


@dataclass(frozen=True, slots=True)
class Offered:
    """One tool as the model is shown it."""

    name: str
    description: str
    parameters: dict[str, Any]  # the adapter's own copy: frameworks may change it in place
    strict: bool


def offered(
    engine: Engine, enabled: Iterable[str] | None, disabled: Iterable[str] | None, session_id: str | None
) -> list[Offered]:
    """The tools :meth:`Engine.definitions` offers in the ``openai`` format, one each."""
    definitions = engine.definitions(
        format="openai",
        enabled=None if enabled is None else tuple(enabled),
        disabled=None if disabled is None else tuple(disabled),
        session_id=session_id,
    )
    out = []
    for definition in definitions:
        function = definition["function"]
        out.append(
            Offered(
                function["name"],
                function.get("description") or "",
                copy.deepcopy(dict(function.get("parameters") or {"type": "object", "properties": {}})),
                bool(function.get("strict", False)),
            )
        )
    return out


def missing(framework: str, extra: str, exc: ImportError) -> ImportError:
    """The error for an adapter whose framework is not installed."""
    error = ImportError(f"this adapter needs {framework}: pip install 'hermes-engine[{extra}]' ({exc})")
    error.name = exc.name
    return error
