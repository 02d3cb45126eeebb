"""Unknown options before a verb do not hide it, however many and wherever they are.

An option the Programs table does not know may take a value (a newer program than the table
describes): the command is also read with each such option and the word after it left out. That
reading stopped at the first word the table's own reading took as an operand, so it took one
pair per round (four rounds): `docker --a x --b y --c z --d w --e v kill app` was allowed, a lone
`-` after an unknown option ended it (`docker --opt val -q - kill app`), and a subcommand's
unknown options were never read so (`docker compose --opt val down`). The words are now walked
once to the first one left that is no option, at every subcommand level. Two payloads are
Hermes Agent's (tests/tools/test_approval_global_flag_scan.py); the rest are our own.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

CHAIN = "--opt val --flag=x -q - "
PAYLOADS = [
    "docker " + CHAIN * 58 + "kill app",  # Hermes Agent's
    "docker compose " + CHAIN * 58 + "down",  # Hermes Agent's
    "docker --xa 1 --xb 2 --xc 3 --xd 4 --xe 5 --xf 6 stop web",
    "podman --x - --y - --z - container kill web",
    "docker compose --new-flag v stop",
    "docker compose -f x.yml --new-flag v --other w restart api",
    "docker --newer v compose --new-flag w down",
    "git --xa 1 --xb 2 --xc 3 --xd 4 --xe 5 push --force origin main",
    "git --newer - clean -fdx",
    "kubectl --new-a 1 --new-b 2 --new-c 3 --new-d 4 --new-e 5 delete namespace prod",
]

NEAR_MISSES = [
    "docker " + CHAIN * 6 + "ps",
    "docker compose --opt val ps",
    "docker compose --opt val logs -f",
    "docker --opt - ps",
    "docker --xa 1 --xb 2 --xc 3 --xd 4 --xe 5 --xf 6 images",
    "git --xa 1 --xb 2 --xc 3 --xd 4 --xe 5 status",
    "docker compose -f x.yml --opt val up -d",
]


@pytest.mark.parametrize("command", PAYLOADS)
def test_the_verb_after_unknown_options_is_judged(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command[:120]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_harmless_verbs_after_unknown_options_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command[:120]
