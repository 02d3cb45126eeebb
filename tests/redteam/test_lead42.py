"""lead42 (stop 42, issue 8): what `git NAME` runs when NAME is an alias (adv41b's strict xfails, closed).

git runs an alias's value with the words after the verb appended: `!LINE` as `sh -c 'LINE "$@"' LINE ARGS`, any other
value as `git VALUE ARGS`. Before, the value was judged alone, and only when given on the command line:

- `git -c alias.x='!rm -rf' x ~` was allowed and deleted the home (`rm -rf` alone deletes nothing);
- `git -c alias.r='restore --worktree' r --staged .` was allowed and discarded the uncommitted work;
- an alias stored in git's files (`git config alias.r 'restore --worktree'` in one call, `git r --staged .` in the
  next; `[alias] x = !rm -rf` in ~/.gitconfig, in .git/config or in a file it includes) was never read: `git x ~`
  was allowed and deleted the home;
- on one line, `git config alias.r 'reset --hard'; git r` was allowed.

Now (policies/executors.yaml, git's `as: alias` runs; engine/policy/gitconfig.py): an alias given with -c, a
GIT_CONFIG pair or GIT_CONFIG_PARAMETERS is judged with the words after its verb; a verb none of git's own is looked
up in the files git reads (system, global, the repository's from the command's folder, their includes) and in the
line's own `git config alias.NAME VALUE`, and judged as it runs; `git config … alias.NAME VALUE` is judged as the
alias used. A configuration the engine cannot read (an include it cannot open, a folder known only at run time)
asks. Near misses: ordinary aliases (`co = checkout`, `lg = log --oneline`, `!echo`) stay allowed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, make_home
from tests.redteam.harm import allowed_payloads, blocked, flagged_near_misses, run_confined

GIT = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=60)
    return done.stdout


def repository(folder: Path) -> Path:
    """A repository with a committed f.txt, changed since (the uncommitted work a discard loses)."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q")
    (folder / "f.txt").write_text("committed\n")
    git(folder, "add", "f.txt")
    git(folder, "commit", "-qm", "c")
    (folder / "f.txt").write_text("uncommitted work\n")
    return folder


def alias_file(path: Path, text: str) -> None:
    with path.open("a") as handle:
        handle.write(text)


# -- given on the command line, with the words after the verb --------------------------------------------------------
GIVEN = [
    "git -c alias.x='!rm -rf' x ~",
    "git -c ALIAS.X='!rm -rf' x ~",
    "git -c alias.x='!f() { rm -rf \"$1\"; }; f' x ~",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf' git x ~",
    "GIT_CONFIG_PARAMETERS=\"'alias.x'='!rm -rf'\" git x ~",
    "git -c alias.r='restore --worktree' r --staged .",
    "git -c alias.r=reset r --hard HEAD~3",
    "git -c alias.c=clean c -fdx",
    "hg --config alias.x='!rm -rf $@' x ~",
    "hg --config alias.x='!rm -rf \"$1\"' x ~",
    # an alias naming another (git keeps the -c aliases, and the variables, for the command an alias runs)
    "git -c alias.a=b -c alias.b='!rm -rf' a ~",
    "git -c alias.a=b -c alias.b=reset a --hard",
    "GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=alias.a GIT_CONFIG_VALUE_0=b GIT_CONFIG_KEY_1=alias.b"
    " GIT_CONFIG_VALUE_1='!rm -rf' git a ~",
    "hg --config alias.a=b --config alias.b='!rm -rf $@' a ~",
]
GIVEN_NEAR = [
    "git -c alias.x='!echo' x ~",
    "git -c alias.co=checkout co main",
    "git -c alias.l='log --oneline' l -5",
    "git -c alias.r=reset status",  # (not used: reset alone discards nothing)
    "hg --config alias.l='log -l 5' l",
    # (the variable stays set for the command the alias runs: not read again there, no nesting past the limit)
    "GIT_CONFIG_PARAMETERS=\"'alias.l'='log --oneline'\" git l",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.l GIT_CONFIG_VALUE_0='log --oneline' git l",
    "git -c alias.l='log --oneline' -c alias.s=status l",
    "hg --config alias.x='!echo $1' x ~",
]


def test_an_alias_given_on_the_line_is_judged_with_its_arguments(engine: Engine) -> None:
    assert allowed_payloads(engine, GIVEN) == []


def test_an_ordinary_alias_given_on_the_line_stays_allowed(engine: Engine) -> None:
    assert flagged_near_misses(engine, GIVEN_NEAR) == []


def test_a_shell_alias_given_its_argument_deletes_the_home_unguarded_and_the_engine_refuses(
    tmp_path: Path, session: Engine, fake_home: Path
) -> None:
    payload = "git -c alias.x='!rm -rf' x ~"
    deleted, _, _ = run_confined(tmp_path / "unguarded", payload)
    assert not (deleted / "notes.txt").exists(), "git runs `rm -rf ~`"
    output = blocked(session, fake_home, payload)
    assert "rm -rf ~" in output or "recursive" in output


# -- stored in git's files, used by a later call ---------------------------------------------------------------------
def test_an_alias_stored_by_an_earlier_call_discards_work_unguarded_and_the_engine_refuses(
    tmp_path: Path, session: Engine, work: Path, fake_home: Path
) -> None:
    live = repository(tmp_path / "live")
    git(live, "config", "alias.r", "restore --worktree")
    git(live, "r", "--staged", ".")
    assert (live / "f.txt").read_text() == "committed\n", "git r --staged . discards the change"

    repository(work)
    first = session.call("terminal", {"command": "git config alias.r 'restore --worktree'"}, session_id="s")
    assert first.ok, first.output
    assert git(work, "config", "alias.r").strip() == "restore --worktree"  # the alias is stored for real
    second = session.call("terminal", {"command": "git r --staged ."}, session_id="s")
    assert not second.ok
    assert second.error is not None and second.error.type in ("denied", "pending_approval")
    assert (work / "f.txt").read_text() == "uncommitted work\n"
    assert home_intact(fake_home)


@pytest.mark.parametrize(
    "where",
    ["global", "repository", "included", "worktree file included"],
)
def test_a_stored_shell_alias_deletes_the_home_unguarded_and_the_engine_refuses(
    tmp_path: Path, session: Engine, work: Path, fake_home: Path, where: str
) -> None:
    text = "[alias]\n\tx = !rm -rf\n"
    # unguarded: git reads the alias from the user's file and deletes the home
    live_home = make_home(tmp_path / "unguarded")
    alias_file(live_home / ".gitconfig", text)
    subprocess.run(
        ["git", "x", str(live_home)], env={**os.environ, "HOME": str(live_home)}, cwd=tmp_path, check=False, timeout=60
    )
    assert not (live_home / "notes.txt").exists(), "git x ~ runs rm -rf ~"

    repository(work)
    if where == "global":
        alias_file(fake_home / ".gitconfig", text)
    elif where == "repository":
        alias_file(work / ".git" / "config", text)
    elif where == "included":
        (tmp_path / "more.cfg").write_text(text)
        alias_file(fake_home / ".gitconfig", f"[include]\n\tpath = {tmp_path / 'more.cfg'}\n")
    else:
        (work / "al.cfg").write_text(text)  # a file of the work tree (a tool call may write it)
        alias_file(work / ".git" / "config", '[includeIf "gitdir:/"]\n\tpath = ../al.cfg\n')
    assert "rm -rf" in git(work, "config", "--get", "alias.x")  # git itself reads it there
    blocked(session, fake_home, "git x ~")
    assert home_intact(fake_home)


def test_a_stored_alias_is_read_in_the_folder_the_command_runs_in(session: Engine, work: Path, fake_home: Path) -> None:
    repository(work / "sub")
    alias_file(work / "sub" / ".git" / "config", "[alias]\n\tx = !rm -rf\n")
    for command in ["cd sub && git x ~", "git -C sub x ~", f"GIT_DIR={work}/sub/.git git x ~"]:
        assert session.check(command).decision != "allow", command
    assert session.check("git x ~").decision == "allow"  # (not a repository with that alias: git fails)


def test_a_configuration_the_engine_cannot_read_asks(session: Engine, work: Path, fake_home: Path) -> None:
    repository(work)
    (work / "odd").mkdir()  # an include that names a folder: nothing the engine can read
    alias_file(work / ".git" / "config", "[include]\n\tpath = ../odd\n")
    assert session.check("git zz").decision == "ask"
    assert session.check("git status").decision == "allow"  # (one of git's own verbs: no alias is read)
    alias_file(work / ".git" / "config", '[alias]\n\tq = "unterminated\n')
    assert session.check("git qq").decision == "ask"


STORED_NEAR = ["git co main", "git st", "git lg -5", "git hi ~", "git lfs version", "git status", "git unknownverb"]


def test_a_stored_alias_naming_another_is_read_to_the_end(session: Engine, work: Path, fake_home: Path) -> None:
    repository(work)
    alias_file(fake_home / ".gitconfig", "[alias]\n\ta = b\n")
    alias_file(work / ".git" / "config", "[alias]\n\tb = !rm -rf\n")
    blocked(session, fake_home, "git a ~")


def test_ordinary_stored_aliases_stay_allowed(session: Engine, work: Path, fake_home: Path) -> None:
    repository(work)
    alias_file(fake_home / ".gitconfig", "[alias]\n  co = checkout\n  st = status -sb ; a comment\n")
    alias_file(work / ".git" / "config", '[alias] lg = "log --oneline"\n\thi = !echo\n')
    assert flagged_near_misses(session, STORED_NEAR) == []
    assert session.call("terminal", {"command": "git st"}).ok


# -- defined on the line ---------------------------------------------------------------------------------------------
DEFINED = [
    "git config alias.r 'reset --hard'; git r",
    "git config alias.r 'restore --worktree'; git r --staged .",
    "git config --global alias.x '!rm -rf'; git x ~",
    "git config -f .git/config alias.x '!rm -rf' && git x ~",
    "git config --add alias.r reset && git r --hard",
    "git config set alias.r reset && git r --hard",
    "git config alias.x '!rm -rf ~'",
]
DEFINED_NEAR = [
    "git config alias.co checkout; git co main",
    "git config alias.r reset; git r HEAD f.txt",
    "git config alias.l 'log --oneline'; git l -5",
    "git config alias.r",
    "git config --get-regexp alias",
]


def test_an_alias_defined_on_the_line_is_judged_where_it_is_used(engine: Engine) -> None:
    assert allowed_payloads(engine, DEFINED) == []


def test_an_ordinary_alias_defined_on_the_line_stays_allowed(engine: Engine) -> None:
    assert flagged_near_misses(engine, DEFINED_NEAR) == []


# -- the configuration reader ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[alias]\n\tx = !rm -rf\n", {"x": ["!rm -rf"]}),
        ("[Alias] X = reset --hard # comment\n", {"x": ["reset --hard"]}),
        ('[alias]\n\tx = "!rm -rf ; true" ; c\n', {"x": ["!rm -rf ; true"]}),
        ("[alias]\n\tx = !rm \\\n  -rf\n", {"x": ["!rm   -rf"]}),
        ('[alias]\n\tx = a\\tb\\"c\n', {"x": ['a\tb"c']}),
        ("[core]\n\tpager = less\n[alias]\n\tx = one\n\tx = two\n", {"x": ["one", "two"]}),
        ("[alias]\n\tflag\n", {}),
    ],
)
def test_the_reader_reads_aliases_as_git_does(tmp_path: Path, text: str, expected: dict[str, list[str]]) -> None:
    from engine.policy.gitconfig import parse_aliases

    assert parse_aliases(text)[0] == expected
    # the same file read by git: every value git prints is one the reader found
    config = tmp_path / "c"
    config.write_text(text)
    for name, values in expected.items():
        printed = subprocess.run(
            ["git", "config", "-f", str(config), "--get-all", f"alias.{name}"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.splitlines()
        assert printed == values


def test_an_alias_stored_after_the_same_command_was_judged_is_read(
    session: Engine, work: Path, fake_home: Path
) -> None:
    """The engine keeps the reading of a text it judged (the parse cache): not one that read git's files, which a
    later call or the user may change (`git x ~` judged harmless, then `[alias] x = !rm -rf` stored)."""
    repository(work)
    assert session.check("git x ~").decision == "allow"
    assert session.check("git x ~").decision == "allow"
    alias_file(fake_home / ".gitconfig", "[alias]\n\tx = !rm -rf\n")
    assert session.check("git x ~").decision == "deny"
    blocked(session, fake_home, "git x ~")


CONFIG_ENV = ["V='!rm -rf' git --config-env=alias.x=V x ~", "V=reset git --config-env=alias.x=V x --hard"]
CONFIG_ENV_NEAR = ["V='log --oneline' git --config-env=alias.l=V l -3", "V='!echo' git --config-env=alias.x=V x ~"]


def test_an_alias_given_by_config_env_is_judged_with_its_arguments(engine: Engine) -> None:
    """(with adv42's `value:` reading of the variable) the words after the verb are the alias's arguments."""
    assert allowed_payloads(engine, CONFIG_ENV) == []
    assert flagged_near_misses(engine, CONFIG_ENV_NEAR) == []
