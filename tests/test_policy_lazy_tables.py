"""Issue 8 (stop 32): an Analyzer's tables that most lines never write start as one shared empty
value (shell._NO_ENTRIES, _NO_ITEMS, _NO_NAMES) and get one of their own where they are first
written. A write that missed that step would change every later line's table: these tests write
each table and check that the line got its own and the shared values stay empty."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from engine import Engine
from engine.policy import shell
from engine.policy.variables import SHELL_OWN
from tests.conftest import REPO

SAMPLE = REPO / "tests" / "data" / "commands-sample.jsonl"

# A line that writes each table (data only: read by the analyzer, never run).
WRITES = {
    "aliases": "alias ll='ls -l'; ll",
    "alias_scopes": "alias ll='ls -l'; ll",
    "sinks": "echo hi > >(cat)",
    "history": "history -s ls; fc -s",
    "moved": "mv a.txt b.txt",
    "exec_reads": "exec < in.txt; cat",
    "exec_numbered": "exec 3< in.txt; cat <&3",
    "own_inputs": "sh 3< x.txt",
    "frames": "f() { local x=1; echo $x; }; f",
    "calling": "f() { echo a; }; f",
    "split_once": "echo $(ls) $(ls)",
    "hashed": "hash -p /bin/ls ll; ll",
    "references": "declare -n r=x; r=1",
}
SHARED = (shell._NO_ENTRIES, shell._NO_ITEMS, shell._NO_NAMES)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    loaded = Engine.load(REPO, config={"state_dir": str(tmp_path_factory.mktemp("state"))})
    yield loaded
    loaded.close()


def _still_empty() -> None:
    assert not shell._NO_ENTRIES and not shell._NO_ITEMS and not shell._NO_NAMES


@pytest.mark.parametrize("table", sorted(WRITES))
def test_a_written_table_is_the_lines_own(engine: Engine, table: str) -> None:
    analyzer = shell.Analyzer(engine._evaluator(engine._snapshot).policy.programs)
    assert any(getattr(analyzer, table) is s for s in SHARED)
    analyzer.analyze(WRITES[table])
    assert all(getattr(analyzer, table) is not s for s in SHARED)
    _still_empty()
    fresh = shell.Analyzer(engine._evaluator(engine._snapshot).policy.programs)
    assert not getattr(fresh, table)


def test_the_shared_tables_stay_empty_over_the_corpus(engine: Engine) -> None:
    texts = [json.loads(line)["cmd"] for line in SAMPLE.read_text().splitlines() if line.strip()]
    for text in [*texts, *WRITES.values()]:
        engine.check(text)
    _still_empty()


def test_a_line_that_leaves_a_shared_table_written_fails_loudly(engine: Engine) -> None:
    """Analyzer.analyze checks the shared tables after each line (an assert: a few instructions): a
    writer that forgot its `is _NO_...` step fails the line, not every later line quietly."""
    analyzer = shell.Analyzer(engine._evaluator(engine._snapshot).policy.programs)
    shell._NO_ITEMS.append("x")  # what such a writer leaves
    try:
        with pytest.raises(AssertionError, match="shared empty table"):
            analyzer.analyze("ls -la")
    finally:
        shell._NO_ITEMS.clear()
    _still_empty()


def test_the_positional_keys_skipped_when_absent_are_the_shells_own() -> None:
    """Analyzer._drop_positional skips an absent key: right only for keys never remembered as lost."""
    assert {*shell._POSITIONAL_KEYS, "0"} <= SHELL_OWN
