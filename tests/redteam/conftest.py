"""The red-team suite: payloads an adaptive caller sends, and near misses that must stay allowed.

One file per family. Payloads must never be `allow`; near misses (safe commands that
look like the payloads) must stay `allow`. Harm itself is tested end to end in test_harm.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import Engine
from engine.policy.model import Verdict
from tests.conftest import REPO

RANK = {"allow": 0, "ask": 1, "deny": 2}


@pytest.fixture(scope="session")
def engine() -> Iterator[Engine]:
    engine = Engine.load(REPO)
    yield engine
    engine.close()


def judge(engine: Engine, command: str) -> Verdict:
    """The verdict for a terminal call running ``command``."""
    return engine.check(command)


def strictness(verdict: Verdict) -> tuple[int, bool, bool]:
    """Orders verdicts: a larger value is stricter (hardline above deny, a grant-proof ask above an ask)."""
    return RANK[verdict.decision], verdict.hardline, not verdict.grantable
