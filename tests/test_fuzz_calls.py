"""Property: no generated name, argument text or handler outcome reaches the host as an
exception through call, acall, call_batch, handle_function_call or check, and every result
keeps the contract (a ToolResult with text output; errors typed, never internal).

bench/bench_robust.py runs the same drivers 10,000 times per entry point."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.fuzz_calls import ENTRY_POINTS, Harness, make_run

EXAMPLES = 200


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    made = Harness()
    yield made
    made.close()


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_no_generated_call_reaches_the_host_as_an_exception(harness: Harness, entry: str) -> None:
    make_run(harness, entry, EXAMPLES)()
