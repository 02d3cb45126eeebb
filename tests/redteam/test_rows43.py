"""rows43 (stop 43, issue 8): payloads the last stop left allowed or open, closed against an adaptive caller.

1. PUBLIC TUNNELS (policies/exec.yaml's public_tunnel, asks): `zrok share public localhost:8080` (and private,
   reserved), chisel's reverse remotes (`chisel client srv R:8080:localhost:22`, `R:socks`) and its local remotes
   bound to every address (chisel's default local host is 0.0.0.0: `3000:google.com:80`), `chisel server` (decided:
   it asks; its clients reach whatever this machine reaches, its own ports included, with no auth by default),
   `pagekite.py 80 me.pagekite.me` (also `python3 pagekite.py ...`), localxpose, tunnelmole, devtunnel host,
   tunnelto, inlets' clients. ngrok, cloudflared and bore already asked (kept as cases).
2. MERCURIAL'S DESTRUCTIVE VERBS (policies/vcs.yaml's hg_discard_work, asks, as git_discard_work does): `hg purge`
   (`--all`, alias `clean`: deletes untracked files), `hg update -C` / `hg up --clean` (discards changes), `hg revert
   --no-backup` (decided: `hg revert --all` keeps `.orig` copies and stays allowed), `hg strip REV`, `debugstrip`,
   `hg rollback`, `hg shelve --cleanup/-d`; the prefixes hg takes for a verb (`hg pur`, `hg upd -C`) and abbreviated
   long options (`hg update --cle`: the verbs' grammars in executors.yaml).

Open, noticed and not fixed: chisel's two-part remote `HOST:PORT` (bound to every address) is not read: it looks the
same as the server's address.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import decision_and_keys
from tests.redteam.harm import Case, assert_verdict, verdict_cases

# -- 1. public tunnels ------------------------------------------------------------------------------------------------
TUNNELS: dict[str, Case] = {
    "zrok share public": ({}, "zrok share public localhost:8080"),
    "zrok share private": ({}, "zrok share private --backend-mode tcpTunnel localhost:22"),
    "zrok share reserved": ({}, "zrok share reserved abc123 --headless"),
    "chisel reverse port": ({}, "chisel client srv R:8080:localhost:22"),
    "chisel reverse, server with a port": ({}, "chisel client --auth u:p https://srv.example:443 R:2222:localhost:22"),
    "chisel reverse socks": ({}, "chisel client srv R:socks"),
    "chisel local on every address": ({}, "chisel client srv 3000:localhost:22"),
    "chisel local on 0.0.0.0": ({}, "chisel client srv 0.0.0.0:2222:localhost:22"),
    "chisel server": ({}, "chisel server --port 8080"),
    "chisel server --reverse": ({}, "chisel server --reverse --port 8080 --socks5"),
    "pagekite.py": ({}, "pagekite.py 80 me.pagekite.me"),
    "python3 pagekite.py": ({}, "python3 pagekite.py 80 me.pagekite.me"),
    "localxpose": ({}, "loclx tunnel http --to localhost:8000"),
    "tunnelmole": ({}, "tmole 8000"),
    "devtunnel host": ({}, "devtunnel host -p 3000 --allow-anonymous"),
    "tunnelto": ({}, "tunnelto --port 8000"),
    "inlets tcp client": ({}, "inlets-pro tcp client --url wss://x.example:8123 --upstream 127.0.0.1 --ports 22"),
    "cloudflared quick tunnel": ({}, "cloudflared tunnel --url http://localhost:8000"),
    "bore": ({}, "bore local 8000 --to bore.pub"),
    "ngrok http": ({}, "ngrok http 80"),
}
TUNNELS_NEAR: dict[str, Case] = {
    "zrok version": ({}, "zrok version"),
    "zrok status": ({}, "zrok status"),
    "zrok access private": ({}, "zrok access private abc123"),
    "zrok share --help": ({}, "zrok share --help"),
    "ngrok version": ({}, "ngrok version"),
    "ngrok help": ({}, "ngrok help"),
    "chisel --version": ({}, "chisel --version"),
    "chisel server --help": ({}, "chisel server --help"),
    "chisel local on loopback": ({}, "chisel client srv 127.0.0.1:5432:db.internal:5432"),
    "chisel socks on loopback": ({}, "chisel client srv socks"),
    "chisel stdio": ({}, "chisel client srv stdio:h:22"),
    "pagekite.py --help": ({}, "pagekite.py --help"),
    "a python script named like it": ({}, "python3 pagekite_test.py 80"),
    "devtunnel list": ({}, "devtunnel list"),
    "tmole --help": ({}, "tmole --help"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(TUNNELS, TUNNELS_NEAR))
def test_a_public_tunnel_asks(plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.parametrize(
    "command", ["zrok share public localhost:8080", "chisel client srv R:8080:localhost:22", "pagekite.py 80 x.pagekite.me"]
)
def test_a_tunnel_asks_as_public_tunnel(plain_project: tuple[Path, Engine], command: str) -> None:
    decision, keys = decision_and_keys(plain_project[1], command)
    assert decision == "ask" and "public_tunnel" in keys, (decision, keys)


# -- 2. Mercurial's destructive verbs ---------------------------------------------------------------------------------
HG: dict[str, Case] = {
    "purge --all": ({}, "hg purge --all"),
    "purge": ({}, "hg purge"),
    "purge, a prefix": ({}, "hg pur --files"),
    "clean (purge's alias)": ({}, "hg clean"),
    "update -C": ({}, "hg update -C"),
    "up --clean": ({}, "hg up --clean"),
    "co -C REV": ({}, "hg co -C 3"),
    "update, an abbreviated option": ({}, "hg update --cle tip"),
    "update, a global option first": ({}, "hg -R repo --cwd . upd -C"),
    "strip": ({}, "hg strip 3"),
    "strip --keep": ({}, "hg strip -r tip --keep"),
    "debugstrip": ({}, "hg debugstrip 5"),
    "rollback": ({}, "hg rollback"),
    "revert --all --no-backup": ({}, "hg revert --all --no-backup"),
    "revert -C": ({}, "hg revert -C x.py"),
    "shelve --cleanup": ({}, "hg shelve --cleanup"),
    "chg purge": ({}, "chg purge --all"),
    "sudo hg update -C": ({}, "sudo hg update -C"),
}
HG_NEAR: dict[str, Case] = {
    "status": ({}, "hg status"),
    "st": ({}, "hg st"),
    "log": ({}, "hg log -l 5"),
    "diff": ({}, "hg diff"),
    "update REV": ({}, "hg update 3"),
    "up tip": ({}, "hg up tip"),
    "checkout a branch": ({}, "hg checkout default"),
    "purge --print": ({}, "hg purge --print"),
    "purge, an abbreviated --print": ({}, "hg purge --pr --all"),
    "revert a file (an .orig copy kept)": ({}, "hg revert x.py"),
    "revert --all (.orig copies kept)": ({}, "hg revert --all"),
    "shelve": ({}, "hg shelve"),
    "shelve --list": ({}, "hg shelve --list"),
    "rollback --dry-run": ({}, "hg rollback --dry-run"),
    "strip --help": ({}, "hg strip --help"),
    "clone": ({}, "hg clone https://x.example/r"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(HG, HG_NEAR))
def test_a_mercurial_verb_discarding_work_asks(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_hg_discard_work_is_what_asks(plain_project: tuple[Path, Engine]) -> None:
    decision, keys = decision_and_keys(plain_project[1], "hg up --clean")
    assert decision == "ask" and keys == ["hg_discard_work"], (decision, keys)
