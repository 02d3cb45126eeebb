"""Engine.openai_response_outputs: a Responses API response (the openai SDK's own objects, or
plain dicts) → function_call_output items, checked against the SDK's input item type."""

from __future__ import annotations

import json
from typing import Any

import openai.types.responses as rtypes
import pytest
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter

from engine import Engine

OUTPUT_ITEM = TypeAdapter(FunctionCallOutput)

RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1764400000,
    "model": "gpt-4.1-2025-04-14",
    "status": "completed",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "let me look", "annotations": []}],
        },
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "echo", "arguments": '{"text": "first"}'},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "echo", "arguments": '{"text": '},
        {"type": "function_call", "id": "fc_3", "call_id": "call_3", "name": "missing_tool", "arguments": "{}"},
        {"type": "function_call", "id": "fc_4", "call_id": "call_4", "name": "typed", "arguments": '{"count": "3"}'},
        {"type": "function_call", "id": "fc_5", "call_id": "call_5", "name": "multimodal", "arguments": ""},
        {"type": "function_call", "id": "fc_6", "call_id": "call_6", "name": "raiser", "arguments": '{"message": "x"}'},
    ],
}


@pytest.fixture
def engine(project_copy: Any) -> Engine:
    return Engine.load(project_copy("good/dispatch"))


def check(outputs: list[dict[str, Any]]) -> None:
    assert [o["call_id"] for o in outputs] == [f"call_{i}" for i in range(1, 7)]
    for item in outputs:
        OUTPUT_ITEM.validate_python(item)  # a valid input item for the next request
        assert item["type"] == "function_call_output"
    assert outputs[0]["output"] == "first"
    assert json.loads(outputs[1]["output"])["error_type"] == "invalid_arguments"
    assert json.loads(outputs[2]["output"])["error_type"] == "unknown_tool"
    assert json.loads(outputs[3]["output"])["count"] == 3
    assert outputs[4]["output"] == [
        {"type": "input_text", "text": "a chart"},
        {"type": "input_image", "image_url": "data:image/png;base64,aGVsbG8="},
    ]
    assert json.loads(outputs[5]["output"])["error_type"] == "handler_error"


def test_sdk_response_output_becomes_function_call_outputs_in_order(engine: Engine) -> None:
    response = rtypes.Response.model_validate(RESPONSE)
    assert isinstance(response.output[2], rtypes.ResponseFunctionToolCall)
    check(engine.openai_response_outputs(response.output))


def test_plain_dicts_too(engine: Engine) -> None:
    check(engine.openai_response_outputs(RESPONSE["output"]))


def test_the_chat_adapter_reads_responses_items_instead_of_calling_them_none(engine: Engine) -> None:
    response = rtypes.Response.model_validate(RESPONSE)
    calls = [item for item in response.output if item.type == "function_call"]
    messages = engine.openai_tool_messages(calls)
    assert messages[0] == {"role": "tool", "tool_call_id": "call_1", "content": "first"}
    assert "None" not in messages[2]["content"]
    assert "missing_tool" in json.loads(messages[2]["content"])["error"]


class Hostile:
    """An item whose every attribute raises, as a broken proxy object might."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name}")


def test_bad_items_get_their_own_error_item_and_the_others_run(engine: Engine) -> None:
    items: list[Any] = [
        {"type": "function_call", "call_id": "a", "arguments": "{}"},  # no name
        {"type": "function_call", "call_id": "b", "name": None, "arguments": "{}"},
        {"type": "function_call", "call_id": "c", "name": "echo", "arguments": "{not json"},
        {"type": "function_call", "call_id": "d", "name": "echo", "arguments": '"just a string"'},
        {"type": "function_call", "call_id": "e", "name": "nope", "arguments": "{}"},
        {"type": "function_call", "call_id": "f", "name": ["echo"], "arguments": "{}"},
        {"type": "function_call", "call_id": "g", "name": "echo", "arguments": '{"text": "ok"}'},
        {"type": "function_call", "name": "echo", "arguments": '{"text": "no id"}'},
        Hostile(),
        None,
        42,
        "function_call",
    ]
    outputs = engine.openai_response_outputs(items)
    assert [o["call_id"] for o in outputs] == ["a", "b", "c", "d", "e", "f", "g", None]
    errors = [json.loads(o["output"]) for o in outputs[:6]]
    kinds = ["unknown_tool", "unknown_tool", "invalid_arguments", "invalid_arguments", "unknown_tool", "unknown_tool"]
    assert [e["error_type"] for e in errors] == kinds
    assert errors[0]["error"].startswith("the call names no tool; available tools: ")
    assert "echo" in errors[0]["error"]
    assert outputs[6]["output"] == "ok"
    assert outputs[7]["output"] == "no id"


@pytest.mark.parametrize("items", [None, [], iter(()), {"type": "message"}, 3.5, object()])
def test_nothing_to_answer_is_an_empty_list(engine: Engine, items: Any) -> None:
    assert engine.openai_response_outputs(items) == []


def test_a_single_call_not_in_a_list_is_answered(engine: Engine) -> None:
    item = {"type": "function_call", "call_id": "x", "name": "echo", "arguments": '{"text": "alone"}'}
    assert engine.openai_response_outputs(item) == [{"type": "function_call_output", "call_id": "x", "output": "alone"}]


def test_chat_and_anthropic_adapters_take_no_calls_and_nameless_calls(engine: Engine) -> None:
    assert engine.openai_tool_messages(None) == []
    assert engine.anthropic_tool_results(None) == []
    nameless = {"id": "a", "type": "function", "function": {"arguments": "{}"}}
    good = {"id": "b", "function": {"name": "echo", "arguments": '{"text": "b"}'}}
    messages = engine.openai_tool_messages([nameless, Hostile(), good])
    assert [m["tool_call_id"] for m in messages] == ["a", None, "b"]
    assert json.loads(messages[0]["content"])["error"].startswith("the call names no tool")
    assert messages[2]["content"] == "b"
    blocks = engine.anthropic_tool_results([{"type": "tool_use", "id": "t", "input": {}}])
    assert blocks[0]["is_error"] is True
    assert "names no tool" in json.loads(blocks[0]["content"])["error"]
