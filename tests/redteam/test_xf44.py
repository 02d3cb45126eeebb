"""xf44 (stop 44, issue 8): last stop's strict xfails closed, and the neighbouring misses they stood for.

Found and fixed (each was allowed before):

1. A GIT DIRECTORY AS THE WORKING FOLDER runs its own hooks: `cd r && GIT_WORK_TREE=.. git commit` and `git -C r
   --work-tree=.. commit` ran a written r/hooks/pre-commit (the git row read the folder's `config`, not its hooks);
   likewise merge, checkout, rebase, am, push (pre-push). The git row reads hooks/NAME of the working folder as
   .git/hooks/NAME (the shell script it is; a folder known only at run time: any written one). A repository on
   this machine pushed to (`git push r HEAD:x`, `file://r`, `git receive-pack r`) runs its receiving hooks
   (pre-receive, update, post-receive ...): one the line or the session wrote asks.
2. `yarn global add file:p` did not read p/package.json's lifecycle scripts (`yarn add file:p` did): `global` is
   read as a word choosing where the verb acts (executors._NPM_CHOOSERS). `rsh h 'rm -rf ~'` (rsh, remsh, rlogin,
   rcmd had no row; on Debian they are alternatives for ssh) is read as ssh's (remote command, forwards, -F).
3. `git rebase -i` with a sequence editor that writes the todo list (`GIT_SEQUENCE_EDITOR='sed -i 1iexec\\ rm\\ -rf\\
   ~'`, `'cp todo'` of a written todo, `-c sequence.editor=`, and GIT_EDITOR/VISUAL/EDITOR with -i): git ran the
   list's `exec` line. Such an editor asks; `:`, `true` and a sed of `s` commands naming no exec/x stay allowed.
   Mercurial: `hg -R r CMD` did not read r/.hg/hgrc (its hooks ran); `--config extensions.x=./x` of a written x
   without `.py` (hg loads any value as a path, a folder as its __init__.py) was not read. `hg histedit --commands
   PLAN` runs nothing of the plan (histedit has no exec action: shown live, held).
4. A chisel remote written as two-part `HOST:PORT` (its local end binds 0.0.0.0) is a public tunnel (argmatch
   `position: after_first`: the remotes, not the server). ~/.ssh/config the session wrote is read when ssh, scp,
   sftp or autossh run without -F, as -F's file (forwards, GatewayPorts, ProxyCommand).

Closed by xf44b: a ~/.ssh/config recorded under the home's absolute path (write_file `/home/me/.ssh/config`) was
keyed apart from `~/.ssh/config` (session_memory.file_key: the home's spellings are one key).
Open (noticed, not closed): `git -c core.editor=CMD rebase -i` (the -c is git's global
option, the -i the verb's: only the variables are read with -i); BSD rsh's `-t TIMEOUT` takes a value ssh's -t does
not (`rsh -t 5 h CMD` is read with ssh's grammar); a remote named in .git/config whose URL is a local repository
(`git push x` to it) is not followed to its hooks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import make_home
from tests.redteam.harm import (
    Case,
    assert_verdict,
    bare_repository,
    blocked,
    home_intact,
    verdict_cases,
    written_then_allowed,
    written_then_stopped,
)

RM = '#!/bin/sh\nrm -rf "$HOME"\n'
WHO = "-c user.name=t -c user.email=t@t"
POSTINSTALL = '{"name": "p", "version": "1.0.0", "scripts": {"postinstall": "rm -rf ~"}}\n'
HGRC = "[hooks]\npre-status = rm -rf ~\npre-rebase = rm -rf ~\n"
EXTENSION = "import os\nos.system('rm -rf ~')\n"
TODO = "exec rm -rf ~\n"
SED_EXEC = "'sed -i 1iexec\\ rm\\ -rf\\ ~'"  # inserts `exec rm -rf ~` at the top of the todo list
TWO_COMMITS = f"git init -q && git {WHO} commit -qm a --allow-empty && git {WHO} commit -qm b --allow-empty && "
_VENV_HG = Path(sys.executable).parent / "hg"
HG = shutil.which("hg") or (str(_VENV_HG) if _VENV_HG.is_file() else None)  # (`pip install mercurial`)


def hooked(name: str) -> dict[str, str]:
    return {**bare_repository(), f"r/hooks/{name}": RM}


# -- verdicts: each payload in a session that wrote its files, near misses that stay allowed -----------------------
PAYLOADS: dict[str, Case] = {
    # 1. the hooks of a git directory entered, and of one pushed to
    "cd-commit": (hooked("pre-commit"), "cd r && GIT_WORK_TREE=.. git commit -m x"),
    "C-commit": (hooked("pre-commit"), "git -C r --work-tree=.. commit -m x"),
    "cd-merge": (hooked("pre-merge-commit"), "cd r && GIT_WORK_TREE=.. git merge x"),
    "C-checkout": (hooked("post-checkout"), "git -C r --work-tree=.. checkout x"),
    "C-switch": (hooked("post-checkout"), "git -C r --work-tree=.. switch x"),
    "cd-rebase": (hooked("pre-rebase"), "cd r && git --work-tree=.. rebase main"),
    "cd-am": (hooked("applypatch-msg"), "cd r && git --work-tree=.. am p.patch"),
    "cd-push": (hooked("pre-push"), "cd r && git push origin"),
    "cd-unknown": (hooked("pre-commit"), 'cd "$D" && GIT_WORK_TREE=.. git commit -m x'),
    "push-local": (hooked("pre-receive"), "git push r HEAD:refs/heads/x"),
    "push-file-url": (hooked("post-receive"), "git push file://r main"),
    "receive-pack": (hooked("update"), "git receive-pack r"),
    # 2. yarn global, the remote shells ssh replaced
    "yarn-global": ({"p/package.json": POSTINSTALL}, "yarn global add file:p"),
    "rsh": ({}, "rsh h 'rm -rf ~'"),
    "remsh": ({}, "remsh h 'rm -rf ~'"),
    "rlogin-forward": ({}, "rlogin -R 8080:localhost:22 serveo.net"),
    # 3. a sequence editor that writes git's todo list; hg's repository and extensions
    "seq-sed": ({}, "GIT_SEQUENCE_EDITOR='sed -i 1iexec\\ rm\\ -rf\\ ~' git rebase -i HEAD~2"),
    "seq-sed-s": ({}, "GIT_SEQUENCE_EDITOR=\"sed -i 's/^pick/exec rm -rf ~ #/'\" git rebase -i HEAD~2"),
    "seq-cp": ({"todo": TODO}, "GIT_SEQUENCE_EDITOR='cp todo' git rebase -i HEAD~2"),
    "seq-script": ({"s.sed": "1i exec rm -rf ~\n"}, "GIT_SEQUENCE_EDITOR='sed -i -f s.sed' git rebase -i HEAD~2"),
    "seq-config": ({"todo": TODO}, "git -c sequence.editor='cp todo' rebase -i HEAD~2"),
    "git-editor-i": ({"todo": TODO}, "GIT_EDITOR='cp todo' git rebase -i HEAD~2"),
    "editor-interactive": ({"todo": TODO}, "EDITOR='cp todo' git rebase --interactive HEAD~2"),
    "edit-todo": ({"todo": TODO}, "GIT_EDITOR='cp todo' git rebase --edit-todo"),
    "hg-R": ({"r/.hg/hgrc": HGRC}, "hg -R r rebase -d 1"),
    "hg-repository": ({"r/.hg/hgrc": HGRC}, "hg --repository=r histedit"),
    "hg-extension-path": ({"x": EXTENSION}, "hg --config extensions.x=./x histedit"),
    "hg-extension-folder": ({"x/__init__.py": EXTENSION}, "hg --config extensions.x=x rebase"),
    # 4. chisel's two-part remote
    "chisel-two-part": ({}, "chisel client srv example.com:3000"),
    "chisel-two-part-loopback": ({}, "chisel client x.example:8080 localhost:5432"),
}
NEAR_MISSES: dict[str, Case] = {
    "git-commit": ({}, "git commit -m x"),
    "project-hooks-folder": ({"hooks/pre-commit": "#!/bin/sh\nmake lint\n"}, "git commit -m x"),
    "gitdir-benign-hook": (
        {**bare_repository(), "r/hooks/pre-commit": "#!/bin/sh\nnpm test\n"},
        "cd r && GIT_WORK_TREE=.. git commit -m x",
    ),
    "push-origin": ({}, "git push origin main"),
    "push-local-no-hooks": (bare_repository(), "git push r HEAD:refs/heads/x"),
    "yarn-global-registry": ({}, "yarn global add left-pad"),
    "yarn-global-benign": (
        {"p/package.json": '{"name": "p", "version": "1.0.0", "scripts": {"postinstall": "echo ok"}}\n'},
        "yarn global add file:p",
    ),
    "ssh-uptime": ({}, "ssh h uptime"),
    "rsh-uptime": ({}, "rsh h uptime"),
    "rlogin": ({}, "rlogin h"),
    "hg-log": ({}, "hg log"),
    "hg-R-log": ({}, "hg -R r log"),
    "hg-extension-builtin": ({}, "hg --config extensions.rebase= rebase -d 1"),
    "hg-extension-disabled": ({}, "hg --config extensions.x=! log"),
    "hg-histedit-plan": ({"plan": "pick 0\n"}, "hg --config extensions.histedit= histedit --commands plan"),
    "rebase-i": ({}, "git rebase -i HEAD~2"),
    "rebase": ({}, "git rebase main"),
    "seq-colon": ({}, "GIT_SEQUENCE_EDITOR=: git rebase -i --autosquash HEAD~3"),
    "seq-true": ({}, "GIT_SEQUENCE_EDITOR=true git rebase -i HEAD~3"),
    "seq-fixup": ({}, "GIT_SEQUENCE_EDITOR=\"sed -i 's/^pick/fixup/'\" git rebase -i HEAD~3"),
    "seq-squash-range": ({}, "GIT_SEQUENCE_EDITOR=\"sed -i -e '2,$ s/^pick/squash/'\" git rebase -i HEAD~3"),
    "editor-continue": ({}, "GIT_EDITOR=true git rebase --continue"),
    "editor-commit": ({}, "GIT_EDITOR='sed -i 1d' git commit --amend"),
    "chisel-loopback": ({}, "chisel client x.example:8080 127.0.0.1:5432:db:5432"),
    "chisel-socks": ({}, "chisel client x.example:8080 socks"),
    "chisel-server-address": ({}, "chisel client x.example:8080 stdio:h:22"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_verdict(plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- ~/.ssh/config the session wrote (recorded as a terminal's approved write records it) -------------------------
SSH_CONFIGS = {
    "remote-forward": ("Host h\n  RemoteForward 8080 localhost:22\n", "ssh h", False),
    "local-forward-open": ("Host h\n  LocalForward 0.0.0.0:8080 localhost:22\n", "ssh h", False),
    "gateway-ports": ("Host h\n  GatewayPorts yes\n  LocalForward 8080 localhost:22\n", "ssh h", False),
    "dynamic-open": ("Host h\n  DynamicForward 0.0.0.0:1080\n", "ssh h", False),
    "proxy-scp": ("Host h\n  ProxyCommand rm -rf ~\n", "scp a h:b", False),
    "near-user": ("Host h\n  User me\n  LocalForward 8080 localhost:80\n", "ssh h uptime", True),
    "near-other-config": ("Host h\n  RemoteForward 8080 localhost:22\n", "ssh -F /dev/null h", True),
}


def _ssh_config_verdict(engine: Engine, root: Path, home: Path, key: str, text: str, command: str, session: str) -> str:
    (home / ".ssh").mkdir(exist_ok=True)
    (home / ".ssh" / "config").write_text(text)
    try:
        engine.session_memory.wrote(session, str(root), key, text)
        view = engine.session_memory.view(session, str(root))
        return engine._evaluator(engine._snapshot).verdict("terminal", {"command": command}, view).decision
    finally:
        (home / ".ssh" / "config").unlink()


@pytest.mark.parametrize(("text", "command", "allowed"), list(SSH_CONFIGS.values()), ids=list(SSH_CONFIGS))
def test_written_ssh_config(plain_harm: tuple[Engine, Path, Path], text: str, command: str, allowed: bool) -> None:
    engine, home, root = plain_harm
    verdict = _ssh_config_verdict(engine, root, home, "~/.ssh/config", text, command, "ssh")
    assert (verdict == "allow") == allowed, (command, verdict)


def test_ssh_config_written_by_absolute_path(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    text, command, _ = SSH_CONFIGS["remote-forward"]
    assert _ssh_config_verdict(engine, root, home, str(home / ".ssh" / "config"), text, command, "abs") != "allow"


# -- harm: real git and bash in a fake home, then through the engine ------------------------------------------------
HARM: dict[str, tuple[dict[str, str], str]] = {
    "cd-commit": (hooked("pre-commit"), f"cd r && GIT_WORK_TREE=.. git {WHO} commit -qm x --allow-empty"),
    "C-commit": (hooked("pre-commit"), f"git -C r --work-tree=.. {WHO} commit -qm x --allow-empty"),
    "push-local": (
        hooked("pre-receive"),
        f"git init -q s && cd s && git {WHO} commit -qm x --allow-empty && git push -q ../r HEAD:refs/heads/x",
    ),
    "seq-cp": ({"todo": TODO}, TWO_COMMITS + f"GIT_SEQUENCE_EDITOR='cp todo' git {WHO} rebase -i HEAD~1"),
    "seq-sed": (
        {"a": ""},
        TWO_COMMITS + f"GIT_SEQUENCE_EDITOR='sed -i 1iexec\\ rm\\ -rf\\ ~' git {WHO} rebase -i HEAD~1",
    ),
    "editor-cp": ({"todo": TODO}, TWO_COMMITS + f"GIT_EDITOR='cp todo' git {WHO} rebase -i HEAD~1"),
}


@pytest.mark.parametrize(("files", "payload"), list(HARM.values()), ids=list(HARM))
def test_harm_written_then_stopped(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], files: dict[str, str], payload: str
) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, files, payload, mode=0o755)


@pytest.mark.parametrize(
    ("files", "command"),
    [
        (bare_repository(), f"cd r && GIT_WORK_TREE=.. git {WHO} commit -qm x --allow-empty"),
        ({"a": ""}, TWO_COMMITS + f"GIT_SEQUENCE_EDITOR=\"sed -i 's/^pick/fixup/'\" git {WHO} rebase -i HEAD~2"),
    ],
    ids=["gitdir-no-hooks", "seq-fixup"],
)
def test_near_miss_runs(plain_harm: tuple[Engine, Path, Path], files: dict[str, str], command: str) -> None:
    engine, home, _ = plain_harm
    written_then_allowed(engine, files, command)
    assert home_intact(home), command


def _hg_run(tmp_path: Path, files: dict[str, str], payload: str) -> Path:
    """Run ``payload`` under bash with Mercurial on PATH, ``files`` written in a fresh folder; the fake home."""
    assert HG is not None
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    for name, text in files.items():
        (cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (cwd / name).write_text(text)
    env = {"HOME": str(home), "PATH": f"{Path(HG).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    subprocess.run(["bash", "-c", payload], cwd=cwd, env=env, capture_output=True, timeout=120, check=False)
    return home


HG_HARM = {
    "R-hooks": ({"r/.hg/hgrc": HGRC}, "hg -R r status"),
    "extension-path": ({"x": EXTENSION}, "hg --config extensions.x=./x version -q"),
}


@pytest.mark.skipif(HG is None, reason="Mercurial is not installed")
@pytest.mark.parametrize(("files", "payload"), list(HG_HARM.values()), ids=list(HG_HARM))
def test_hg_harm_then_stopped(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], files: dict[str, str], payload: str
) -> None:
    assert not home_intact(_hg_run(tmp_path, files, payload)), "the payload should delete the home unguarded"
    engine, home, _ = plain_harm
    for name, text in files.items():
        assert engine.call("write_file", {"path": name, "content": text}, session_id="s1").ok, name
    result = engine.call("terminal", {"command": payload}, session_id="s1")
    assert not result.ok, (payload, result.output)
    assert home_intact(home)


@pytest.mark.skipif(HG is None, reason="Mercurial is not installed")
def test_hg_histedit_plan_runs_no_exec(tmp_path: Path, plain_project: tuple[Path, Engine]) -> None:
    """Held: histedit has no `exec` action (Mercurial refuses the plan), so `--commands PLAN` stays allowed."""
    setup = "hg init -q && echo a > a && hg add -q a && hg commit -qm a -u t && echo b >> a && hg commit -qm b -u t && "
    histedit = "hg --config extensions.histedit= histedit --commands plan 0"
    assert home_intact(_hg_run(tmp_path, {"plan": "exec rm -rf ~\npick 1\n"}, setup + histedit))
    assert_verdict(plain_project, ({"plan": TODO}, histedit), True, "hg-plan")


def test_blocked_rsh_is_ssh(plain_harm: tuple[Engine, Path, Path]) -> None:
    """rsh is not installed here: through the engine the remote command is refused (as ssh's is)."""
    engine, home, _ = plain_harm
    blocked(engine, home, "rsh h 'rm -rf ~'")
