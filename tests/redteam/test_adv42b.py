"""adv42b (stop 42, issue 8): the adversary on lead42's git aliases (engine/policy/gitconfig.py, follow.py).

Found and fixed (each was allowed, or hung the engine, before):

- a FIFO as ~/.gitconfig (or named by include.path) blocked the engine's open for ever; /dev/zero as an include.path
  was read without end: a file that is not a regular one is now unknown (the use asks); /dev/null reads as empty;
- six files each including the next 200 times: 200**6 readings, the check never ended: one look-up reads at most
  256 files (includes counted each time they are named), then asks;
- `[alias "x"] foo = !rm -rf` (also `[alias.x]`, `[alias ""]`) is git's alias `x.foo`: `git x.foo ~` deleted the home;
- an empty `sub/.git` folder: git passes over it and runs the parent repository's alias, the engine read
  sub/.git/config: `cd sub && git x ~` deleted the home; a `.git` folder git would not take for a repository is no
  longer where the search stops;
- `git --git-dir=/elsewhere/.git y ~` and `GIT_COMMON_DIR=/elsewhere/.git git y ~` ran another repository's alias;
- `V='!rm -rf' git --config-env=alias.x=V x ~`: the value was judged alone (`rm -rf`), now with the words after x;
- `cd sub && HOME=. git x ~` (or a relative GIT_CONFIG_GLOBAL): read from the engine's folder, not git's;
- `HOME=/elsewhere rm -rf ~` (and `HOME=/elsewhere git z ~` with z = !rm -rf in /elsewhere/.gitconfig) was read as
  deleting /elsewhere: bash expands the words before the prefix assignment, and deletes the real home;
- an include `path = ~USER/x.cfg` was read as a relative path (missed); `%(prefix)/x.cfg` (git's installation) asks;
- a UTF-8 byte order mark at a config's start made every non-builtin verb ask (git skips it): read as git does.

Open then, closed by rows43 (engine/policy/hgconfig.py): an alias stored in Mercurial's files (~/.hgrc
`[alias] x = !rm -rf $HOME`, then `hg x`) was read by nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import make_home
from tests.redteam.harm import append, blocked, decision_within, flagged_near_misses, run_confined

GIT = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
SHELL_ALIAS = "[alias]\n\tx = !rm -rf\n"


def git(cwd: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT, "GIT_CONFIG_NOSYSTEM": "1"}
    if home is not None:
        env["HOME"] = str(home)
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=60)


def repository(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    assert git(folder, "init", "-q").returncode == 0
    return folder


# -- files git reads that are no regular files, and readings without end ---------------------------------------------
def test_a_fifo_as_the_users_git_configuration_asks_and_does_not_hang(session: Engine, fake_home: Path) -> None:
    os.mkfifo(fake_home / ".gitconfig")
    assert decision_within(session, "git x ~") == "ask"
    assert decision_within(session, "git status") == "allow"  # (git's own verb: nothing is read)


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_an_include_of_a_device_or_a_fifo_asks_and_does_not_hang(
    session: Engine, fake_home: Path, tmp_path: Path, target: str
) -> None:
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
        target = str(tmp_path / "fifo")
    append(fake_home / ".gitconfig", f"[include]\n\tpath = {target}\n[alias]\n\tco = checkout\n")
    assert decision_within(session, "git co main") == "ask"


def test_an_include_of_dev_null_reads_as_empty(session: Engine, fake_home: Path) -> None:
    append(fake_home / ".gitconfig", "[include]\n\tpath = /dev/null\n[alias]\n\tco = checkout\n")
    assert git(fake_home, "co", "-h", home=fake_home).returncode in (0, 129)  # (git reads the file: no error)
    assert decision_within(session, "git co main") == "allow"


def test_includes_fanning_out_without_end_ask_in_bounded_time(session: Engine, fake_home: Path, tmp_path: Path) -> None:
    for level in range(6):
        (tmp_path / f"l{level}.cfg").write_text("[include]\n" + f"\tpath = l{level + 1}.cfg\n" * 200)
    (tmp_path / "l6.cfg").write_text("[alias]\n\tco = checkout\n")
    append(fake_home / ".gitconfig", f"[include]\n\tpath = {tmp_path}/l0.cfg\n")
    assert decision_within(session, "git co main") == "ask"
    (tmp_path / "l0.cfg").write_text("[include]\n" + "\tpath = l6.cfg\n" * 20)  # a few includes: read
    assert decision_within(session, "git co main") == "allow"


# -- aliases git runs that the reader missed --------------------------------------------------------------------------
SUBSECTIONS = {
    '[alias "x"]\n\tfoo = !rm -rf\n': "x.foo",
    '[Alias "X"]\n\tFoo = !rm -rf\n': "x.foo",
    "[alias.x]\n\tfoo = !rm -rf\n": "x.foo",
    '[alias ""]\n\tq = !rm -rf\n': ".q",
}


@pytest.mark.parametrize(("text", "verb"), list(SUBSECTIONS.items()))
def test_an_alias_in_a_subsection_deletes_the_home_unguarded_and_the_engine_refuses(
    tmp_path: Path, session: Engine, fake_home: Path, text: str, verb: str
) -> None:
    live = make_home(tmp_path / "unguarded")
    append(live / ".gitconfig", text)
    git(tmp_path, verb, str(live), home=live)
    assert not (live / "notes.txt").exists(), f"git {verb} ~ runs rm -rf ~"

    append(fake_home / ".gitconfig", text)
    blocked(session, fake_home, f"git {verb} ~")


def test_an_ordinary_alias_in_a_subsection_stays_allowed(session: Engine, fake_home: Path) -> None:
    append(fake_home / ".gitconfig", '\ufeff[alias "my"]\n\tst = status -sb\n[alias]\n\tco = checkout\n')
    assert "status" in git(fake_home, "config", "--get", "alias.my.st", home=fake_home).stdout
    assert flagged_near_misses(session, ["git my.st", "git co main", "git my.other", "git x.foo ~"]) == []


def test_a_byte_order_mark_is_read_as_git_reads_it(session: Engine, fake_home: Path) -> None:
    append(fake_home / ".gitconfig", "\ufeff" + SHELL_ALIAS + "\tco = checkout\n")
    assert "rm -rf" in git(fake_home, "config", "--get", "alias.x", home=fake_home).stdout
    assert session.check("git co main").decision == "allow"  # (it asked before: the file was unreadable)
    blocked(session, fake_home, "git x ~")


# -- the repository git finds -----------------------------------------------------------------------------------------
def test_a_decoy_git_folder_hides_the_parents_alias_unguarded_and_the_engine_refuses(
    tmp_path: Path, session: Engine, work: Path, fake_home: Path
) -> None:
    live_home = make_home(tmp_path / "unguarded")
    live = repository(tmp_path / "unguarded" / "repo")
    append(live / ".git" / "config", SHELL_ALIAS)
    (live / "sub" / ".git").mkdir(parents=True)  # an empty folder: no repository to git
    git(live / "sub", "x", str(live_home), home=live_home)
    assert not (live_home / "notes.txt").exists(), "git in sub runs the parent repository's alias"

    repository(work)
    append(work / ".git" / "config", SHELL_ALIAS)
    (work / "sub" / ".git" / "objects").mkdir(parents=True)
    (work / "sub" / ".git" / "HEAD").write_text("junk\n")  # (git wants a HEAD naming a ref, and refs/)
    for command in ["cd sub && git x ~", "git -C sub x ~"]:
        blocked(session, fake_home, command)


def test_a_nested_repository_without_the_alias_stays_allowed(session: Engine, work: Path, fake_home: Path) -> None:
    repository(work)
    append(work / ".git" / "config", SHELL_ALIAS)
    repository(work / "sub")  # a real repository: git reads its config, not the parent's
    assert "not a git command" in git(work / "sub", "x", home=fake_home).stderr
    assert flagged_near_misses(session, ["cd sub && git x ~", "git -C sub x ~", "cd sub && git status"]) == []


@pytest.mark.parametrize("spelling", ["git --git-dir={g} y ~", "git --git-dir {g} y ~", "GIT_COMMON_DIR={g} git y ~"])
def test_another_repositorys_alias_named_by_an_option_or_variable_is_read(
    tmp_path: Path, session: Engine, work: Path, fake_home: Path, spelling: str
) -> None:
    other = repository(tmp_path / "other")
    append(other / ".git" / "config", "[alias]\n\ty = !rm -rf\n\tco = checkout\n")
    live_home = make_home(tmp_path / "unguarded")
    live = repository(tmp_path / "unguarded" / "repo")
    subprocess.run(
        ["bash", "-c", spelling.format(g=other / ".git").replace("~", str(live_home))],
        cwd=live,
        env={**os.environ, "HOME": str(live_home)},
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert not (live_home / "notes.txt").exists(), "git runs the other repository's alias"

    repository(work)
    blocked(session, fake_home, spelling.format(g=other / ".git"))
    near = spelling.format(g=other / ".git").replace(" y ~", " co main")
    assert flagged_near_misses(session, [near]) == []


def test_an_alias_given_through_a_variable_runs_with_its_arguments(
    tmp_path: Path, session: Engine, fake_home: Path
) -> None:
    payload = "V='!rm -rf' git --config-env=alias.x=V x ~"
    home, _, _ = run_confined(tmp_path / "unguarded", payload)
    assert not (home / "notes.txt").exists(), "git runs rm -rf ~"
    blocked(session, fake_home, payload)
    near = ["V='!echo' git --config-env=alias.x=V x ~", "V=checkout git --config-env=alias.co=V co main"]
    assert flagged_near_misses(session, near) == []


@pytest.mark.parametrize("payload", ["cd sub && HOME=. git x ~", "cd sub && GIT_CONFIG_GLOBAL=g.cfg git x ~"])
def test_a_relative_home_or_global_file_is_the_commands_folders(
    tmp_path: Path, session: Engine, work: Path, fake_home: Path, payload: str
) -> None:
    live_home = make_home(tmp_path / "unguarded")
    for folder in (tmp_path / "unguarded" / "sub", work / "sub"):
        append(folder / ".gitconfig", SHELL_ALIAS)
        append(folder / "g.cfg", SHELL_ALIAS)
    subprocess.run(
        ["bash", "-c", payload.replace("~", str(live_home))],
        cwd=tmp_path / "unguarded",
        env={**os.environ, "HOME": str(live_home)},
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert not (live_home / "notes.txt").exists(), "git reads sub/.gitconfig and runs rm -rf ~"
    blocked(session, fake_home, payload)
    if "GIT_CONFIG_GLOBAL" in payload:
        return  # (the variable naming a file asks whatever the file holds: policies/executors.yaml, git's env runs)
    for name in (".gitconfig", "g.cfg"):
        (work / "sub" / name).write_text("[alias]\n\tco = checkout\n")  # an ordinary alias there
    assert flagged_near_misses(session, [payload.replace(" x ~", " co main")]) == []


# -- a HOME leading the command -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "payload",
    ["HOME=/tmp/elsewhere rm -rf ~", "HOME=/tmp/elsewhere sh -c 'rm -rf \"$1\"' _ ~", "HOME={o} git z ~"],
)
def test_a_home_set_for_the_command_does_not_move_its_tilde(
    tmp_path: Path, session: Engine, work: Path, fake_home: Path, payload: str
) -> None:
    other = tmp_path / "other"
    append(other / ".gitconfig", "[alias]\n\tz = !rm -rf\n")
    payload = payload.format(o=other)
    home, _, _ = run_confined(tmp_path / "unguarded", payload)
    assert not (home / "notes.txt").exists(), "bash expands ~ before the assignment: the real home goes"

    repository(work)
    blocked(session, fake_home, payload)


HOME_NEAR = ["HOME=/tmp/h; rm -rf ~/x", "HOME=/tmp/h ls ~", "HOME=/tmp/h git status", "HOME=/tmp/h echo ~/x"]


def test_a_home_set_for_an_ordinary_command_stays_allowed(session: Engine, fake_home: Path) -> None:
    assert flagged_near_misses(session, HOME_NEAR) == []


# -- include paths git expands ---------------------------------------------------------------------------------------
def test_an_include_under_a_users_home_is_read(
    session: Engine, fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pwd

    from engine.policy import gitconfig

    real = pwd.getpwnam
    someone = tmp_path / "someone"
    append(someone / "al.cfg", SHELL_ALIAS)

    class Entry:
        pw_dir = str(someone)

    monkeypatch.setattr(gitconfig.pwd, "getpwnam", lambda name: Entry() if name == "someone" else real(name))
    append(fake_home / ".gitconfig", "[include]\n\tpath = ~someone/al.cfg\n[alias]\n\tco = checkout\n")
    blocked(session, fake_home, "git x ~")
    assert session.check("git co main").decision == "allow"


def test_an_include_under_gits_installation_prefix_asks(session: Engine, fake_home: Path) -> None:
    append(fake_home / ".gitconfig", "[include]\n\tpath = %(prefix)/etc/more.cfg\n")
    assert session.check("git zz").decision == "ask"
    assert session.check("git status").decision == "allow"


# -- open ------------------------------------------------------------------------------------------------------------
def test_an_alias_stored_in_mercurials_configuration_is_read(session: Engine, fake_home: Path) -> None:
    append(fake_home / ".hgrc", "[alias]\nx = !rm -rf $HOME\n")
    assert session.check("hg x").decision != "allow"
