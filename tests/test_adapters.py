"""The two agent-loop adapters, fed with the real SDK types parsed from recorded responses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic.types
import openai.types.chat
import pytest

from engine import Engine

DATA = Path(__file__).parent / "data"


@pytest.fixture
def engine(project_copy: Any) -> Engine:
    return Engine.load(project_copy("good/dispatch"))


def test_openai_tool_calls_become_tool_messages_in_order(engine: Engine) -> None:
    completion = openai.types.chat.ChatCompletion.model_validate(
        json.loads((DATA / "openai_chat_completion.json").read_text())
    )
    tool_calls = completion.choices[0].message.tool_calls
    assert tool_calls is not None
    messages = engine.openai_tool_messages(tool_calls)
    assert [m["tool_call_id"] for m in messages] == ["call_1", "call_2", "call_3", "call_4"]
    assert all(m["role"] == "tool" for m in messages)
    assert messages[0]["content"] == "first"
    assert json.loads(messages[1]["content"])["error_type"] == "invalid_arguments"
    assert json.loads(messages[2]["content"])["error_type"] == "unknown_tool"
    assert json.loads(messages[3]["content"])["count"] == 3
    # The messages are valid input for the next request.
    for message in messages:
        openai.types.chat.ChatCompletionToolMessageParam(**message)  # type: ignore[typeddict-item]


def test_anthropic_tool_use_blocks_become_tool_result_blocks(engine: Engine) -> None:
    message = anthropic.types.Message.model_validate(json.loads((DATA / "anthropic_message.json").read_text()))
    results = engine.anthropic_tool_results(message.content)
    assert [r["tool_use_id"] for r in results] == ["toolu_1", "toolu_2", "toolu_3"]
    assert results[0] == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello"}
    assert results[1]["is_error"] is True
    assert json.loads(results[1]["content"])["error_type"] == "handler_error"
    assert results[2]["content"] == [
        {"type": "text", "text": "a chart"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "aGVsbG8="}},
    ]


def test_adapters_accept_plain_dicts_too(engine: Engine) -> None:
    messages = engine.openai_tool_messages(
        [{"id": "a", "type": "function", "function": {"name": "echo", "arguments": '{"text": "d"}'}}]
    )
    assert messages == [{"role": "tool", "tool_call_id": "a", "content": "d"}]
    blocks = engine.anthropic_tool_results([{"type": "tool_use", "id": "b", "name": "echo", "input": {"text": "e"}}])
    assert blocks == [{"type": "tool_result", "tool_use_id": "b", "content": "e"}]
