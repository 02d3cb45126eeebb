"""One boundary for exceptions: nothing a caller sends or a handler does reaches the host as an
exception through call, acall, call_batch, handle_function_call or check."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Engine


@pytest.fixture
def chaos(project_copy: Any) -> Iterator[tuple[Engine, dict[str, Any]]]:
    engine = Engine.load(project_copy("good/chaos"))
    import chaos_handlers  # type: ignore[import-not-found]

    chaos_handlers.OUTCOMES.clear()
    yield engine, chaos_handlers.OUTCOMES
    engine.close()


def _deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise SystemExit("a __str__ that exits")


@pytest.mark.parametrize(
    "raised,shown",
    [
        (GeneratorExit(), "GeneratorExit"),
        (BaseException("bare"), "BaseException: bare"),
        (SystemExit(3), "SystemExit: 3"),
        (asyncio.CancelledError(), "CancelledError"),
        (MemoryError(), "MemoryError"),
        (RecursionError("deep"), "RecursionError: deep"),
        (_Unprintable(), "_Unprintable: (its message cannot be shown)"),
    ],
)
@pytest.mark.parametrize("tool", ["give", "give_timed", "agive", "agive_timed"])
def test_anything_a_handler_raises_but_ctrl_c_is_an_error_result(
    chaos: tuple[Engine, dict[str, Any]], tool: str, raised: BaseException, shown: str
) -> None:
    engine, outcomes = chaos
    outcomes["x"] = raised
    result = engine.call(tool, {"key": "x"})
    assert result.error is not None and result.error.type == "handler_error"
    assert result.error.message == shown
    assert asyncio.run(engine.acall(tool, {"key": "x"})).error == result.error
    assert json.loads(engine.handle_function_call(tool, '{"key": "x"}'))["error"] == shown


def test_ctrl_c_in_a_handler_still_reaches_the_host(chaos: tuple[Engine, dict[str, Any]]) -> None:
    engine, outcomes = chaos
    outcomes["x"] = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        engine.call("give", {"key": "x"})


def test_a_result_nested_too_deeply_to_serialise_is_a_bad_result(chaos: tuple[Engine, dict[str, Any]]) -> None:
    engine, outcomes = chaos
    outcomes["x"] = _deep_list(100_000)
    for result in (engine.call("give", {"key": "x"}), engine.call_batch([("agive", {"key": "x"})])[0]):
        assert result.error is not None and result.error.type == "bad_result"
        assert "nested too deeply" in result.error.message


@pytest.mark.parametrize("opener,closer", [("[", "]"), ('{"a":', "}")])
def test_arguments_nested_past_the_json_reader_are_invalid_arguments(
    chaos: tuple[Engine, dict[str, Any]], opener: str, closer: str
) -> None:
    engine, _ = chaos
    raw = '{"text": ' + opener * 100_000 + "1" + closer * 100_000 + "}"
    output = json.loads(engine.handle_function_call("give", raw))
    assert output["error_type"] == "invalid_arguments" and "nested too deeply" in output["error"]
    [result] = engine.call_batch([("give", raw)])
    assert result.error is not None and result.error.type == "invalid_arguments"


def test_a_deeply_nested_argument_object_is_refused_not_raised(chaos: tuple[Engine, dict[str, Any]]) -> None:
    engine, _ = chaos
    result = engine.call("give", {"items": _deep_list(100_000)})
    assert result.error is not None and result.error.type == "invalid_arguments"


def test_integers_past_the_digit_limit_are_refused_by_coercion(chaos: tuple[Engine, dict[str, Any]]) -> None:
    engine, _ = chaos
    result = engine.call("give", {"count": "9" * 10_000})
    assert result.error is not None and result.error.type == "invalid_arguments"


@pytest.mark.parametrize("name", [5, None, ["give"], {"a": 1}, b"give", "x" * 100_000])
def test_a_tool_name_that_is_not_a_known_string_is_an_unknown_tool(
    chaos: tuple[Engine, dict[str, Any]], name: Any
) -> None:
    engine, _ = chaos
    result = engine.call(name, {})
    assert result.error is not None and result.error.type == "unknown_tool"
    assert len(result.error.message) < 1000
    assert asyncio.run(engine.acall(name, {})).error == result.error


def test_a_batch_item_that_is_not_a_call_gets_its_own_error_and_the_others_run(
    chaos: tuple[Engine, dict[str, Any]],
) -> None:
    engine, _ = chaos
    results = engine.call_batch([("give", {}), 5, "give", ("give", "{}", "id-3"), ("only-a-name",)])
    assert [r.ok for r in results] == [True, False, False, True, False]
    assert [r.error.type for r in results if r.error] == ["invalid_call"] * 3
    assert results[3].metadata.tool_call_id == "id-3"


def test_a_batch_that_is_not_iterable_is_one_error_result(chaos: tuple[Engine, dict[str, Any]]) -> None:
    engine, _ = chaos
    [result] = engine.call_batch(5)  # type: ignore[arg-type]
    assert result.error is not None and result.error.type == "internal_error"


def test_a_path_with_a_nul_byte_in_a_batch_is_the_handlers_error_not_an_exception(
    project_copy: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    engine = Engine.load(Path(__file__).resolve().parent.parent)
    calls = [
        ("read_file", {"path": "a\u0000b"}),
        ("read_file", '{"path": "a\\u0000b"}'),
        ("read_file", {"path": "~nobody_x/y"}),
    ]
    results = engine.call_batch(calls)
    assert len(results) == 3
    assert all(r.error is not None and r.error.type in {"tool_failure", "handler_error"} for r in results)


def test_an_unusable_state_dir_still_returns_the_capped_result_and_says_why(
    chaos: tuple[Engine, dict[str, Any]], tmp_path: Path
) -> None:
    blocker = tmp_path / "state"
    engine = Engine.load(chaos[0].root, config={"state_dir": str(blocker)})
    blocker.write_text("not a directory")  # unusable after the load (validate refuses it before)
    import chaos_handlers

    chaos_handlers.OUTCOMES["big"] = "y" * 50_000
    result = engine.call("give", {"key": "big"})
    assert result.ok and result.metadata.truncated and result.metadata.spilled_to is None
    assert len(result.output) <= 2000 and result.output.startswith("yyy")
    assert "could not be saved" in result.output
    assert blocker.read_text() == "not a directory"


def test_a_detector_failure_is_a_fail_closed_verdict_and_an_ask_that_cannot_be_granted(
    chaos: tuple[Engine, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.policy.evaluate import Evaluator

    engine, _ = chaos

    def explode(*_: Any, **__: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(Evaluator, "verdict", explode)
    verdict = engine.check("ls", "shell")
    assert (verdict.decision, verdict.hardline, verdict.grantable) == ("ask", False, False)
    asked: list[Any] = []

    def approver(request: Any) -> str:
        asked.append(request)
        return "session"

    engine.set_approval_callback(approver)
    result = engine.call("shell", {"command": "ls"})
    assert asked and not asked[0].verdict.grantable
    assert result.ok  # approved once by the human; the session grant must not carry over
    engine.set_approval_callback(None)
    again = engine.call("shell", {"command": "ls"})
    assert again.error is not None and again.error.type in {"pending_approval", "denied"}


def test_a_pre_hook_raising_a_base_exception_blocks_the_call(chaos: tuple[Engine, dict[str, Any]]) -> None:
    engine, _ = chaos

    def hook() -> None:
        raise SystemExit("hook exits")

    engine.add_hook("pre_tool_call", hook)
    result = engine.call("give", {})
    assert result.error is not None and result.error.type == "blocked" and "SystemExit" in result.error.message


def test_acall_lets_the_hosts_own_cancellation_through(chaos: tuple[Engine, dict[str, Any]]) -> None:
    engine, outcomes = chaos

    async def host() -> None:
        started = asyncio.Event()

        async def wait_forever() -> str:
            started.set()
            await asyncio.Event().wait()
            return "never"

        outcomes["x"] = wait_forever
        task = asyncio.ensure_future(engine.acall("agive", {"key": "x"}))
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(host())
