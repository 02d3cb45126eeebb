"""Argument coercion as a property: never raises, never breaks what was valid, is idempotent."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dispatch.coercion import coerce_value

SCHEMAS = [
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "string"},
    {"type": ["string", "integer"]},
    {"type": ["integer", "null"]},
    {"type": "array", "items": {"type": "integer"}},
    {"type": "object", "properties": {"n": {"type": "integer"}, "flag": {"type": "boolean"}}},
    {"anyOf": [{"type": "boolean"}, {"type": "number"}]},
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(
        [
            "5",
            "-3",
            "2.0",
            "2.5",
            "1e3",
            "true",
            "False",
            "null",
            "[1, 2]",
            '{"n": "4"}',
            "inf",
            "nan",
            "00123",
            " 7 ",
            "[",
            "yes",
        ]
    ),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(["n", "flag", "x"]), children, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SCHEMAS), json_values)
def test_coercion_never_raises_keeps_valid_values_and_is_idempotent(schema: dict[str, Any], value: Any) -> None:
    validator = jsonschema_rs.validator_for(schema)
    repaired = coerce_value(value, schema)
    if validator.is_valid(value):
        assert repaired == value  # a valid value is never "repaired"
    assert coerce_value(repaired, schema) == repaired


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**9), 10**9))
def test_integers_as_text_become_integers(number: int) -> None:
    assert coerce_value(str(number), {"type": "integer"}) == number
    assert coerce_value(f"{number}.5", {"type": "integer"}) == f"{number}.5"
