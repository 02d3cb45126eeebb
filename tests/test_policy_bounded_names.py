"""Issue 8 (stop 33): what _Index.candidates keeps per command name is bounded. A caller who sends a new
command name in each call must not grow the engine's memory without end."""

from __future__ import annotations

from pathlib import Path

from engine import Engine
from engine.policy import evaluate
from tests.conftest import REPO


def test_candidates_keep_at_most_max_names_command_names(tmp_path: Path) -> None:
    engine = Engine.load(REPO, config={"state_dir": str(tmp_path / "state")})
    try:
        for n in range(evaluate._MAX_NAMES + 50):
            # (a carrier: a lone unknown name is judged before the index is asked)
            assert engine.check(f"sudo tool{n} x").decision != "deny"
        first = engine._evaluator(engine.snapshot)
        terminal = first.patterns_for("terminal", "command")
        kept = [index._names for patterns, index in first._indexes.values() if patterns is terminal]
        assert kept, "the terminal's index was built"
        assert 0 < len(kept[0]) <= evaluate._MAX_NAMES
        # what is kept after the clear still answers: a known name's matchers are found again
        assert engine.check("rm -rf ~").decision == "deny"
    finally:
        engine.close()
