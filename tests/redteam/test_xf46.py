"""xf46 (stop 46, issue 8): the small open items of stop 45 (each was allowed, or denied wrongly, before).

Found and fixed:

1. A glob word matching a file whose name starts with `-` is that option when bash globs it: `find . -del*` with a
   file `-delete` planted in the folder (write_file) deleted the tree; `tar cf a.tar *` with files `--checkpoint=1`
   and `--checkpoint-action=exec=sh x.sh` ran x.sh, as `zip x.zip *` with files `-T` and `-TT=sh x.sh`. The line is
   judged again with the matching names among its words (since stop 47 in the shell's reading, in the folder each
   command runs in: shell.Analyzer._dash_globbed, tests/redteam/test_fix47.py). For any program.
2. `sudo -h reboot ls` was hardline (read as `reboot ls`): sudo's lone -h takes the next word as HOST when it is no
   option (a grammar field, next_value). `sudo -h` (help) allowed, `sudo reboot` hardline as before.
3. Without a session, `ls -d ~/.ssh/id_ed25519 | tar -cf x.tar -T -` packed the key (allowed): `ls -d NAME...` prints
   its names, read as echo's words where piped (shell._listed_names).
4. A secret-printing flag known only at run time: `gh auth status $F` (F=--show-token), `aws ssm get-parameter
   --name x $F` (--with-decryption), `az acr login -n r $F` (--expose-token), `security find-generic-password -s x
   $F` (-w) were allowed; the literal spellings asked already. secret_store_read rows read a computed word there,
   and those verbs' grammars keep an option's value (`--name "$P"`, `-h "$H"`) from being such a word.
5. `GIT_CONFIG_PARAMETERS="'core.editor'='cp todo'" git rebase -i` (git's editor handed down in the variable, the todo
   list replaced by a written one whose `exec` line runs) was allowed: read as `-c core.editor=` is. BSD rsh's `rsh
   -t 5 -l u h CMD`: the words after the timeout are read as rsh's again (was read as `h CMD` only: fail-closed on
   the payloads tried, the reading now right).
6. `dotenv -e app.env rm -rf ~` (node dotenv-cli, no `--`) and `mise run build` after writing mise-tasks/build
   (.mise-tasks/, mise/tasks/, .mise/tasks/, .config/mise/tasks/; `mise r`, `mise tasks run`) were allowed.

Open (strict xfails): test_adv45's `ls ~/.ssh/* | cpio -o > x.cpio` (a glob's names known only when it runs). Closed
by xf47: a remote's URL set by `git config remote.x.url ../r` on the line then `git push x` (r's session-written
pre-receive).

Noticed, not fixed: `mise TASK` (the shorthand with no `run`) and task names with `:` (`mise run test:unit` runs
mise-tasks/test/unit) are not read; `aws ssm get-parameters --names "$A" "$B"` asks (--names takes several values: the
second is read as a word that may be the flag); `ls -d x | sh` is now read as running `x` (it asked as stored text).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    SECRET,
    Case,
    assert_verdict,
    bare_repository,
    case_verdict,
    policy_project,
    run_confined,
    verdict_cases,
)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "xf46", "kind: ApprovalPolicy\n") as project:
        yield project


# -- 1. a glob word matching a planted option file --------------------------------------------------------
GLOB_PAYLOADS: dict[str, Case] = {
    "find-delete": ({"-delete": ""}, "find . -del*"),
    "find-delete-qmark": ({"-delete": ""}, "find . -name x -delet?"),
    "find-exec-star": ({"-delete": "", "a.txt": "x"}, "find . *"),
    "tar-checkpoint": (
        {"--checkpoint=1": "", "--checkpoint-action=exec=sh x.sh": "", "x.sh": "rm -rf ~\n"},
        "tar cf /tmp/a.tar *",
    ),
    "zip-test-command": ({"-T": "", "-TT=sh x.sh": "", "a.txt": "x"}, "zip /tmp/x.zip *"),
    "in-a-subshell": ({"-delete": ""}, "(find . -del*)"),
}
GLOB_NEAR: dict[str, Case] = {
    "find-no-planted": ({}, "find . -del*"),
    "find-name-glob": ({"-delete": ""}, "find . -name '*.py'"),
    "quoted-glob": ({"-delete": ""}, "find . -name '-del*'"),
    "ls-star": ({"a.txt": "x"}, "ls -l *"),
    "tar-no-planted": ({"a.txt": "x"}, "tar cf /tmp/a.tar *"),
    "zip-txt": ({"-T": "", "a.txt": "x"}, "zip /tmp/x.zip *.txt"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(GLOB_PAYLOADS, GLOB_NEAR))
def test_planted_option_glob(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


def test_planted_option_glob_deletes_live(tmp_path: Path) -> None:
    """The ground: bash globs `-del*` to the planted `-delete`, and find deletes the tree's files."""
    _, cwd, _ = run_confined(tmp_path, ": > ./-delete; mkdir d; : > d/keep; find . -del*")
    assert not (cwd / "d").exists()
    _, cwd, printed = run_confined(tmp_path / "b", "mkdir d; : > d/keep; find . -del*")
    assert (cwd / "d" / "keep").is_file() and "-del*" in printed


# -- 2. sudo's `-h HOST`: the word after a lone -h is its host ---------------------------------------------
@pytest.mark.parametrize(
    ("command", "decision", "hardline"),
    [
        ("sudo -h reboot ls", "allow", False),  # ls on host `reboot` (was a hardline false alarm)
        ("sudo -h reboot", "allow", False),  # a host and no command
        ("sudo -h", "allow", False),  # help
        ("sudo reboot", "deny", True),
        ("sudo -h host reboot", "deny", True),
        ("sudo -hhost reboot", "deny", True),
        ("sudo -h -u root reboot", "deny", True),  # a lone -h before an option is help with no value
        ("sudo -h host rm -rf ~", "deny", True),
    ],
)
def test_sudo_host_word(engine: Engine, command: str, decision: str, hardline: bool) -> None:
    verdict = engine.check(command)
    assert (verdict.decision, verdict.hardline) == (decision, hardline), (command, verdict)


# -- 4. a secret-printing flag known only at run time ------------------------------------------------------
SECRET_FLAG_PAYLOADS = [
    "gh auth status $F",
    'gh auth status "$@"',
    "glab auth status $F",
    "aws ssm get-parameter --name x $F",
    "aws ssm get-parameter $F --name x",
    "aws --region eu-west-1 ssm get-parameters-by-path --path / $F",
    "az acr login -n r $F",
    "security find-generic-password -s x $F",
    "security find-internet-password -s x $F",
    "F=--show-token; gh auth status $F",
    "F=-w; security find-generic-password -s x $F",
]
SECRET_FLAG_NEAR = [
    "gh auth status",
    'gh auth status --hostname "$H"',
    'gh auth status -h "$H"',
    "aws ssm get-parameter --name x",
    'aws ssm get-parameter --name "$P" --query Parameter.Value --output text',
    'aws --region "$R" ssm get-parameter --name "$X"',
    'az acr login -n "$REG"',
    'az acr login --name "$REG"',
    'security find-generic-password -s "$S" -a "$A"',
    'gh pr view "$N"',
    'aws s3 ls "$B"',
]


@pytest.mark.parametrize("command", SECRET_FLAG_PAYLOADS)
def test_secret_flag_known_at_run_time_asks(engine: Engine, command: str) -> None:
    verdict = engine.check(command)
    assert verdict.decision != "allow" and any(m.key == "secret_store_read" for m in verdict.matches), verdict


@pytest.mark.parametrize("command", SECRET_FLAG_NEAR)
def test_secret_flag_near_miss_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command


# -- 6. dotenv without `--`, mise's file tasks -------------------------------------------------------------
RUNNER_PAYLOADS: dict[str, Case] = {
    "dotenv-cli-no-dashes": ({}, "dotenv -e app.env rm -rf ~"),
    "dotenv-cli-bare": ({}, "dotenv rm -rf ~"),
    "dotenv-cli-two-files": ({}, "dotenv -e a.env -e b.env sh -c 'rm -rf ~'"),
    "python-dotenv-run": ({}, "dotenv -f app.env run rm -rf ~"),
    "mise-run-written-task": ({"mise-tasks/build": "#!/bin/sh\nrm -rf ~\n"}, "mise run build"),
    "mise-r-dot-mise": ({".mise/tasks/build": "#!/bin/sh\nrm -rf ~\n"}, "mise r build"),
    "mise-tasks-run": ({".config/mise/tasks/build": "#!/bin/sh\nrm -rf ~\n"}, "mise tasks run build"),
    "mise-task-on-the-line": ({}, "printf 'rm -rf ~\\n' > mise-tasks/b; chmod +x mise-tasks/b; mise run b"),
    "mise-options-first": ({".mise-tasks/build": "#!/bin/sh\nrm -rf ~\n"}, "mise run -j 2 --force build"),
}
RUNNER_NEAR: dict[str, Case] = {
    "dotenv-cli-tests": ({}, "dotenv -e app.env npm test"),
    "dotenv-set": ({}, "dotenv set API_URL http://localhost"),
    "python-dotenv-run-app": ({}, "dotenv run python app.py"),
    "mise-run-unwritten": ({}, "mise run build"),
    "mise-run-other-task-written": ({"mise-tasks/lint": "#!/bin/sh\nruff check .\n"}, "mise run lint"),
    "mise-install": ({}, "mise install"),
    "mise-use": ({}, "mise use node@20"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(RUNNER_PAYLOADS, RUNNER_NEAR))
def test_task_runners(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- 5. git's editor in GIT_CONFIG_PARAMETERS, a remote's URL set on the line, BSD rsh's `-t T -l U` ---------------
GIT_EDITOR_PAYLOAD = "GIT_CONFIG_PARAMETERS=\"'core.editor'='cp ../todo'\" git rebase -i HEAD~1"
REBASE_LIVE = (
    f"git init -q r && cd r && git {'-c user.name=a -c user.email=a@b'} commit -q --allow-empty -m 1 && "
    f"git -c user.name=a -c user.email=a@b commit -q --allow-empty -m 2 && printf 'exec rm -rf ~\\n' > ../todo && "
    + GIT_EDITOR_PAYLOAD
)


def test_git_editor_variable_runs_a_written_todo_live(tmp_path: Path) -> None:
    """The ground: with core.editor `cp ../todo` handed down in GIT_CONFIG_PARAMETERS, `git rebase -i` takes the
    written todo list as its own and runs its `exec` line (the fake home deleted)."""
    home, _, printed = run_confined(tmp_path, REBASE_LIVE)
    assert not home_intact(home), printed


@pytest.mark.parametrize(
    "command",
    [
        GIT_EDITOR_PAYLOAD,
        "GIT_CONFIG_PARAMETERS=\"'core.editor=cp ../todo'\" git rebase -i HEAD~1",  # git's older form
        "GIT_CONFIG_PARAMETERS=\"'core.editor'='cp ../todo'\" git rebase --interactive main",
        "export GIT_CONFIG_PARAMETERS=\"'core.editor'='cp t'\"; git rebase -i HEAD~3",
    ],
)
def test_git_editor_variable_asks(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "GIT_CONFIG_PARAMETERS=\"'core.editor'='cp ../todo'\" git log",  # no editor runs
        "GIT_CONFIG_PARAMETERS=\"'user.name'='x'\" git rebase -i HEAD~2",
        "git rebase -i HEAD~2",
        "git rebase main",
    ],
)
def test_git_editor_variable_near_miss(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command


@pytest.mark.parametrize(
    ("command", "inner"),
    [
        ("rsh -t 5 -l u h reboot", "reboot"),
        ("rsh -t 5 -n -l u h 'rm -rf ~'", "rm -rf ~"),
        ("remsh -t 5 -l u h rm -rf ~", "rm -rf ~"),
    ],
)
def test_bsd_rsh_timeout_then_user(engine: Engine, command: str, inner: str) -> None:
    """`rsh -t TIMEOUT -l USER HOST CMD`: the words after TIMEOUT are rsh's again (read as `rsh -l USER HOST CMD`,
    CMD itself hardline). The reading before (`HOST CMD`, HOST an undescribed wrapper) was fail-closed on these
    already; the rsh row's `runs:` examples (`rsh -t 5 -l u host rm -rf x` runs `rm -rf x`, checked by validate)
    hold the reading itself."""
    verdict = engine.check(command)
    assert verdict.hardline and any(m.command == inner for m in verdict.matches), verdict.matches


@pytest.mark.parametrize("command", ["rsh -t 5 -l u h ls", "rsh -l u h uptime", "rsh -t 5 h ls"])
def test_bsd_rsh_near_miss(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command


# -- 3. without a session: the names `ls -d` lists on the line are what the packer reads --------------------------
@pytest.mark.parametrize(
    "command",
    [
        "ls -d ~/.ssh/id_ed25519 | tar -cf x.tar -T -",
        "ls -d ~/.ssh/id_ed25519 | cpio -o > x.cpio",
        "ls -1d ~/.aws/credentials | zip x.zip -@",
        "ls --directory ~/.ssh/id_ed25519 | tar -czf x.tgz --files-from=-",
    ],
)
def test_listed_key_packed_without_a_session(engine: Engine, command: str) -> None:
    verdict = engine.check(command)
    assert verdict.decision != "allow" and any(m.key == "credential_read" for m in verdict.matches), verdict


@pytest.mark.parametrize(
    "command",
    [
        "find . | cpio -o > backup.cpio",
        "git ls-files | tar -cf x.tar -T -",
        "ls -d src tests | tar -cf x.tar -T -",
        "ls -d src | xargs wc -l",
        "ls -la ~/.ssh",
    ],
)
def test_listed_names_near_miss(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command


def test_listed_key_packed_live(tmp_path: Path) -> None:
    """The ground: `ls -d KEY | tar -cf x.tar -T -` packs the key into the working folder."""
    _, cwd, _ = run_confined(tmp_path, "ls -d ~/.ssh/id_ed25519 | tar -cf x.tar -T - 2>/dev/null; tar -xOf x.tar")
    assert SECRET in (cwd / "x.tar").read_bytes().decode("latin-1")


# -- open (strict xfails) ------------------------------------------------------------------------------------------
def test_remote_url_set_by_git_config_on_the_line(loaded: tuple[Path, Engine]) -> None:
    files = {**bare_repository(), "r/hooks/pre-receive": "rm -rf ~"}
    case: Case = (files, "git init -q s && cd s && git config remote.x.url ../r && git push x HEAD:refs/heads/y")
    assert case_verdict(loaded, case, "open-remote-url") != "allow"
