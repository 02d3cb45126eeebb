"""fp43 (stop 43, issue 8): false alarms on ordinary commands, fixed without opening the payloads near them.

Measured first: of the 52 commands labelled safe in the shared corpus (commands-sample.jsonl) none was judged other
than `allow`, before and after (and none of its 75 dangerous ones was allowed); the four known false alarms below
were fixed as rules over a class of programs or options.

1. A QUOTED OPERAND IS THE NAME WRITTEN: `cp x 'a$(id)b'` asked (read_computed_path, write_computed_target): the
   operand's text held `$(` and nothing told the classifier that a quoted word is no substitution. The words of a
   simple command that a quoted word gave as written (Command.literal_words, from the shell's own reading: no
   expansion made them, none lies within a word that expands) are read without the expansion classes where the
   program runs nothing (Program.active false: `cp`, through `timeout`). rows42's
   strict xfail test_a_quoted_operand_is_the_name_written passes (its marker removed).
2. GIT_CONFIG_GLOBAL=/dev/null: `GIT_CONFIG_GLOBAL=/dev/null git status` asked (indirect_shell: any value of
   GIT_CONFIG_GLOBAL/GIT_CONFIG_SYSTEM was a file git runs). /dev/null is an empty config (gitconfig.py reads it
   so); any other value still asks.
3. GIT'S READING VERBS IN A FOLDER NOT KNOWN HERE: `cd "$D" && git status` asked (engine_files_overwrite_unknown:
   git in a folder that may be the engine's state). A matcher field `not_subcommand` (the `subcommand` test's
   opposite) lets that row leave out git's verbs that only read (status, log, diff, show ...); an alias or plugin
   verb, and `--output`, still ask. `cd "$D" && git lfs pull` was checked: it writes the work tree of a folder not
   known here (as `cd "$D" && git pull`, which asks too), and `lfs` is no verb of git's own (an alias of that
   folder's config may name it): it stays `ask` by design.
4. `npm install -g NAME` AFTER THE SESSION WROTE package.json: asked (the -g run read the working folder's
   package.json, opaque); with operands -g installs those, not the folder (`unless_operands: 1`); a folder named
   (`.`, `./x`, `file:.`, a variable holding one) is still read.

Open: none (no strict xfail). Noticed, not fixed: a program with no row (`cat 'a$(id)b'`, `tee`) still
asks (test_program_text_operands keeps `cat '$(cat cfg.txt)'` asking); `cp x '$HOME/.bashrc'` asks
write_sensitive_file (the literal `$HOME` classed as the home); `cd "$D" && git lfs ls-files` asks (the
alias reading for a non-builtin verb in an unknown folder; git runs an installed `git-lfs` before any alias).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, run_confined, verdict_cases

# -- 1. a quoted operand holding `$(` is the name written ----------------------------------------------------------
QUOTED_PAYLOADS: dict[str, Case] = {
    "substitution unquoted": ({}, "cp x a$(cat t.txt)b"),
    "substitution double-quoted": ({}, 'cp x "a$(cat t.txt)b"'),
    "cat of a computed path": ({"cfg.txt": ".env\n"}, "cat $(cat cfg.txt)"),
    "the same text also expanded": ({}, "cp x '$(cat t.txt)' \"$(cat t.txt)\""),
    "the text within a word that expands": ({}, "cp '$(cat t.txt)' \"$(cat t.txt)\"y"),
    "bind mount cut from an expanding word": ({}, "docker run -v $(cat t.txt):/h -e '$(cat t.txt)' alpine"),
    "a shell splicing it unquoted": ({}, "sh -c 'cat $1' _ '$(cat t.txt)'"),
    "ssh's remote shell": ({}, "ssh h cat '$(cat t.txt)'"),
    "eval": ({}, "eval cat '$(cat t.txt)'"),
    "a variable set from a file": ({}, 'x=$(cat t.txt); cp x "$x"'),
}
QUOTED_NEAR: dict[str, Case] = {
    "cp, single-quoted": ({}, "cp x 'a$(id)b'"),
    "cp, a quoted source": ({}, "cp 'a$(id)b' y"),
    "a backquote quoted": ({}, "cp x 'a`id`b'"),
    "through timeout": ({}, "timeout 5 cp x '$(cat t.txt)'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(QUOTED_PAYLOADS, QUOTED_NEAR))
def test_a_quoted_operand_is_read_as_the_name_written(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_a_quoted_operand_runs_nothing_where_an_unquoted_one_does(tmp_path: Path) -> None:
    # the harm the payloads stand for: bash runs the substitution of an unquoted or double-quoted word ...
    _, cwd, _ = run_confined(tmp_path / "open", 'echo hi > x; cp x a$(echo ran)b; cp x "c$(echo ran)d"')
    assert (cwd / "aranb").exists() and (cwd / "crand").exists()
    # ... and none of a single-quoted one: the file is named as written
    _, cwd, _ = run_confined(tmp_path / "quoted", "echo hi > x; cp x 'a$(echo ran)b'")
    assert (cwd / "a$(echo ran)b").read_text() == "hi\n"
    assert not (cwd / "aranb").exists()


# -- 2. GIT_CONFIG_GLOBAL=/dev/null -------------------------------------------------------------------------------
ALIAS = "[alias]\n\tst = !touch pwned\n"
GIT_CONFIG_PAYLOADS: dict[str, Case] = {
    "a config the session wrote": ({"cfg": ALIAS}, "GIT_CONFIG_GLOBAL=cfg git st"),
    "a config the session wrote, a builtin verb": ({"cfg": ALIAS}, "GIT_CONFIG_GLOBAL=cfg git status"),
    "a system config the session wrote": ({"cfg": ALIAS}, "GIT_CONFIG_SYSTEM=cfg git log"),
    "a name known only at run time": ({}, "GIT_CONFIG_GLOBAL=$(cat p.txt) git status"),
    "empty": ({}, "GIT_CONFIG_GLOBAL= git status"),
    "/dev/null with a pager given": ({}, "GIT_CONFIG_GLOBAL=/dev/null git -c core.pager='rm -rf ~' log"),
    "a path past /dev/null": ({}, "GIT_CONFIG_GLOBAL=/dev/nullx git status"),
}
GIT_CONFIG_NEAR: dict[str, Case] = {
    "global /dev/null": ({}, "GIT_CONFIG_GLOBAL=/dev/null git status"),
    "both /dev/null": ({}, "GIT_CONFIG_SYSTEM=/dev/null GIT_CONFIG_GLOBAL=/dev/null git log --oneline -3"),
    "exported first": ({}, "export GIT_CONFIG_GLOBAL=/dev/null; git diff"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(GIT_CONFIG_PAYLOADS, GIT_CONFIG_NEAR))
def test_git_reading_dev_null_as_its_config_is_allowed(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_written_global_config_runs_its_alias_and_dev_null_nothing(tmp_path: Path) -> None:
    setup = f"git init -q r && printf '{ALIAS}' > cfg && cd r && "
    _, cwd, out = run_confined(tmp_path / "written", setup + "GIT_CONFIG_GLOBAL=../cfg git st")
    assert (cwd / "r" / "pwned").exists(), out
    _, cwd, out = run_confined(tmp_path / "null", setup + "GIT_CONFIG_GLOBAL=/dev/null git st; git status")
    assert not (cwd / "r" / "pwned").exists() and "branch" in out.lower(), out


# -- 3. git's reading verbs in a folder not known here ------------------------------------------------------------
UNKNOWN_FOLDER_PAYLOADS: dict[str, Case] = {
    "stash pop": ({}, 'cd "$D" && git stash pop'),
    "checkout": ({}, 'cd "$D" && git checkout main'),
    "pull": ({}, 'cd "$D" && git pull'),
    "lfs pull": ({}, 'cd "$D" && git lfs pull'),
    "an alias": ({}, 'cd "$D" && git co x'),
    "diff --output": ({}, 'cd "$D" && git diff --output=x.json'),
    "log --output": ({}, 'cd "$D" && git log --output=x.json'),
}
UNKNOWN_FOLDER_NEAR: dict[str, Case] = {
    "status": ({}, 'cd "$D" && git status'),
    "log": ({}, 'cd "$D" && git log --oneline -5'),
    "diff, -C": ({}, 'cd "$D" && git -C sub diff HEAD'),
    "show": ({}, 'cd "$D" && git show --stat'),
    "rev-parse": ({}, 'cd "$D" && git rev-parse HEAD'),
    "ls-files": ({}, 'cd "$D" && git ls-files'),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(UNKNOWN_FOLDER_PAYLOADS, UNKNOWN_FOLDER_NEAR))
def test_git_reading_in_a_folder_not_known_here_is_allowed(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- 4. npm install -g NAME after the session wrote a package.json ------------------------------------------------
PACKAGE = {"package.json": '{"name": "p", "bin": {"sudo": "x.sh"}}'}
NPM_PAYLOADS: dict[str, Case] = {
    "-g, no operand": (PACKAGE, "npm install -g"),
    "-g .": (PACKAGE, "npm install -g ."),
    "-g with a name and .": (PACKAGE, "npm i -g typescript ."),
    "-g file:.": (PACKAGE, "npm i -g file:."),
    "-g, a variable holding .": (PACKAGE, 'x=.; npm i -g "$x"'),
    "-g $(pwd)": (PACKAGE, "npm i -g $(pwd)"),
    "link": (PACKAGE, "npm link"),
}
NPM_NEAR: dict[str, Case] = {
    "-g a registry package": (PACKAGE, "npm install -g typescript"),
    "-g two, versioned": (PACKAGE, "npm i -g typescript@5 eslint"),
    "-g with --prefix": (PACKAGE, "npm i -g --prefix ~/g typescript"),
    "--global": (PACKAGE, "npm install --global pnpm"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(NPM_PAYLOADS, NPM_NEAR))
def test_a_global_install_of_a_named_package_is_allowed(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)
