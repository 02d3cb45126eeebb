"""debt40: the verdict assertions the red-team files share (harm.assert_allowed and its kin) fail
on the verdict they exist to catch, and their message names the command and what the verdict says."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine import Engine
from engine.policy.model import Verdict
from tests.redteam.harm import assert_allowed, assert_asks, assert_hardline, assert_not_allowed

Asserting = Callable[[Engine, str], Verdict]

# (helper, a command it passes, a command it fails on, what the failure says of the verdict)
CASES: list[tuple[Asserting, str, str, str]] = [
    (assert_allowed, "ls -la src", "rm -rf ~", "-> deny hardline"),
    (assert_not_allowed, "rm -rf ~", "ls -la src", "-> allow"),
    (assert_asks, "cat ~/.ssh/id_ed25519", "rm -rf ~", "-> deny hardline"),
    (assert_hardline, "rm -rf ~", "cat ~/.ssh/id_ed25519", "-> ask"),
]


@pytest.mark.parametrize(("helper", "passes", "fails", "says"), CASES, ids=[c[0].__name__ for c in CASES])
def test_a_verdict_helper_passes_its_own_and_names_the_command_it_fails_on(
    engine: Engine, helper: Asserting, passes: str, fails: str, says: str
) -> None:
    assert helper(engine, passes) == engine.check(passes)
    with pytest.raises(AssertionError) as failed:
        helper(engine, fails)
    message = str(failed.value)
    assert repr(fails) in message and says in message, message
    if engine.check(fails).matches:
        assert engine.check(fails).matches[0].key in message, message
