"""tool_search and tool_describe on the generated catalog: recall, scope, bad input."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.catalog import load_queries
from engine import Engine
from engine.dispatch.results import ToolResult
from tests.catalog_project import catalog_engine


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = catalog_engine(tmp_path_factory.mktemp("catalog"))
    yield engine
    engine.close()


def search(engine: Engine, query: Any, session: str | None = "s", **extra: Any) -> ToolResult:
    return engine.call("tool_search", {"query": query, **extra}, session_id=session)


def found(result: ToolResult) -> list[str]:
    assert result.ok, result.output
    return [t["name"] for t in json.loads(result.output)["tools"]]


def refused(result: ToolResult, kind: str = "invalid_arguments") -> str:
    assert not result.ok and result.error is not None, result.output
    assert result.error.type == kind, result.output
    return result.error.message


def test_recall_at_5_on_100_labelled_requests_is_at_least_90_percent(engine: Engine) -> None:
    queries = load_queries()
    assert len(queries) == 100
    assert {q["expect"] for q in queries} <= set(engine.tools)
    misses = [q for q in queries if q["expect"] not in found(search(engine, q["query"], limit=5))]
    assert len(misses) <= 10, misses


def test_the_labelled_requests_cover_every_toolset_and_do_not_copy_tool_names(engine: Engine) -> None:
    queries = load_queries()
    toolsets = {engine.tools[q["expect"]].toolset for q in queries}
    assert toolsets == {t for t in engine.toolsets if engine.toolsets[t].pack == "project"}
    for q in queries:
        assert q["expect"] not in q["query"] and q["expect"].replace("_", " ") not in q["query"].lower()


def test_results_are_in_rank_order_deterministic_and_one_line_each(engine: Engine) -> None:
    first = search(engine, "merge a pull request on GitHub", limit=10)
    assert first.output == search(engine, "merge a pull request on GitHub", limit=10).output
    tools = json.loads(first.output)["tools"]
    assert tools[0]["name"] == "github_merge_pull_request"
    assert len(tools) == 10
    for tool in tools:
        assert set(tool) == {"name", "toolset", "description"}
        assert "\n" not in tool["description"] and len(tool["description"]) <= 160


def test_a_tool_named_outright_comes_first(engine: Engine) -> None:
    assert found(search(engine, "hubspot_link_company"))[0] == "hubspot_link_company"
    assert found(search(engine, "run `redis_copy_hash` please"))[0] == "redis_copy_hash"


def test_a_query_that_matches_nothing_says_so(engine: Engine) -> None:
    result = search(engine, "zzqx qqzv")
    assert found(result) == []
    assert "no tool matched" in json.loads(result.output)["next"]


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"query": ""}, "query is empty"),
        ({"query": "   \n\t"}, "query is empty"),
        ({"query": "x" * 1001}, "at most 1000"),
        ({"query": "weather " * 50_000}, "at most 1000"),
        ({"query": 42}, "query is empty"),
        ({"query": ["weather"]}, "query is empty"),
        ({}, "query is empty"),
        ({"query": "weather", "limit": 0}, "limit must be"),
        ({"query": "weather", "limit": 21}, "limit must be"),
        ({"query": "weather", "limit": "many"}, "limit must be"),
        ({"query": "weather", "limit": True}, "limit must be"),
        ({"query": "weather", "limit": 2.5}, "limit must be"),
        ({"query": "weather", "filter": "x"}, "unexpected: filter"),
    ],
)
def test_bad_searches_are_clear_error_results(engine: Engine, arguments: dict[str, Any], words: str) -> None:
    assert words in refused(engine.call("tool_search", arguments, session_id="s"))


@pytest.mark.parametrize("raw", ["[1, 2]", '"weather"', "not json", "{", "7", "null"])
def test_arguments_that_are_not_an_object_are_refused_from_raw_model_text(engine: Engine, raw: str) -> None:
    text = engine.handle_function_call("tool_search", raw, session_id="s")
    assert json.loads(text)["error_type"] == "invalid_arguments"


def test_non_mapping_arguments_through_the_python_api_are_refused(engine: Engine) -> None:
    for args in (["query"], "weather", 3, object()):
        assert "JSON object" in refused(engine.call("tool_search", args, session_id="s"))  # type: ignore[arg-type]


def test_a_limit_as_digits_is_read(engine: Engine) -> None:
    assert len(found(search(engine, "github", limit="3"))) == 3


def test_describe_returns_full_schemas_and_names_what_it_does_not_know(engine: Engine) -> None:
    result = engine.call("tool_describe", {"names": ["stripe_refund_payment", "stripe_refund_paymnt"]}, session_id="s")
    body = json.loads(result.output)
    assert result.ok
    [tool] = body["tools"]
    assert tool["name"] == "stripe_refund_payment"
    assert tool["parameters"] == dict(engine.tools["stripe_refund_payment"].parameters)
    [unknown] = body["unknown"]
    assert unknown["name"] == "stripe_refund_paymnt" and unknown["did_you_mean"][0] == "stripe_refund_payment"


def test_describe_of_only_unknown_names_is_an_error_with_suggestions(engine: Engine) -> None:
    message = refused(engine.call("tool_describe", {"names": ["gitlab_retry_pipelin", "nope"]}), "unknown_tool")
    assert "did you mean gitlab_retry_pipeline" in message and "'nope'" in message


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"names": []}, "list of tool names"),
        ({"names": [1, 2]}, "list of tool names"),
        ({"names": {"a": 1}}, "list of tool names"),
        ({}, "list of tool names"),
        ({"names": [f"t{i}" for i in range(21)]}, "at most 20"),
    ],
)
def test_bad_describes_are_clear_error_results(engine: Engine, arguments: dict[str, Any], words: str) -> None:
    assert words in refused(engine.call("tool_describe", arguments))


def test_describe_takes_a_single_name_and_shows_rendered_templates(engine: Engine) -> None:
    body = json.loads(engine.call("tool_describe", {"names": "delegate_task"}).output)
    text = json.dumps(body)
    assert body["tools"][0]["name"] == "delegate_task"
    assert "{%" not in text and "{{" not in text and "It can use these tools" in text


def test_a_huge_unknown_name_is_shown_bounded(engine: Engine) -> None:
    message = refused(engine.call("tool_describe", {"names": ["x" * 100_000]}), "unknown_tool")
    assert len(message) < 500


def test_search_and_describe_see_only_the_configured_toolsets_and_available_tools(tmp_path: Path) -> None:
    engine = catalog_engine(tmp_path, "toolsets: {disabled: [stripe, web]}\n")
    hits = found(search(engine, "refund a stripe payment to the customer", limit=20))
    assert hits and not any(n.startswith("stripe_") for n in hits)
    assert "web_search" not in found(search(engine, "search the web", limit=20))
    assert refused(engine.call("tool_describe", {"names": ["stripe_refund_payment"]}), "unknown_tool")


def test_web_search_needs_its_key_to_be_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = catalog_engine(tmp_path)
    required = engine.tools["web_search"].requires_env
    for name in required:
        monkeypatch.delenv(name, raising=False)
    assert "web_search" not in found(search(engine, "search the web for pages"))
    for name in required:
        monkeypatch.setenv(name, "test-key")
    engine.invalidate_checks()
    assert "web_search" in found(search(engine, "search the web for pages"))


def test_a_session_bound_by_definitions_searches_only_its_toolsets(engine: Engine) -> None:
    engine.definitions("openai", enabled=["github"], budget_tokens=2000, session_id="gh")
    hits = found(search(engine, "merge a request on gitlab or github", session="gh", limit=20))
    assert hits and all(n.startswith("github_") for n in hits)
    assert any(n.startswith("gitlab_") for n in found(search(engine, "merge request on gitlab", session="other")))
