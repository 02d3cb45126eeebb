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
3. MERCURIAL'S STORED ALIASES (adv42b's strict xfail, now passing; engine/policy/hgconfig.py, the hg row's
   `{operand: 0, as: alias, language: hgrc}` run): `[alias] x = !rm -rf $HOME` in ~/.hgrc, then `hg x`, deleted the
   home unread. The files hg reads are read as gitconfig.py reads git's: HGRCPATH (files, folders' *.rc), else
   /etc/mercurial/hgrc(.d), ~/.hgrc, XDG_CONFIG_HOME (absolute) or ~/.config /hg/hgrc, the repository's
   .hg/hgrc (from the folder, `--cwd`, `-R`), `%include`s, continuation lines. hg lets an alias replace its own
   verbs (`[alias] status = !CMD`): every verb is looked up (an alias naming its own verb runs hg's). A file that
   cannot be read for certain (a FIFO, a folder, a line hg refuses) asks and never blocks.
4. SSH CONFIGURATIONS GIVEN WITH -F (rows42's strict xfail, now passing): `ssh -F cfg x@h` with `RemoteForward 8080
   localhost:80` in cfg was allowed. The ssh_config reader (executors.py's ssh_config_forwards) judges RemoteForward,
   LocalForward, DynamicForward and GatewayPorts as ssh's -R/-L/-D/-g on the line (public_tunnel reads those), and
   a -F file (or an Include) the line or the session did not write is now read from the disk too (follow.py's
   _DISK_CONFIGS; not under ~/.ssh/ or /etc/ssh/: the user's and the system's own, as plain `ssh` reads
   ~/.ssh/config unread): its ProxyCommand/LocalCommand and forwards are judged; a FIFO, a folder, a file over 1
   MiB or a name known only at run time (`-F "$X"`) asks; a missing file and `-F none` read nothing.
5. SYSTEM PACKAGES FROM A FILE (policies/system.yaml's local_package_install, asks): `rpm -i x.rpm`, `dpkg -i
   x.deb`, `apt install ./x.deb` were allowed; their maintainer scripts run as root with whatever the file (maybe the
   caller's) holds. The engine does not know whether it runs as root (no policy reads the user): it asks either way
   (without root the command fails). Also rpm -U/-F, dpkg --unpack, dnf/yum/zypper on a file or URL, yum
   localinstall, gdebi, pacman/yay -U, apk add --allow-untrusted or a file, snap --dangerous, pkg add, macOS
   installer -pkg. A repository's package (`apt install nginx`) and the readers (dpkg -l/-I/-c, rpm -qa/-qip,
   apt list/show) stay allowed.

Open, noticed and not fixed: chisel's two-part remote `HOST:PORT` (bound to every address) is not read: it looks the
same as the server's address. ~/.ssh/config (read by ssh without -F) is still not read for forwards (the user's own;
a session writing it already asks).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine import Engine
from engine.policy import hgconfig
from tests.redteam.conftest import decision_and_keys
from tests.redteam.harm import Case, append, assert_verdict, blocked, decision_within, verdict_cases

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
    "command",
    ["zrok share public localhost:8080", "chisel client srv R:8080:localhost:22", "pagekite.py 80 x.pagekite.me"],
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


# -- 3. Mercurial's stored aliases ------------------------------------------------------------------------------------
DELETE_HOME = "[alias]\nx = !rm -rf $HOME\n"


@pytest.mark.parametrize(
    ("where", "command"),
    [
        (".hgrc", "hg x"),
        ("XDG/hg/hgrc", "hg x"),
        (".hgrc", "hg -q --cwd . x"),
        ("REPO/.hg/hgrc", "hg x"),
        ("REPO/.hg/hgrc", "cd sub && hg x"),
        ("OTHER/.hg/hgrc", "hg -R ../other x"),
        ("OTHER/.hg/hgrc", "hg --cwd ../other x"),
    ],
)
def test_a_shell_alias_stored_where_hg_reads_it_is_refused(
    session: Engine, fake_home: Path, work: Path, where: str, command: str
) -> None:
    (work / "sub").mkdir()
    path = where.replace("REPO", str(work)).replace("OTHER", str(work.parent / "other"))
    path = path.replace("XDG", os.environ["XDG_CONFIG_HOME"])
    append(fake_home / path if not path.startswith("/") else Path(path), DELETE_HOME)
    blocked(session, fake_home, command)
    assert session.check("hg log -l 3").decision == "allow"  # (no alias of that name: hg's own verb)


@pytest.mark.parametrize("xdg", [None, "relative", "/elsewhere"])
def test_the_users_files_are_those_hg_reads(xdg: str | None) -> None:
    env = {"HOME": "/h"} if xdg is None else {"HOME": "/h", "XDG_CONFIG_HOME": xdg}
    files = hgconfig.config_files("/nowhere", env.get)
    assert "/h/.hgrc" in files and "/etc/mercurial/hgrc" in files
    assert ("/elsewhere/hg/hgrc" if xdg == "/elsewhere" else "/h/.config/hg/hgrc") in files, files


def test_an_alias_is_judged_with_the_words_after_it(session: Engine, fake_home: Path) -> None:
    append(fake_home / ".hgrc", '[alias]\nwipe = !rm -rf "$@"\nfresh = purge --all\n')
    blocked(session, fake_home, "hg wipe ~")
    assert session.check("hg wipe build").decision != "deny"  # (a folder of the work tree: not the hardline)
    assert session.check("hg fresh").decision == "ask"  # a verb alias: `hg purge --all` (hg_discard_work)


def test_an_alias_replacing_hgs_own_verb_is_read(session: Engine, fake_home: Path) -> None:
    append(fake_home / ".hgrc", "[alias]\nstatus = !rm -rf $HOME\n")
    blocked(session, fake_home, "hg status")


@pytest.mark.parametrize(
    "text",
    [
        "%include more.rc\n",  # relative to the including file's folder
        "%include ~/more.rc\n",
        "%include $HOME/more.rc\n",
        "[alias]\nx = !echo hi\n  rm -rf $HOME\n",  # a continuation line: the value's second line
        "[ui]\nusername = t\n[alias]\n# a comment\nx = !rm -rf $HOME\n",
    ],
)
def test_an_alias_reached_through_an_include_or_a_continued_value_is_read(
    session: Engine, fake_home: Path, text: str
) -> None:
    (fake_home / "more.rc").write_text(DELETE_HOME)
    append(fake_home / ".hgrc", text)
    blocked(session, fake_home, "hg x")


def test_hgrcpath_replaces_the_users_files(
    session: Engine, fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "rc.d").mkdir()
    (tmp_path / "rc.d" / "a.rc").write_text(DELETE_HOME)
    monkeypatch.setenv("HGRCPATH", str(tmp_path / "rc.d"))
    blocked(session, fake_home, "hg x")
    append(fake_home / ".hgrc", "[alias]\ny = !rm -rf $HOME\n")  # (not read with HGRCPATH set, as hg does not)
    assert session.check("hg y").decision == "allow"


def test_an_alias_on_the_line_and_in_the_files_are_both_read(session: Engine, fake_home: Path) -> None:
    append(fake_home / ".hgrc", DELETE_HOME)
    blocked(session, fake_home, "hg --config alias.y='log' x")


@pytest.mark.parametrize(
    "text",
    [
        "[alias]\nx = !rm -rf $HOME\nthis line hg refuses\n",
        "%include folder\n",
    ],
)
def test_a_configuration_hg_would_refuse_or_that_is_unreadable_asks(
    session: Engine, fake_home: Path, text: str
) -> None:
    (fake_home / "folder").mkdir()
    append(fake_home / ".hgrc", text)
    assert decision_within(session, "hg st") == "ask"


def test_a_fifo_as_the_users_hgrc_asks_and_does_not_hang(session: Engine, fake_home: Path) -> None:
    os.mkfifo(fake_home / ".hgrc")
    assert decision_within(session, "hg status") == "ask"
    assert decision_within(session, "git status") == "allow"


HARMLESS_ALIASES = (
    "[alias]\nl = log -l 5\nlog = log --graph\ns = !echo hi\nlatest = log --limit $1\n"
    "[ui]\nusername = t <t@t>\n[extensions]\npurge =\n"
)


@pytest.mark.parametrize("command", ["hg l", "hg log", "hg s", "hg status", "hg latest 3", "hg diff", "hg update 3"])
def test_harmless_stored_aliases_stay_allowed(session: Engine, fake_home: Path, work: Path, command: str) -> None:
    append(fake_home / ".hgrc", HARMLESS_ALIASES)
    append(work / ".hg" / "hgrc", "[paths]\ndefault = https://x.example/r\n")
    assert decision_within(session, command) == "allow"


# -- 4. ssh -F configurations ----------------------------------------------------------------------------------------
SSH: dict[str, Case] = {
    "written RemoteForward": ({"cfg": "Host *\n  RemoteForward 8080 localhost:80\n"}, "ssh -F cfg x@h"),
    "written RemoteForward=": ({"cfg": "Host h\n  remoteforward=2222 localhost:22\n"}, "ssh -F cfg -N h"),
    "written GatewayPorts": ({"cfg": "GatewayPorts yes\nLocalForward 2222 localhost:22\n"}, "ssh -F cfg h"),
    "written LocalForward on every address": ({"cfg": "LocalForward 0.0.0.0:2222 localhost:22\n"}, "ssh -F cfg h"),
    "written DynamicForward on every address": ({"cfg": "DynamicForward *:1080\n"}, "ssh -F cfg h"),
    "written LocalCommand": ({"cfg": "PermitLocalCommand yes\nLocalCommand rm -rf ~\n"}, "ssh -F cfg h"),
    "written ProxyCommand": ({"cfg": "ProxyCommand sh -c 'rm -rf ~'\n"}, "ssh -F cfg h"),
    # (ssh reads a relative Include in ~/.ssh; the engine also where the line runs: a reading more)
    "an Include of a written file": (
        {"a.cfg": "RemoteForward 8080 localhost:80\n", "cfg": "Include a.cfg\n"},
        "ssh -F cfg h",
    ),
    "scp -F": ({"cfg": "RemoteForward 8080 localhost:80\n"}, "scp -F cfg a h:b"),
    "autossh -F": ({"cfg": "RemoteForward 8080 localhost:80\n"}, "autossh -M 0 -F cfg h"),
    "a name known at run time": ({}, 'ssh -F "$CFG" h'),
}
SSH_NEAR: dict[str, Case] = {
    "written User and ProxyJump": ({"cfg": "Host *\n  User bob\n  ProxyJump bastion\n"}, "ssh -F cfg h"),
    "written LocalForward on loopback": ({"cfg": "LocalForward 2222 localhost:22\n"}, "ssh -F cfg h"),
    "written GatewayPorts no": ({"cfg": "GatewayPorts no\nServerAliveInterval 60\n"}, "ssh -F cfg h"),
    "a missing file": ({}, "ssh -F missing.cfg h"),
    "-F none": ({}, "ssh -F none h"),
    "plain ssh": ({}, "ssh -p 2222 x@h uptime"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(SSH, SSH_NEAR))
def test_an_ssh_configuration_forwarding_or_running_a_command_asks(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_a_written_remote_forward_asks_as_public_tunnel(plain_project: tuple[Path, Engine]) -> None:
    root, engine = plain_project
    (root / "rf.cfg").write_text("RemoteForward 8080 localhost:80\n")
    try:
        decision, keys = decision_and_keys(engine, f"ssh -F {root}/rf.cfg h")
    finally:
        (root / "rf.cfg").unlink()
    assert decision == "ask" and "public_tunnel" in keys, (decision, keys)


@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("Host *\n  RemoteForward 8080 localhost:80\n", "ask"),
        ("PermitLocalCommand yes\nLocalCommand touch x\n", "ask"),
        ("Include inc.cfg\n", "ask"),  # (a relative Include: ~/.ssh's for ssh, also the folder's for the engine)
        # ~/.ssh/ and /etc/ssh/ hold the user's and the system's own files (plain `ssh` reads ~/.ssh/config unread)
        ("Include ~/.ssh/fwd.cfg\n", "allow"),
        ("Host *\n  User bob\n  IdentityFile ~/.ssh/id_ed25519\n", "allow"),
    ],
)
def test_a_configuration_on_the_disk_the_session_did_not_write_is_read(
    session: Engine, fake_home: Path, work: Path, text: str, decision: str
) -> None:
    append(fake_home / ".ssh" / "fwd.cfg", "RemoteForward 2222 localhost:22\n")
    (work / "inc.cfg").write_text("RemoteForward 2222 localhost:22\n")
    (work / "cfg").write_text(text)  # (put there by other means than the session's writes: an archive, a clone)
    assert decision_within(session, "ssh -F cfg x@h") == decision
    assert decision_within(session, f"ssh -F {work}/cfg x@h") == decision


@pytest.mark.parametrize("kind", ["fifo", "folder", "large"])
def test_an_ssh_configuration_that_cannot_be_read_asks(session: Engine, work: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(work / "cfg")
    elif kind == "folder":
        (work / "cfg").mkdir()
    else:
        (work / "cfg").write_text("# x\n" * 400_000)  # (over 1 MiB)
    assert decision_within(session, "ssh -F cfg x@h") == "ask"


# -- 5. system packages installed from a file ------------------------------------------------------------------------
PACKAGES: dict[str, Case] = {
    "rpm -i": ({}, "rpm -i x.rpm"),
    "rpm -Uvh": ({}, "sudo rpm -Uvh x.rpm"),
    "rpm -ivh a URL": ({}, "rpm -ivh https://x.example/p.rpm"),
    "dpkg -i": ({}, "dpkg -i x.deb"),
    "dpkg --install, a folder": ({}, "sudo dpkg -R --install debs/"),
    "dpkg --unpack": ({}, "dpkg --unpack x.deb"),
    "apt install ./x.deb": ({}, "apt install ./x.deb"),
    "apt-get -y install /tmp": ({}, "sudo apt-get -y install /tmp/x.deb"),
    "apt reinstall a file": ({}, "apt reinstall ../x.deb"),
    "dnf install ./x.rpm": ({}, "dnf install ./x.rpm"),
    "yum localinstall": ({}, "yum localinstall x.rpm"),
    "zypper in x.rpm": ({}, "zypper in x.rpm"),
    "gdebi": ({}, "gdebi --n x.deb"),
    "pacman -U": ({}, "pacman -U x.pkg.tar.zst"),
    "apk --allow-untrusted": ({}, "apk add --allow-untrusted x.apk"),
    "snap --dangerous": ({}, "snap install --dangerous x.snap"),
    "a written .deb": ({"x.deb": "!<arch>\n"}, "dpkg -i x.deb"),
}
PACKAGES_NEAR: dict[str, Case] = {
    "dpkg -l": ({}, "dpkg -l"),
    "dpkg -L": ({}, "dpkg -L bash"),
    "dpkg -I (info)": ({}, "dpkg -I x.deb"),
    "dpkg -c (contents)": ({}, "dpkg -c x.deb"),
    "rpm -qa": ({}, "rpm -qa"),
    "rpm -qip (info)": ({}, "rpm -qip x.rpm"),
    "rpm -K": ({}, "rpm -K x.rpm"),
    "apt list --installed": ({}, "apt list --installed"),
    "apt show": ({}, "apt show x"),
    "apt install a repository's package": ({}, "sudo apt install -y nginx"),
    "apt install a versioned name": ({}, "apt install python3.11"),
    "dnf install": ({}, "dnf install httpd"),
    "pacman -Syu": ({}, "pacman -Syu"),
    "apk add": ({}, "apk add curl"),
    "snap --classic": ({}, "snap install code --classic"),
    "apt-get update": ({}, "apt-get update"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PACKAGES, PACKAGES_NEAR))
def test_a_system_package_installed_from_a_file_asks(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_local_package_install_is_what_asks(plain_project: tuple[Path, Engine]) -> None:
    for command in ["rpm -i x.rpm", "apt install ./x.deb"]:
        decision, keys = decision_and_keys(plain_project[1], command)
        assert decision == "ask" and keys == ["local_package_install"], (command, decision, keys)
