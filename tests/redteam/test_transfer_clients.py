"""File-transfer clients run local shell commands: a batch or input line `!CMD` (ftp, sftp,
lftp) and lftp's `-c`/`-e` commands (separated by `;`) run CMD in a local shell. They are read
like vim's command lines (`as: ex`); a batch file written on the line is read too. Each payload
was allowed. (No harm test: each client must reach a server before it reads its commands.)
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

HARDLINE = [
    "lftp -c '!rm -rf ~'",
    "lftp -c 'open h; get x; !rm -rf ~'",
    "lftp -e '!rm -rf ~' host",
    "lftp host <<< '!rm -rf ~'",
    "ftp -n evil <<< '!rm -rf ~'",
    "printf 'open h\\n!rm -rf ~\\n' | ftp -n",
    "sftp -b - host <<< '!rm -rf ~'",
    "echo '!rm -rf ~' | sftp host",
    "printf '!rm -rf ~\\n' > b.txt; sftp -b b.txt host",
]

NEAR_MISSES = [
    "lftp -c 'open h; mirror dir'",
    "ftp -n host <<< 'get x'",
    "sftp host <<< 'put x'",
    # (merge of stop 36: `lftp -f script.lftp` and `sftp -b batch host` read a script not read here, which may
    # put the working folder: from a tree that may hold a secret (this repository: past the walk's bound) they
    # ask, redt36's evaluate._script_file)
]


@pytest.mark.parametrize("command", HARDLINE)
def test_a_shell_escape_in_transfer_commands_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_plain_transfers_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
