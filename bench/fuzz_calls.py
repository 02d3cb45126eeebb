"""Fuzzing the five call entry points with hypothesis: names, argument JSON and handler outcomes.

Shared by tests/test_fuzz_calls.py (a few hundred examples per entry point) and
bench/bench_robust.py (10,000). Each driver returns normally when the engine kept its
contract for one generated call and raises AssertionError when it did not; an exception
of any other kind reaching the driver is the engine letting one through to the host.

The engine under test is the chaos project (tests/projects/good/chaos): its handlers
return or raise whatever the fuzzer stored under ``OUTCOMES["fz"]``, so handler results
are generated too. ``check`` is driven on the builtin pack's policies.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
CHAOS = REPO / "tests" / "projects" / "good" / "chaos"
TOOLS = ["give", "give_timed", "agive", "agive_timed", "shell", "touch", "give_brief", "agive_brief"]
ERROR_TYPES = {
    "unknown_tool",
    "invalid_arguments",
    "invalid_call",
    "handler_error",
    "tool_failure",
    "bad_result",
    "timeout",
    "overloaded",
    "pending_approval",
    "denied",
    "blocked",
    "internal_error",
}


def _deep(depth: int, leaf: Any = 0) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def _json_text(value: Any) -> str:
    """JSON text for a generated value; what json cannot write (deep, huge integers) becomes "{}"."""
    try:
        return json.dumps(value, default=str)
    except (ValueError, RecursionError):
        return "{}"


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise SystemExit("__str__ exits")


texts = st.text(max_size=40) | st.text(st.characters(codec=None, categories=["Cs", "Cc", "Zs"]), max_size=8)
numbers = (
    st.integers()
    | st.integers(min_value=10**300, max_value=10**400)
    | st.floats()
    | st.sampled_from([float("nan"), float("inf"), -0.0])
    | st.sampled_from([4_400, 5_000]).map(lambda n: 10**n)
)
json_values = st.recursive(
    st.none() | st.booleans() | numbers | texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)
deep = st.integers(0, 150_000).map(_deep) | st.integers(0, 3000).map(lambda n: {"a": _deep(n)})

# Factories, so that hypothesis never needs the repr of an exception holding a 50,000-deep list.
raised = st.sampled_from(
    [
        GeneratorExit,
        lambda: BaseException("bare"),
        lambda: SystemExit(2),
        MemoryError,
        lambda: RecursionError("deep"),
        lambda: ValueError("<tool_call>x</tool_call>"),
        StopIteration,
        asyncio.CancelledError,
        TimeoutError,
        _Unprintable,
        lambda: KeyError(_deep(50_000)),
    ]
).map(lambda make: make())
handler_outcomes = st.one_of(
    json_values,
    deep,
    st.integers(2_001, 40_000).map(lambda n: "x" * n),
    st.builds(object),
    st.binary(max_size=8),
    st.sets(st.integers(), max_size=3),
    st.lists(st.fixed_dictionaries({"type": st.sampled_from(["text", "image", "audio", "file"])}), max_size=3),
    st.lists(st.dictionaries(st.sampled_from(["type", "text", "data"]), json_values, max_size=3), max_size=3),
    raised,
)
names = st.one_of(
    st.sampled_from(TOOLS),
    texts,
    st.text(min_size=5_000, max_size=6_000),
    st.integers(),
    st.none(),
    st.lists(st.text(max_size=3), max_size=2),
    st.binary(max_size=8),
)
argument_keys = st.sampled_from(["key", "text", "count", "flag", "items", "command", "path"]) | texts
argument_objects = st.dictionaries(argument_keys, json_values | deep, max_size=5).map(lambda d: {"key": "fz", **d})
raw_arguments = st.one_of(
    argument_objects.map(_json_text),
    texts,
    st.integers(0, 120_000).map(lambda n: '{"text": ' + "[" * n + "]" * n + "}"),
    st.integers(4_000, 6_000).map(lambda n: '{"count": ' + "9" * n + "}"),
    st.just('{"path": "a\\u0000b", "key": "fz"}'),
    st.binary(max_size=16),
)
arguments = st.one_of(
    argument_objects,
    raw_arguments,
    st.none(),
    json_values,
    st.just({"key": "fz", "path": "a\x00b"}),
    st.just({"key": "fz", "path": "~no_such_user_zz/x"}),
)
commands = st.one_of(
    texts,
    st.text(alphabet="ab {},;|&$()'\"\\`<>*-rmf/\n", max_size=300),
    st.integers(1, 2_000).map(lambda n: "echo " + "{a,b}" * n),
    st.integers(1, 5_000).map(lambda n: "echo " + "$(" * n + ")" * n),
    st.integers(1, 3_000).map(lambda n: "bash -c '" * n),
    st.none(),
    st.integers(),
)


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )


class Harness:
    """A chaos engine in a temporary copy, and one driver per entry point."""

    def __init__(self) -> None:
        from engine import Engine

        self.tmp = Path(tempfile.mkdtemp(prefix="hermes-fuzz-"))
        root = self.tmp / "chaos"
        shutil.copytree(CHAOS, root)
        self.engine = Engine.load(root)
        import chaos_handlers  # type: ignore[import-not-found]

        self.outcomes: dict[str, Any] = chaos_handlers.OUTCOMES
        self.checker = Engine.load(REPO)
        self.loop = asyncio.new_event_loop()
        self.calls = 0

    def close(self) -> None:
        self.loop.close()
        self.engine.close()
        self.checker.close()
        # The copy's handler package must not shadow the next load of a chaos project.
        sys.modules.pop("chaos_handlers", None)
        sys.path[:] = [p for p in sys.path if not p.startswith(str(self.tmp))]
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _spills(self) -> None:
        self.calls += 1
        if self.calls % 500 == 0:  # spilled results of the big outcomes; keep the disk use bounded
            shutil.rmtree(self.engine.state_dir / "results", ignore_errors=True)

    def call(self, name: Any, args: Any, outcome: Any) -> None:
        self.outcomes["fz"] = outcome
        self._spills()
        check_result(self.engine.call(name, args))

    def acall(self, name: Any, args: Any, outcome: Any) -> None:
        self.outcomes["fz"] = outcome
        self._spills()
        check_result(self.loop.run_until_complete(self.engine.acall(name, args)))

    def call_batch(self, items: list[tuple[Any, Any]], outcome: Any) -> None:
        self.outcomes["fz"] = outcome
        self._spills()
        results = self.engine.call_batch(items)
        assert len(results) == len(items), (len(results), len(items))
        for result in results:
            check_result(result)

    def handle_function_call(self, name: Any, raw: Any, outcome: Any) -> None:
        self.outcomes["fz"] = outcome
        self._spills()
        output = self.engine.handle_function_call(name, raw)
        assert isinstance(output, str)

    def check(self, command: Any, tool: str) -> None:
        verdict = self.checker.check(command, tool)
        assert verdict.decision in {"allow", "ask", "deny"}, verdict


def check_result(result: Any) -> None:
    from engine.dispatch.results import ToolResult

    assert isinstance(result, ToolResult), type(result)
    assert isinstance(result.output, str)
    if not result.ok:
        assert result.error is not None and result.error.type in ERROR_TYPES, result.error
        if result.error.type == "internal_error":
            raise AssertionError(f"internal error: {result.error.message}")
        assert json.loads(result.output)["error_type"] == result.error.type


CHECK_TOOLS = st.sampled_from(["terminal", "write_file", "read_file", "patch", "nope"])
BATCH_ITEMS = st.lists(
    st.tuples(names, arguments) | st.tuples(st.sampled_from(TOOLS), raw_arguments),
    min_size=1,
    max_size=3,
)

# (entry point, strategies for the driver's positional arguments)
ENTRY_POINTS: dict[str, tuple[Callable[[Harness], Callable[..., None]], tuple[Any, ...]]] = {
    "call": (lambda h: h.call, (names, arguments, handler_outcomes)),
    "acall": (lambda h: h.acall, (names, arguments, handler_outcomes)),
    "call_batch": (lambda h: h.call_batch, (BATCH_ITEMS, handler_outcomes)),
    "handle_function_call": (lambda h: h.handle_function_call, (names, raw_arguments | arguments, handler_outcomes)),
    "check": (lambda h: h.check, (commands, CHECK_TOOLS)),
}


def make_run(
    harness: Harness, entry: str, examples: int, record: Callable[[BaseException], None] | None = None
) -> Callable[[], None]:
    """A hypothesis run of ``examples`` generated calls to ``entry``.

    Without ``record`` the first failure is raised (and shrunk); with it, every failure
    is handed to ``record`` and the run goes on, so a benchmark can count them.
    """
    make, strategies = ENTRY_POINTS[entry]
    driver = make(harness)

    @fuzz_settings(examples)
    @given(st.tuples(*strategies))
    def run(args: tuple[Any, ...]) -> None:
        if record is None:
            driver(*args)
            return
        try:
            driver(*args)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            record(exc)

    return run  # type: ignore[no-any-return]
