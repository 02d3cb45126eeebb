"""The engine's own cerberus schemas: checked here once, not by every load (engine.config._OwnSchema).

A load makes its config validator without cerberus' check of the schema itself (a constant of the
engine); these tests are that check, and show the validators read configs as fully checked ones do.
"""

from __future__ import annotations

from typing import Any

import cerberus
import pytest

from engine.config import CONFIG_SCHEMA, _Validator, _validator_class
from engine.plugins.manager import PLUGIN_SCHEMA

CONFIGS: list[dict[str, Any]] = [
    {},
    {"include_builtin": False, "handler_roots": ["bench_handlers"]},
    {"approvals": {"mode": "smart", "timeout": "soon"}},
    {"handler_roots": "tools", "max_manifest_bytes": -1, "no_such_setting": 1},
    {"plugins": {"enabled": ["a"], "folders": [3]}, "targets": ["openai", "nobody"]},
]


def _checked(schema: dict[str, Any]) -> Any:
    """A validator made the usual way: cerberus checks ``schema`` against its rules first."""
    validator_class, _ = _validator_class()
    return validator_class(schema)


@pytest.mark.parametrize("schema", [CONFIG_SCHEMA, PLUGIN_SCHEMA], ids=["config", "plugin"])
def test_the_engines_schemas_pass_cerberus_own_check(schema: dict[str, Any]) -> None:
    _checked(schema)  # raises SchemaError when a rule is unknown or malformed


def test_a_schema_cerberus_refuses_is_still_refused_by_a_checked_validator() -> None:
    with pytest.raises(cerberus.SchemaError):
        _checked({"name": {"type": "no-such-type"}})


@pytest.mark.parametrize("config", CONFIGS)
def test_a_load_reads_a_config_as_a_checked_validator_does(config: dict[str, Any]) -> None:
    own, checked = _Validator(CONFIG_SCHEMA), _checked(CONFIG_SCHEMA)
    assert own.validate(config) == checked.validate(config)
    assert own.errors == checked.errors
    assert own.document == checked.document
    assert _Validator(CONFIG_SCHEMA).normalized({}) == _checked(CONFIG_SCHEMA).normalized({})
