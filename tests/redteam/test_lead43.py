"""lead43 (stop 43, issue 8): a false alarm that could not be approved.

A command whose name is known only at run time met the disk wipers' flag-only rows by their flags, which are
the commonest letters there are: `$CC -o out x.c`, `$GREP -w x f`, `"$SED" -n p f`, `$TAR -z ...` were the
hardline (wipe_block_device: wipefs -a/-o, sgdisk -Z/-o/-d/-n/-g, sg_format -F, badblocks -w), refused with no
way to approve them, in every build script that names its tools by variable. Those rows now say
`dynamic: false`: such a command is an unknown command (asked, never granted), while what it names still decides
(`$X -a /dev/sda` names a block device: the hardline), and a name the line sets is read (`w=wipefs; $w -a ...`).
"""

from __future__ import annotations

import pytest

from engine import Engine

SCRIPTS = [
    "$CC -o out x.c",
    "${CC:-cc} -c x.c -o x.o",
    "$GREP -w needle notes.txt",
    '"$SED" -n p notes.txt',
    "$TAR -z -c -f out.tgz src",
    "$PYTHON -d script.py",
    "$CXX -g -O2 -o app main.cpp",
    "$FORMATTER --all src",
]

STILL_HARDLINE = [
    "$X -a /dev/sda",
    "$X -o 0 /dev/sdb",
    "$X --zap-all /dev/nvme0n1",
    "$X -w /dev/sdb",
    "w=wipefs; $w -a /dev/sdb",
    "$(echo wipefs) -a /dev/sda",
    "wipefs -a $DEV",
    "sgdisk -Z $D",
    "wipefs -o 0x1fe x.img",
]


@pytest.mark.parametrize("command", SCRIPTS)
def test_a_tool_named_by_a_variable_is_an_unknown_command_not_a_disk_wiper(engine: Engine, command: str) -> None:
    verdict = engine.check(command)
    assert (verdict.decision, verdict.hardline) == ("ask", False), verdict
    assert "unknown_command" in [m.key for m in verdict.matches]
    assert "wipe_block_device" not in [m.key for m in verdict.matches]
    assert not any(m.severity == "hardline" for m in verdict.matches)
    assert not verdict.grantable  # still never granted: it could be any program


@pytest.mark.parametrize("command", STILL_HARDLINE)
def test_a_wiper_or_a_block_device_is_still_the_hardline(engine: Engine, command: str) -> None:
    verdict = engine.check(command)
    assert verdict.decision == "deny" and verdict.hardline, verdict
