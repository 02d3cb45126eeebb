"""A configuration the session wrote, read by the program it configures (adv27 family 3).

less reads a lesskey file whose `#env` section sets LESSOPEN (a command less runs on the file it
shows) from `--lesskey-src F`, `-k F`, $LESSKEYIN or $LESSKEY; wget reads $WGETRC (output_document,
use_askpass ...); pdb runs the .pdbrc of the folder it runs in as its first commands. A caller
that wrote `#env\\nLESSOPEN=|rm -rf HOME %s` and ran `LESSKEYIN=lk less r.txt` deleted HOME; the
same with `|cat KEY %s` printed the key; `WGETRC=w.rc wget URL` rewrote the policy; a .pdbrc
deleted HOME under `python3 -m pdb x.py`. Each such file the session wrote is now read: a
lesskey or wgetrc (nobody reads it here) asks, a .pdbrc is judged as the python it runs. One the
session did not write (the user's own) is not read, as ssh -F's. curl's -K / $CURL_HOME and
wget's --config / -e are in tests/redteam/test_curl_wget_configs.py. HOME and the working directory
are temporary (the conftest fixtures).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import PY_RM_HOME
from tests.redteam.harm import written_then_allowed, written_then_stopped


def _payloads(home: Path) -> dict[str, tuple[dict[str, str], str]]:
    key = home / ".ssh" / "id_ed25519"
    rm_home = f"#env\nLESSOPEN=|rm -rf {home} %s\n"
    return {
        "less --lesskey-src": (
            {"lk": f"#env\nLESSOPEN=|cat {key} %s\n", "r.txt": "x\n"},
            "less --lesskey-src=lk r.txt",
        ),
        "less --lesskey-src value": ({"k/lk": rm_home, "r.txt": "x\n"}, "less --lesskey-src k/lk r.txt"),
        "less -k": ({"lk": rm_home, "r.txt": "x\n"}, "less -k lk r.txt"),
        "LESSKEYIN": ({"lk": rm_home, "r.txt": "x\n"}, "LESSKEYIN=lk less r.txt"),
        "exported LESSKEYIN": ({"lk": rm_home, "r.txt": "x\n"}, "export LESSKEYIN=$PWD/lk; less -F r.txt"),
        "more": ({"lk": rm_home, "r.txt": "x\n"}, "LESSKEYIN=lk more r.txt"),
        "WGETRC": ({"w.rc": "use_askpass = ./a.sh\n", "a.sh": "rm -rf ~\n"}, "WGETRC=w.rc wget -q http://127.0.0.1:9/"),
        ".pdbrc": (
            {".pdbrc": PY_RM_HOME.replace("\n", "; ", 1), "x.py": "print(1)\n"},
            "python3 -m pdb x.py < /dev/null",
        ),
        ".pdbrc, pdb's !": (
            {".pdbrc": "!import os; os.system('rm -rf ~')\n", "x.py": "print(1)\n"},
            "python3 -m pdb x.py",
        ),
    }


NAMES = list(_payloads(Path("/h")))


@pytest.mark.parametrize("name", NAMES)
def test_a_written_configuration_is_read(session: Engine, fake_home: Path, name: str) -> None:
    files, command = _payloads(fake_home)[name]
    for path, text in files.items():
        assert session.call("write_file", {"path": path, "content": text}, session_id="s1").ok
    result = session.call("terminal", {"command": command}, session_id="s1")
    assert not result.ok, (name, result.output)
    assert (fake_home / ".ssh" / "id_ed25519").is_file() and "secret key" not in (result.output or "")


NEAR_MISSES = {
    "an ordinary lesskey": ({"lk": "#command\n\\e[A back-line\n", "r.txt": "x\n"}, "echo done"),
    "less of a written file": ({"r.txt": "x\n"}, "less -F r.txt"),
    "the user's own lesskey": ({}, "LESSKEYIN=/etc/lesskey less -F /etc/hostname"),
    "pdb without a .pdbrc": ({"x.py": "print(1)\n"}, "python3 -m pdb -c continue x.py < /dev/null"),
}


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_an_ordinary_run_stays_allowed(session: Engine, name: str) -> None:
    files, command = NEAR_MISSES[name]
    written_then_allowed(session, files, command)


def test_the_home_stays(session: Engine, fake_home: Path, tmp_path: Path) -> None:
    """Harm: unguarded, LESSKEYIN with a written lesskey deletes a fake home; through the engine it
    is refused and the home intact."""
    files = {"lk": "#env\nLESSOPEN=|rm -rf ~ %s\n", "r.txt": "x\n"}
    written_then_stopped(tmp_path, session, fake_home, files, "LESSKEYIN=lk less r.txt")
