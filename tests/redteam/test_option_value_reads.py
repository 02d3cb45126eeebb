"""A credential named as an option's VALUE: `xargs -a KEY echo`, `diff --from-file=KEY /dev/null`,
`wc --files0-from=KEY`, `tar -T KEY`, `openssl enc -in KEY`, `dd if=.env` each print the file (as data
or in an error message). credential_read read only the positional words, and a program the Programs
tables give a grammar has its option values apart from them; it now reads every option value too
(`options: {"*": ...}`), leaving out the programs that take a key or an env file to use it.

Each payload is run under bash first (HOME and cwd under tmp_path) to show it prints the key, then
through the engine's terminal, where it must not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import RUN_SECONDS, home_intact, judge, make_home
from tests.redteam.harm import SECRET

PRINTING = {
    # adv26's payloads
    "xargs -a": ("xargs", "xargs -a ~/.ssh/id_ed25519 echo"),
    "xargs --arg-file=": ("xargs", "xargs --arg-file=$HOME/.ssh/id_ed25519 echo"),
    "diff --from-file=": ("diff", "diff --from-file=$HOME/.ssh/id_ed25519 /dev/null"),
    "wc --files0-from=": ("wc", "wc --files0-from=$HOME/.ssh/id_ed25519"),
    "tar -T": ("tar", "tar -cf /dev/null -T ~/.ssh/id_ed25519"),
    "openssl enc -in": ("openssl", "openssl enc -in ~/.ssh/id_ed25519"),
    # spellings and programs the first set does not name
    "xargs -aFILE attached": ("xargs", "xargs -a$HOME/.ssh/id_ed25519 echo"),
    "diff --to-file=": ("diff", "diff --to-file=$HOME/.ssh/id_ed25519 /dev/null"),
    "du --files0-from=": ("du", "du --files0-from=$HOME/.ssh/id_ed25519"),
    "sort --files0-from=": ("sort", "sort --files0-from=$HOME/.ssh/id_ed25519"),
    "tar --files-from=": ("tar", "tar -cf /dev/null --files-from=$HOME/.ssh/id_ed25519"),
    "through a wrapper": ("xargs", "timeout 5 xargs --arg-file ~/.ssh/id_ed25519 echo"),
}


def _live_prints(tmp_path: Path, payload: str, planted: dict[str, str]) -> bool:
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    for name, text in planted.items():
        (cwd / name).write_text(text)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        ["bash", "-c", payload], env=env, cwd=cwd, capture_output=True, text=True, timeout=RUN_SECONDS, check=False
    )
    return SECRET in done.stdout + done.stderr


def _stopped(engine: Engine, home: Path, payload: str) -> None:
    assert os.environ["HOME"] == str(home)
    result = engine.call("terminal", {"command": payload}, session_id="s1")
    printed = (result.output or "") + (result.error.message if result.error else "")
    assert SECRET not in printed, "the key was printed"
    assert not result.ok and result.error is not None and result.error.type in ("denied", "pending_approval")
    assert home_intact(home)


@pytest.mark.parametrize("name", list(PRINTING))
def test_a_key_named_as_an_option_value(
    work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    program, payload = PRINTING[name]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    monkeypatch.chdir(work)
    assert _live_prints(tmp_path, payload, {}), "the payload prints nothing unguarded: the test proves nothing"
    _stopped(work_engine, fake_home, payload)


def test_a_dotenv_named_as_dd_input(
    work_engine: Engine, work: Path, fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dotenv = {".env": f"TOKEN={SECRET}\n"}  # the project's own (a file tool may not write one)
    (work / ".env").write_text(dotenv[".env"])
    monkeypatch.chdir(work)
    assert _live_prints(tmp_path, "dd if=.env", dotenv)
    _stopped(work_engine, fake_home, "dd if=.env")


ASKED = [
    "openssl base64 -in ~/.aws/credentials",
    "openssl enc -a -in .envrc -out /tmp/x.b64",
    "xargs --arg-file ~/.netrc -n1 echo",
    "wc --files0-from=.env",
    "sed --file=$HOME/.ssh/id_rsa /dev/null",
    "busybox xargs -a ~/.git-credentials echo",
    "sudo -u root xargs -a /root/.ssh/id_ed25519 echo",
    "dd if=/home/me/.aws/credentials status=none",
    "cut -d= -f2 --output-delimiter=, --from=x 2>/dev/null; diff --from-file ~/.pgpass /dev/null",
    # gpg's key-ring folder is its own, but a credential operand or an export still asks
    "gpg --homedir ~/.gnupg --list-packets ~/.ssh/id_rsa",
    "gpg2 --homedir=$HOME/.gnupg --import ~/.ssh/id_ed25519",
    "gpg --homedir ~/.gnupg --armor --export-secret-keys alice",
]

NEAR_MISSES = [
    "ssh -i ~/.ssh/id_ed25519 host uptime",
    "scp -i ~/.ssh/id_rsa dist.tgz host:/srv",
    "rsync -e 'ssh -i ~/.ssh/deploy_key' -a dist/ host:/srv",
    "git -c core.sshCommand='ssh -i ~/.ssh/id_rsa' fetch",
    "kubectl --kubeconfig ~/.kube/config get pods",
    "docker compose --env-file .env up -d",
    "docker run --rm --env-file .env app:latest",
    "node --env-file=.env server.js",
    "xargs -a hosts.txt -n1 echo",
    "diff --from-file=expected.txt out1.txt out2.txt",
    "wc --files0-from=list.bin",
    "tar -czf src.tgz -T filelist.txt",
    "openssl enc -d -aes-256-cbc -in secret.enc -out plain.txt -pass env:PW",
    "openssl req -in request.csr -noout -text",
    "openssl enc -in .env.example",
    "dd if=/dev/zero of=disk.img bs=1M count=16",
    "make PREFIX=/usr/local install",
    # option values naming a credential folder or file the program only uses (never prints)
    "gpg --homedir ~/.gnupg -k",
    "gpg --homedir=$HOME/.gnupg --list-secret-keys --keyid-format long",
    "gpg2 --homedir /home/me/.gnupg --verify release.tar.gz.sig release.tar.gz",
    "docker --tlscacert ~/.docker/ca.pem ps",
    "docker --tlsverify --tlskey=$HOME/.docker/key.pem --tlscert=$HOME/.docker/cert.pem ps -a",
]


@pytest.mark.parametrize("command", ASKED)
def test_more_spellings_are_asked(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "allow", (command, verdict.reason)
