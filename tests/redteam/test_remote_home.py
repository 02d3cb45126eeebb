"""Copies to another host's start-up and credential files.

`scp k.pub host:.ssh/authorized_keys` plants a login on that host, `rsync x host:~/.bashrc` code
it runs at the next login: a remote path is relative to the remote home, and so is the working
directory of a command ssh runs there (`ssh host "echo x >> .bashrc"`). Each was allowed.
(No harm test: it needs a second host.)
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

PAYLOADS = [
    "scp x host:.bashrc",
    "scp x host:~/.ssh/authorized_keys",
    "rsync x host:~/.ssh/",
    "rsync -a key.pub host:.ssh/authorized_keys",
    "scp -r dir user@10.0.0.1:/root/.ssh/",
    "rsync -a dotfiles/ host:~/.config/autostart/",
    "scp x.service host:.config/systemd/user/",
    'ssh host "echo x >> .bashrc"',
    "ssh host 'cat >> .ssh/authorized_keys' < k.pub",
    "ssh host 'cd .ssh && echo k >> authorized_keys'",
    "ssh -p 2222 user@host 'printf x > .profile'",
    "ssh host tee -a .bashrc <<< x",
]

NEAR_MISSES = [
    "scp file.txt host:/tmp/",
    "scp host:report.pdf .",
    "rsync -av src/ host:backup/",
    "scp file.txt user@host:",
    "rsync -av dist/ host:/var/www/.well-known/",
    'ssh host "ls -la"',
    "ssh host uptime",
    'ssh host "echo hi > notes.txt"',
    'ssh host "cd /srv/app && git pull"',
    'ssh host "tail -f logs/app.log"',
]


@pytest.mark.parametrize("command", PAYLOADS)
def test_a_remote_start_up_or_credential_file_is_not_written_unasked(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_remote_copies_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
