"""debt40: the verdict assertions the red-team files share (harm.assert_allowed and its kin) fail
on the verdict they exist to catch, and their message names the command and what the verdict says."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine import Engine
from engine.policy import shell
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


# -- shell._READS_ONLY: read only for a program the Programs table does not describe ---------------------------------
# (shell.Analyzer._unwrap reads it where `program is None`, after `name not in _BASH_BUILTINS`: a name the table
# describes, or a bash builtin, is never looked up in it)
REMOVED = ["basename", "dir", "dirname", "du", "file", "less", "ls", "more", "most", "readlink", "realpath", "sort"]
REMOVED += ["stat", "uniq", "xxd"]


def test_every_name_read_as_reading_only_is_one_the_table_does_not_describe(engine: Engine) -> None:
    table = engine._evaluator(engine._snapshot).policy.programs
    unread = sorted(name for name in shell._READS_ONLY if name in table.by_name or name in shell._BASH_BUILTINS)
    assert unread == [], f"listed in shell._READS_ONLY, never read there: {unread}"
    assert all(name in table.by_name for name in REMOVED), "a name taken out is described no more: list it again"


@pytest.mark.parametrize("name", REMOVED)
def test_a_described_reader_given_a_command_is_read_as_before(engine: Engine, name: str) -> None:
    """The names taken out keep their verdicts: an acting program's name as their operand is data, a hardline
    command after them on the line is still judged."""
    assert_allowed(engine, f"{name} reboot")
    assert_hardline(engine, f"{name} x; rm -rf ~")
