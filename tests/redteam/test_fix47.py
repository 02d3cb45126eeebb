"""A glob word's planted option names read in the folder the command runs in (stop 47).

xf46 read the names starting with `-` that a glob word expands to in the working directory (or the terminal's `cwd`
argument) only, as a second pass over the line's text. A `cd` on the line moved the glob elsewhere: with a file
`sub/-delete` planted, `cd sub && find . -del*` was allowed and emptied `sub` (shown live below), as did `cd ~ &&
find . -del*` with `~/-delete`. The names are now read per command, in the folder each runs in (Command.cwd:
evaluate._with_dash_names, View.dash_names); a folder only the run knows (`cd "$(printf sub)"`) may be any: the
working directory's names and those the session wrote are read there. Since the shell's reading holds the glob, a
name written earlier on the line (`: > ./-delete; find . -del*`, xf46's strict xfail) is read too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, policy_project, run_confined, verdict_cases


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "fix47", "kind: ApprovalPolicy\n") as project:
        yield project


PAYLOADS: dict[str, Case] = {
    "cd-sub": ({"sub/-delete": ""}, "cd sub && find . -del*"),
    "cd-sub-semicolon": ({"sub/-delete": ""}, "cd sub; find . -delet?"),
    "cd-absolute": ({"sub/-delete": ""}, "cd ROOT/sub && find . -del*"),
    "cd-twice": ({"a/b/-delete": ""}, "cd a && cd b && find . -del*"),
    "pushd": ({"sub/-delete": ""}, "pushd sub >/dev/null && find . -del*"),
    "subshell-cd": ({"sub/-delete": ""}, "(cd sub && find . -del*)"),
    "cd-unknown": ({"sub/-delete": ""}, 'cd "$(printf sub)" && find . -del*'),
    "tar-in-sub": (
        {"sub/--checkpoint=1": "", "sub/--checkpoint-action=exec=sh x.sh": "", "sub/x.sh": "rm -rf ~\n"},
        "cd sub && tar cf /tmp/a.tar *",
    ),
    "cwd-argument": ({"sub/-delete": ""}, "find . -del*", "sub"),
    "sh-c-after-cd": ({"sub/-delete": ""}, "cd sub && sh -c 'find . -del*'"),
}
NEAR: dict[str, Case] = {
    # the planted name is in another folder than the one the glob runs in (xf46 read the working directory's)
    "planted-at-top-cd-sub": ({"-delete": "", "sub/a.txt": "x"}, "cd sub && find . -del*"),
    "planted-in-sub-no-cd": ({"sub/-delete": "", "a.txt": "x"}, "find . -del*"),
    "cd-sub-list": ({"sub/-delete": "", "sub/a.txt": "x"}, "cd sub && ls -l *.txt"),
    "glob-with-a-folder": ({"sub/-delete": ""}, "ls sub/*"),
    "quoted-name-pattern": ({"sub/-delete": ""}, "cd sub && find . -name '-del*'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR))
def test_planted_option_glob_after_a_cd(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


def test_planted_option_glob_in_the_home(loaded: tuple[Path, Engine]) -> None:
    root, engine = loaded
    planted = root.parent / "home" / "-delete"
    planted.write_text("")
    try:
        assert engine.check("cd ~ && find . -del*").decision != "allow"
        assert engine.check("cd && find . -del*").decision != "allow"
        assert engine.check("find ~ -name '*.bak'").decision == "allow"
    finally:
        planted.unlink()
    assert engine.check("cd ~ && find . -del*").decision == "allow"


def test_planted_option_glob_after_a_cd_deletes_live(tmp_path: Path) -> None:
    """The ground: after `cd sub`, bash globs `-del*` to sub's planted `-delete`, and find empties sub."""
    _, cwd, _ = run_confined(tmp_path, "mkdir -p sub/d && : > sub/-delete && : > sub/d/keep && cd sub && find . -del*")
    assert not (cwd / "sub" / "d").exists()
    _, cwd, printed = run_confined(
        tmp_path / "b", ": > -delete && mkdir -p sub/d && : > sub/d/keep && cd sub && find . -del*"
    )
    assert (cwd / "sub" / "d" / "keep").is_file() and "-del*" in printed


@pytest.mark.parametrize(
    "command",
    [
        ": > ./-delete; find . -del*",
        "echo > -delete && find . -delet?",
        "mkdir -p s && cd s && : > ./-delete && find . -del*",
        "cd /tmp && : > ./-delete && find . -del*",
        "echo > ./--checkpoint=1; echo 'rm -rf ~' > x.sh; "
        "echo > './--checkpoint-action=exec=sh x.sh'; tar cf /tmp/a.tar *",
    ],
)
def test_option_file_planted_on_the_line(loaded: tuple[Path, Engine], command: str) -> None:
    _, engine = loaded
    assert engine.check(command).decision != "allow"


@pytest.mark.parametrize(
    "command",
    [
        ": > ./-delete; mkdir -p s && cd s && ls -l *",
        "mkdir -p s && : > s/-delete && find . -del*",
        ": > ./notes.txt; ls -l *",
    ],
)
def test_option_file_planted_on_the_line_elsewhere(loaded: tuple[Path, Engine], command: str) -> None:
    _, engine = loaded
    assert engine.check(command).decision == "allow"


def test_option_file_planted_on_the_line_deletes_live(tmp_path: Path) -> None:
    _, cwd, _ = run_confined(tmp_path, "mkdir -p d && : > d/keep && echo > -delete && find . -delet?")
    assert not (cwd / "d").exists()
