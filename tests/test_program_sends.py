"""A Programs row's `sends:` (sends36, issue 8): the ways a program copies files to another host, as data.

Abuse cases first: a failing `sends`/`not_sends` example is a located error at validate; a way that
says nothing, or a destination without a regex, is refused; an entry that says nothing but `sends:`
leaves its program undescribed for the analyzer (the `*` runs of an unknown program still read it);
a project's entry for a program replaces the builtin one whole, its `sends:` too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine import Engine
from engine.cli import cli
from engine.policy.programs import Extractor, Send, sends_away

REPO = Path(__file__).resolve().parent.parent


def _errors(root: Path) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["--root", str(root), "validate", "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    errors: list[dict[str, object]] = json.loads(result.stdout)["errors"]
    return errors


def _table(way: str, sends: list[str], not_sends: list[str]) -> str:
    examples = json.dumps({"sends": sends, "not_sends": not_sends})
    return (
        f"kind: Programs\nname: mine\nprograms:\n  - program: [shipit]\n    sends: [{way}]\n    examples: {examples}\n"
    )


def test_a_failing_sends_example_is_an_error(write_project: Callable[..., Path]) -> None:
    way = "{verbs: [push], to: last, match: '^[a-z]+:'}"
    root = write_project(
        {"hermes-engine.yaml": "include_builtin: false\n", "policies/mine.yaml": _table(way, ["shipit push . h:x"], [])}
    )
    assert _errors(root) == []
    (root / "policies/mine.yaml").write_text(_table(way, ["shipit pull h:x ."], ["shipit push . h:x"]))
    errors = _errors(root)
    assert [e["code"] for e in errors] == ["program-example-failed"] * 2


@pytest.mark.parametrize(
    "way",
    [
        "{operands: 2}",  # nothing that says it sends
        "{to: last}",  # a destination without what makes it another host's
        "{match: '^h:'}",  # a regex with no destination
        "{to: first, match: '^h:'}",
        "{option: [d], to: last, match: '^h:'}",
        "{script: put, to: last, match: '^h:'}",
        "{to: last, match: '(unclosed'}",
    ],
)
def test_a_way_that_says_nothing_certain_is_refused(write_project: Callable[..., Path], way: str) -> None:
    root = write_project({"hermes-engine.yaml": "include_builtin: false\n", "policies/mine.yaml": _table(way, [], [])})
    errors = _errors(root)
    assert len(errors) == 1, errors


def test_the_builtin_senders() -> None:
    table = Engine.load(REPO).snapshot.policy.programs
    for name in ("scp", "rsync", "sftp", "lftp", "smbclient", "tar", "aws", "rclone", "croc", "az", "oci", "mc"):
        assert name in table.senders, name
    # described only by what they send: an undescribed program for the analyzer (borg and restic are
    # described since tail36 read their repository from the environment: with their executing options)
    for name in ("rclone", "croc", "oci", "mc", "duplicity"):
        assert table.get(name) is None, name
    # (xf46) az's `acr login` options are described (an option's value known only at run time is no flag); its other
    # verbs are read as an undescribed program's (an option whose value looks like a command is judged)
    az = table.get("az")
    assert az is not None and "login" in az.subcommands["acr"].subcommands
    assert table.get("aws") is not None and table.get("scp") is not None


def test_an_option_destination_in_every_spelling() -> None:
    way = Send(frozenset({"copy"}), "option", ("-d", "--destination"), 0, Extractor("^https?://"))
    for argv in (
        ("az", "copy", "-d", "https://h/c"),
        ("az", "copy", "-dhttps://h/c"),
        ("az", "copy", "--destination", "https://h/c"),
        ("az", "copy", "--destination=https://h/c"),
    ):
        assert sends_away((way,), argv, ""), argv
    for argv in (
        ("az", "copy", "-d", "./c"),
        ("az", "copy", "--destinations=https://h"),
        ("az", "ls", "-d", "https://h"),
    ):
        assert not sends_away((way,), argv, ""), argv


def test_read_gives_one_name_the_whole_line() -> None:
    # (sends36/rt10) re.split's maxsplit=0 split a line read into one name at every blank: an error
    from engine.policy.values import read_fields

    assert read_fields("  a  b c ", 1, " \t\n") == ["a  b c"]
    assert read_fields("a  b c ", 2, " \t\n") == ["a", "b c"]
    assert read_fields("", 1, " \t\n") == [""]


def test_described_backup_programs_keep_their_executing_options() -> None:
    # Once described (tail36's repository variables), borg and restic are no longer programs nobody knows,
    # whose options holding a command ask: their own executing options must be named (merge of stop 36)
    engine = Engine.load(REPO)
    for command in (
        "borg create --rsh='sh -c \"rm -rf ~\"' ssh://h/r::a src",
        "BORG_RSH='rm -rf ~' borg list ssh://h/r",
        "restic -o sftp.command='sh -c \"rm -rf ~\"' -r sftp:h:/r backup src",
        "RESTIC_PASSWORD_COMMAND='rm -rf ~' restic -r /r snapshots",
    ):
        assert engine.check(command).decision == "deny", command
    assert engine.check("borg create /mnt/r::a src").decision == "allow"
