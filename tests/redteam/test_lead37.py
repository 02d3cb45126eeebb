"""lead37 (stop 37, issue 8): a hardline verdict is about what runs.

An option of a program the tables do not describe whose value looks like a command asks (the fallback
follow_unknown reads `--foo='sh -c …'` as a command the program may run). echo, printf, true, false and `:`
are builtins that run none of their words, and `echo --cmd='rm -rf ~'` was hard-denied as if it deleted HOME:
it only prints. What they print into a shell is still read as that shell's line.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import REPO
from tests.redteam.harm import (
    assert_allowed,
    assert_hardline,
    assert_not_allowed,
    deleted_then_stopped,
    run_confined,
)

PRINTS_ONLY = [
    "echo --zz-cmd='rm -rf ~'",
    "echo --exec='sh -c \"rm -rf ~\"'",
    "printf '%s\\n' --cmd='rm -rf ~'",
    "true --cmd='sh -c \"rm -rf ~\"'",
    "false --run='!rm -rf ~'",
    ": --x='rm -rf ~'",
    # what the shell after it runs is `--x=rm -rf ~`: a command named `--x=rm`, found nowhere
    "echo --x='rm -rf ~' | sh",
]

STILL_RUN = [
    "echo '--x; rm -rf ~' | sh",
    "echo --x='a;rm -rf ~' | bash",
    "true --cmd=x; rm -rf ~",
    "echo() { rm -rf ~; }; echo --x=1",
    "eval \"$(echo ': --c=1; rm -rf ~')\"",
]


@pytest.mark.parametrize("command", PRINTS_ONLY)
def test_a_builtin_printing_a_command_is_no_hardline(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


@pytest.mark.parametrize("command", STILL_RUN)
def test_what_such_a_builtin_hands_a_shell_is_still_judged(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)


@pytest.mark.parametrize("command", ["echo --zz-cmd='rm -rf ~'", "true --cmd='sh -c \"rm -rf ~\"'", ": --x='rm -rf ~'"])
def test_the_printing_builtin_leaves_home_intact(tmp_path: Path, command: str) -> None:
    home, _, printed = run_confined(tmp_path, command)
    assert (home / "notes.txt").read_text() == "keep me\n" and (home / ".ssh" / "id_ed25519").is_file()
    if command.startswith("echo"):
        assert "rm -rf ~" in printed


def test_a_line_the_builtin_hands_a_shell_deletes_home_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    payload = "echo '--x; rm -rf ~' | sh"
    deleted_then_stopped(tmp_path, engine, home, payload)


# The merge of open37 and redt37 (both closed `cp -r . ../c; cat ../c/.*`): what reads the copy is judged
# reading the source; what deletes or lists it is not (redt37's near miss); sed prints what it reads.
COPY_READS = ["cp -r . ../c; sed p ../c/.*", "cp -r . ../c; sed -n p ../c/.e*", "cp -r . ../c; cd ../c; cat .e*"]
COPY_KEPT = ["cp -r . ../c; sed -i s/a/b/ ../c/*.py", "cp -r . /tmp/b && rm -rf /tmp/b/*.pyc", "cp -r . ../c; ls ../c"]


@pytest.fixture
def secret_tree(tmp_path: Path) -> Iterator[tuple[Path, Engine]]:
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / ".env").write_text("DB_PASSWORD=lead37-hunter2\n")
    (work / "src" / "a.py").write_text("print(1)\n")
    with Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")}) as engine:
        yield work, engine


@pytest.mark.parametrize("command", COPY_READS)
def test_a_copy_read_on_the_line_is_the_source_read(secret_tree: tuple[Path, Engine], command: str) -> None:
    work, engine = secret_tree
    unguarded = subprocess.run(["bash", "-c", command], cwd=work, capture_output=True, text=True, check=False)
    assert "lead37-hunter2" in unguarded.stdout
    assert_not_allowed(engine, command)


@pytest.mark.parametrize("command", COPY_KEPT)
def test_a_copy_edited_deleted_or_listed_stays_allowed(secret_tree: tuple[Path, Engine], command: str) -> None:
    assert_allowed(secret_tree[1], command)


# A program the tables do not know handed a program that deletes, kills or sends, an option after it, runs it
# without a shell (`rustup run stable rm -rf ~`, `gpg-agent --daemon rm -rf ~`): the `*` entry's second
# `after:` row reads the words from that name on (fresh37a's open payloads).
def test_an_unknown_wrapper_running_rm_deletes_home_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    wrapper = tmp_path / "bin" / "mywrap"
    wrapper.parent.mkdir()
    wrapper.write_text('#!/bin/sh\nshift\nexec "$@"\n')  # a wrapper: drops its own option, runs the rest
    wrapper.chmod(0o755)
    payload = f"{wrapper} --daemon rm -rf ~"
    deleted_then_stopped(tmp_path, engine, home, payload)
    assert_allowed(engine, f"{wrapper} --daemon rm -rf build")


# fresh37b's row for perl's `system @_` / `system {$ARGV[0]} @ARGV` also took `system $_`, so the line runner
# `echo ls | perl -ne 'system $_'` (its input judged as lines: test_shell_input_handed_on.py) asked. `$_` is
# now a computed call only where the program sets it itself (a string, a loop, an assignment).
PERL_TOPIC_SET = [
    "perl -e '$_=\"rm -rf ~\"; system $_'",
    "perl -e 'for (\"rm -rf ~\") { system $_ }'",
    "perl -e 'system $_ for \"rm -rf ~\"'",
    "perl -e 'map { system $_ } (\"rm -rf ~\")'",
]


@pytest.mark.parametrize("command", PERL_TOPIC_SET)
def test_perl_running_a_topic_it_set_itself_asks(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)


def test_perl_running_its_input_lines_is_judged_by_the_lines(engine: Engine) -> None:
    assert_allowed(engine, "echo ls | perl -ne 'system $_'")
    assert_hardline(engine, "echo 'rm -rf ~' | perl -ne 'system $_'")


def test_perl_topic_set_in_code_deletes_home_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    payload = PERL_TOPIC_SET[2]
    deleted_then_stopped(tmp_path, engine, home, payload)


# A reader the tables do not describe is no wrapper: `cat -n rm -rf ~` reads files of those names (the MCP
# guard's `cat` fed text was hard-denied by the wrapper row above; test_guard_reach.py).
@pytest.mark.parametrize("command", ["cat -n rm -rf ~", "cowsay rm -rf ~", "head -n 3 sh -c x", "wc -l rm -rf ~"])
def test_a_reader_handed_an_acting_name_is_no_wrapper(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)
