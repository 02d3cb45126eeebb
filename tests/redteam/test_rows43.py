"""rows43 (stop 43, issue 8): payloads the last stop left allowed or open, closed against an adaptive caller.

1. PUBLIC TUNNELS (policies/exec.yaml's public_tunnel, asks): `zrok share public localhost:8080` (and private,
   reserved), chisel's reverse remotes (`chisel client srv R:8080:localhost:22`, `R:socks`) and its local remotes
   bound to every address (chisel's default local host is 0.0.0.0: `3000:google.com:80`), `chisel server` (decided:
   it asks; its clients reach whatever this machine reaches, its own ports included, with no auth by default),
   `pagekite.py 80 me.pagekite.me` (also `python3 pagekite.py ...`), localxpose, tunnelmole, devtunnel host,
   tunnelto, inlets' clients. ngrok, cloudflared and bore already asked (kept as cases).

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
