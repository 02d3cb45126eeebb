"""Examples that ran clean are not run again in one process (engine.policy.programs._CLEAN_EXAMPLES).

Abuse cases first: the memo must never hide a failing example. A failure is reported on every
compile; an edit to the pattern, to the program table or to the classes it reads runs its
examples again; and a clean pattern's twin in another project with a different table is judged
against that table, not the first one's outcome.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from engine.cli import cli


def _errors(root: Path) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["--root", str(root), "validate", "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    errors: list[dict[str, object]] = json.loads(result.stdout)["errors"]
    return errors


def _patterns(match: list[str], not_match: list[str]) -> str:
    pattern = {
        "key": "wipe-notes",
        "description": "deletes the notes",
        "severity": "dangerous",
        "match": [{"command": ["wipe"]}],
        "examples": {"match": match, "not_match": not_match},
    }
    return "kind: DangerPatterns\nname: mine\npatterns:\n  - " + json.dumps(pattern) + "\n"


PROGRAM = """
kind: Programs
name: mine
programs:
  - program: [runner]
    getopt: "+e:"
    runs:
      - {option: [e], as: shell}
    examples:
      runs: {"runner -e 'wipe notes'": "%s"}
"""


def test_a_failing_pattern_example_is_reported_on_every_compile(write_project: Callable[..., Path]) -> None:
    root = write_project(
        {"hermes-engine.yaml": "include_builtin: false\n", "policies/mine.yaml": _patterns(["wipe notes"], [])}
    )
    assert _errors(root) == []  # clean: remembered
    # The same pattern with an example it matches under not_match: the memo is keyed by the pattern.
    (root / "policies/mine.yaml").write_text(_patterns(["wipe notes"], ["true && wipe notes"]))
    for _ in range(2):  # and a failure is never remembered
        codes = [e["code"] for e in _errors(root)]
        assert codes == ["pattern-example-failed"]


def test_a_changed_program_table_runs_the_examples_again(write_project: Callable[..., Path]) -> None:
    files = {
        "hermes-engine.yaml": "include_builtin: false\n",
        "policies/mine.yaml": _patterns(["runner -e 'wipe notes'"], []),
        "policies/programs.yaml": PROGRAM % "wipe notes",
    }
    root = write_project(files)
    assert _errors(root) == []  # the table makes `runner -e` run its string: the example matches
    # The same pattern, unchanged, over a table where `runner` runs nothing: its example now fails.
    (root / "policies/programs.yaml").write_text(
        "kind: Programs\nname: mine\nprograms:\n  - program: [runner]\n    runs: []\n"
    )
    codes = [e["code"] for e in _errors(root)]
    assert "pattern-example-failed" in codes, codes


def test_a_failing_program_example_is_reported_on_every_compile(write_project: Callable[..., Path]) -> None:
    files = {"hermes-engine.yaml": "include_builtin: false\n", "policies/programs.yaml": PROGRAM % "wipe notes"}
    root = write_project(files)
    assert _errors(root) == []
    (root / "policies/programs.yaml").write_text(PROGRAM % "wipe everything")
    for _ in range(2):
        codes = [e["code"] for e in _errors(root)]
        assert codes == ["program-example-failed"]


def test_a_table_regex_past_its_budget_on_an_example_is_a_located_error(write_project: Callable[..., Path]) -> None:
    """A program table's `match` regex that the bounded engine refuses on an example line (a
    backreference RE2 cannot run, catastrophic on that text): `validate` names the example, with no
    traceback (the RegexTimeout came out of Engine.load's compile before)."""
    slow = (
        "kind: Programs\nname: mine\nprograms:\n  - program: [runner]\n    getopt: '+e:'\n    runs:\n"
        "      - {option: [e], as: shell, match: '^(a|aa)+\\1(?P<payload>x)$'}\n"
        "    examples:\n      runs: {'runner -e " + "a" * 40 + "b': 'x'}\n"
    )
    root = write_project({"hermes-engine.yaml": "include_builtin: false\n", "policies/programs.yaml": slow})
    result = CliRunner().invoke(cli, ["--root", str(root), "validate", "--format", "json"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception  # no traceback
    (error,) = json.loads(result.stdout)["errors"]
    assert error["code"] == "program-example-failed" and error["file"].endswith("programs.yaml")
    assert "took longer than" in error["message"] and "runner -e aaaa" in error["message"]
