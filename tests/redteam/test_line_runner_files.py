"""A line runner's FILE operands: `perl -ne 'system $_' cmds.txt` runs each line of cmds.txt as a shell
command (perl -n/-p, `while (<>)`, awk, python's fileinput read their file operands before their
input). Each such operand is judged as `sh FILE` (follow.line_files), as the runner's input is
judged as a shell's (adv26b: a written cmds.txt with `rm -rf ~` deleted HOME, allowed).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import written_then_allowed, written_then_stopped

KEY = "cat ~/.ssh/id_ed25519\n"


PAYLOADS = {
    "perl -ne FILE": ({"cmds.txt": KEY}, "perl -ne 'system $_' cmds.txt"),
    "perl -n -e FILE": ({"cmds.txt": KEY}, "perl -n -e 'system $_' cmds.txt"),
    "perl -pe exec FILE": ({"cmds.txt": KEY}, "perl -pe 'exec $_' cmds.txt"),
    "perl while(<>) FILE": ({"cmds.txt": KEY}, "perl -e 'while(<>){system $_}' cmds.txt"),
    "perl -ne |sh FILE": ({"cmds.txt": KEY}, "perl -ne 'open(P, \"|sh\"); print P $_' cmds.txt"),
    "perl -ne glob": ({"cmds.txt": KEY}, "perl -ne 'system $_' cmd*"),
    "perl -ne rm": ({"cmds.txt": "rm -rf ~\n"}, "perl -ne 'system $_' cmds.txt"),
    "perl -ne second FILE after --": ({"a.txt": "echo hi\n", "c": KEY}, "perl -ne 'system $_' -- a.txt c"),
    "perl script FILE": ({"r.pl": "while (<>) { system $_ }\n", "c.txt": KEY}, "perl r.pl c.txt"),
    "written on the line": ({}, "printf 'cat ~/.ssh/id_ed25519\\n' > c.txt; perl -nle 'system $_' c.txt"),
    "awk -f FILE": ({"p.awk": "{ system($0) }\n", "c.txt": KEY}, "awk -f p.awk c.txt"),
}


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_line_runner_file_operands_stopped(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    files, payload = PAYLOADS[name]
    program = payload.split()[payload.split().index(";") + 1] if ";" in payload.split() else payload.split()[0]
    if shutil.which(program.rstrip(";")) is None:
        pytest.skip(f"{program} is not installed")
    written_then_stopped(tmp_path, session, fake_home, files, payload)


NEAR_MISSES = {
    "harmless lines": ({"cmds.txt": "echo hello\n"}, "perl -ne 'system $_' cmds.txt"),
    "a reader that prints": ({"cmds.txt": "rm -rf ~\n"}, "perl -ne 'print if /rm/' cmds.txt"),
    "a script and its arguments": ({"s.pl": "print qq(@ARGV)\n"}, "perl s.pl a b"),
    "-e with arguments": ({}, "perl -e 'print qq(@ARGV)' rm -rf"),
    "awk printing": ({"d.txt": "a b\n"}, "awk '{print $1}' d.txt"),
    "fileinput printing": (
        {"d.txt": "a b\n"},
        "python3 -c 'import fileinput\nfor l in fileinput.input(): print(l)' d.txt",
    ),
}


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_line_runner_near_misses_allowed(session: Engine, fake_home: Path, name: str) -> None:
    files, command = NEAR_MISSES[name]
    written_then_allowed(session, files, command)
