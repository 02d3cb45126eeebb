"""Program text passed as written: awk's and sed's `$` is theirs, not the shell's.

`sed -n '$p' log.txt` prints the last line and `awk '$1 > 3' data.txt` compares a field: the
quotes keep the shell from expanding anything, and the Programs table runs that operand as
program text, so it is no file "known only when the command runs". The same words unquoted
(the shell expands them), a file operand with a substitution, or a key named outright still ask.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

NEAR_MISSES = [
    "sed -n '$p' log.txt",
    "sed '$d' file.txt",
    "sed -i '$a\\newline' file.txt",
    "gsed -n '$=' file.txt",
    "awk '$3 > 100 {print $1}' data.txt",
    "awk -v n=3 '$1 == n' f",
    "awk -F, '$2 != \"\"' data.csv",
    "gawk '$NF ~ /x/' f",
    "mawk 'length($0) > 72' f",
]

STILL_ASKED = [
    'sed -n "$p" f',  # double quotes: the shell expands `$p`
    "sed -n $p f",
    'awk "$1 > 3" f',
    "awk '$1 > 3' $(cat cfg.txt)",  # the file operand is a substitution
    "cat '$(cat cfg.txt)'",  # cat runs no program text: its operand is a file
    "sed -n '$p' ~/.ssh/id_ed25519",
    "awk '$1' ~/.aws/credentials",
    "awk '{print > \"/home/user/.bashrc\"}' x",
    "X=$(cat cfg.txt); awk '$1' $X",
]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_quoted_program_text_is_not_a_computed_path(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "allow", (command, [m.key for m in verdict.matches])


@pytest.mark.parametrize("command", STILL_ASKED)
def test_expanded_words_and_named_keys_still_ask(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command
