"""The batch runner's seams: reading the model's arguments, and the engine's one batch pool."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dispatch.batch import parse_arguments

# What parse_arguments answered before its fast path for one plain JSON object: json.loads.
TRICKY = [
    '{"text": "hello"}',
    ' {"a": 1}',
    '{"a": 1} ',
    '\n{"a": 1}\n',
    '\ufeff{"a": 1}',
    '{"a": 1}{"b": 2}',
    '{"a": 1} x',
    '{"a": NaN, "b": Infinity}',
    '{"a": 1, "a": 2}',
    '{"a": "\\ud800"}',
    '{"n": 123456789012345678901234567890}',
    "[1, 2]",
    '"text"',
    "null",
    "",
    "   ",
    "{",
    "{}",
    '{"a": ' * 100_000,
    "[" * 100_000 + "]" * 100_000,
]


def reference(raw: str) -> tuple[Any, bool]:
    """(value, ok) as json.loads reads the text, the way parse_arguments did before."""
    if not raw.strip():
        return {}, True
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None, False
    return (value, True) if isinstance(value, dict) else (None, False)


def same(raw: str) -> None:
    value, problem = parse_arguments(raw)
    expected, ok = reference(raw)
    assert (problem is None) == ok, raw[:80]
    if ok:
        assert json.dumps(value, sort_keys=True) == json.dumps(expected, sort_keys=True)
        assert type(value) is dict


@pytest.mark.parametrize("raw", TRICKY, ids=range(len(TRICKY)))
def test_the_fast_path_reads_every_text_as_json_loads_does(raw: str) -> None:
    same(raw)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=40),
        st.builds(
            lambda value, before, after: before + json.dumps(value) + after,
            st.dictionaries(st.text(max_size=5), st.one_of(st.integers(), st.text(max_size=5), st.none())),
            st.sampled_from(["", " ", "\n", "x", "{"]),
            st.sampled_from(["", " ", "\t", "}", "1"]),
        ),
    )
)
def test_the_fast_path_agrees_with_json_loads_on_any_text(raw: str) -> None:
    same(raw)
