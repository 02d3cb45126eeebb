"""File tools judged where they land, with no window between the check and the use.

Each test runs in a temporary HOME holding a private key, with a work tree beside it; the
harm is what is asserted: nothing lands in ~/.ssh, no key is printed, no call hangs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material-0123456789\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY)
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def work(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def engine(work: Path, tmp_path: Path) -> Iterator[Engine]:
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    engine.set_approval_callback(lambda request: "once")  # a human saying yes does not widen the roots
    yield engine
    engine.close()


def error(engine: Engine, tool: str, **args: object) -> str:
    result = engine.call(tool, args)
    assert not result.ok and result.error is not None, result.output
    assert result.error.type != "handler_error", result.error.message
    return result.error.message


_SWAPPER = """
import ctypes, os, sys
work, ssh = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
os.symlink(ssh, work + "/d.link")
swaps = 0
while not os.path.exists(work + "/stop"):
    # d and d.link trade places atomically: d is a directory, then a link to ~/.ssh, and so on.
    if libc.renameat2(AT_FDCWD, b"d", AT_FDCWD, b"d.link", RENAME_EXCHANGE) == 0:
        swaps += 1
print(swaps)
"""


def test_a_directory_swapped_for_a_link_during_writes_never_lands_in_ssh(
    engine: Engine, work: Path, home: Path
) -> None:
    target = home / ".ssh" / "authorized_keys"
    (work / "d").mkdir()
    # Another process (as a terminal command left in the background would) swaps d for a link
    # to ~/.ssh and back as fast as it can, on the other core.
    swapper = subprocess.Popen(
        [sys.executable, "-c", _SWAPPER, str(work), str(home / ".ssh")], cwd=work, stdout=subprocess.PIPE, text=True
    )
    try:
        for i in range(200):
            if i % 4:
                engine.call("write_file", {"path": "d/authorized_keys", "content": "ssh-ed25519 AAAA attacker\n"})
            else:
                engine.call("patch", {"path": "d/authorized_keys", "old_string": "AAAA", "new_string": "BBBB"})
            assert not target.exists()
    finally:
        (work / "stop").touch()
        out, _ = swapper.communicate(timeout=30)
    assert int(out) > 20  # the race was live
    assert not target.exists()
    assert sorted(p.name for p in (home / ".ssh").iterdir()) == ["id_rsa"]


def test_a_link_planted_after_the_check_is_caught_by_the_descriptor_walk(
    engine: Engine, work: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deterministic form of the race: the swap happens after resolve(), before the open."""
    (work / "d").mkdir()
    assert engine.call("list_dir", {"path": "."}).ok
    files = sys.modules["engine._pack_handlers.files"]  # the builtin pack's handler module
    resolved = files.resolve

    def resolve_then_swap(ctx: object, raw: str, **kw: bool) -> Path:
        real = resolved(ctx, raw, **kw)  # type: ignore[arg-type]
        shutil.rmtree(work / "d")
        (work / "d").symlink_to(home / ".ssh")
        return real

    monkeypatch.setattr(files, "resolve", resolve_then_swap)
    message = error(engine, "write_file", path="d/authorized_keys", content="ssh-ed25519 AAAA attacker\n")
    assert "changed while it was being opened" in message
    assert not (home / ".ssh" / "authorized_keys").exists()
    (work / "d").unlink()
    (work / "d").mkdir()
    (work / "d" / "id_rsa").write_text("not the key\n")
    message = error(engine, "read_file", path="d/id_rsa")
    assert "changed while it was being opened" in message


def test_fifos_sockets_and_devices_are_refused_without_hanging(engine: Engine, work: Path) -> None:
    os.mkfifo(work / "pipe")
    assert "FIFO" in error(engine, "read_file", path="pipe")
    assert "FIFO" in error(engine, "write_file", path="pipe", content="x")
    assert "FIFO" in error(engine, "patch", path="pipe", old_string="a", new_string="b")
    (work / "f.txt").write_text("needle\n")
    assert "pipe  (a FIFO (named pipe))" in engine.call("list_dir", {"path": "."}).output
    assert engine.call("search_files", {"pattern": "needle"}).output == "f.txt:1:needle"


@pytest.mark.parametrize("ripgrep", [True, False], ids=["ripgrep", "python"])
def test_search_never_follows_a_link_out_of_the_roots_nor_hangs_on_a_fifo(
    engine: Engine, work: Path, home: Path, monkeypatch: pytest.MonkeyPatch, ripgrep: bool
) -> None:
    if ripgrep and shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed")
    if not ripgrep:
        monkeypatch.setattr(shutil, "which", lambda name: None)
    (work / "leak_key").symlink_to(home / ".ssh" / "id_rsa")
    (work / "homedir").symlink_to(home)
    (work / "sub").mkdir()
    (work / "sub" / "inner").symlink_to(work / "notes.txt")
    (work / "notes.txt").write_text("PRIVATE notes\n")
    (work / "server.pem").write_text(KEY)
    os.mkfifo(work / "pipe")
    out = engine.call("search_files", {"pattern": "PRIVATE|secret-key"})
    assert out.ok, out.output
    assert "secret-key-material" not in out.output and "leak_key" not in out.output
    assert "notes.txt:1:PRIVATE notes" in out.output
    assert "not searched: server.pem" in out.output  # a secret is skipped and said so
    files = engine.call("search_files", {"pattern": "id_rsa", "mode": "files"})
    assert "homedir" not in files.output


def test_list_dir_shows_links_without_following_them(engine: Engine, work: Path, home: Path) -> None:
    (work / "homedir").symlink_to(home)
    listing = engine.call("list_dir", {"path": ".", "hidden": True}).output
    assert f"homedir -> {home}" in listing and "id_rsa" not in listing
    assert "outside the working directory" in error(engine, "list_dir", path="homedir/.ssh")


def test_an_unknown_user_in_a_path_is_a_clear_error(engine: Engine) -> None:
    for tool, args in (
        ("read_file", {"path": "~nosuchuser-hermes/x"}),
        ("write_file", {"path": "~nosuchuser-hermes/x", "content": "x"}),
        ("list_dir", {"path": "~nosuchuser-hermes"}),
    ):
        message = error(engine, tool, **args)
        assert "nosuchuser-hermes" in message, (tool, message)


def test_a_write_killed_mid_way_leaves_no_temp_file_after_the_next_write(
    engine: Engine, work: Path, tmp_path: Path
) -> None:
    # What a writer killed with SIGKILL leaves: its temp file and its journal record.
    dead = 2**22 + 12345  # above any pid_max default: no such process
    left = work / f".a.txt.hermes-{dead}-abcdef.tmp"
    left.write_bytes(b"x" * 1000)
    other = work / "sub" / f".b.txt.hermes-{dead}-123456.tmp"
    other.parent.mkdir()
    other.write_bytes(b"y" * 1000)
    journal = tmp_path / "state" / "tmp-writes"
    journal.mkdir(parents=True)
    (journal / f"{dead}-123456").write_text(str(other))
    assert engine.call("write_file", {"path": "a.txt", "content": "fine\n"}).ok
    assert not left.exists() and not other.exists()
    assert sorted(p.name for p in work.rglob("*")) == ["a.txt", "sub"]
    assert list(journal.iterdir()) == []


def test_the_engine_state_is_out_of_reach_of_the_file_tools_even_inside_their_roots(work: Path, tmp_path: Path) -> None:
    engine = Engine.load(
        REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state"), "files": {"roots": [str(tmp_path)]}}
    )
    engine.set_approval_callback(lambda request: "once")
    engine.call("terminal", {"command": "git push -f origin main"})  # something audited
    state = engine.state_dir
    log = (state / "audit.jsonl").read_bytes()
    for tool, args in (
        ("read_file", {"path": str(state / "audit.jsonl")}),
        ("list_dir", {"path": str(state)}),
        ("search_files", {"pattern": "git", "path": str(state)}),
        ("write_file", {"path": str(state / "audit.jsonl"), "content": ""}),
    ):
        message = error(engine, tool, **args)
        assert "hardline" in message, (tool, message)
    assert (state / "audit.jsonl").read_bytes().startswith(log)
    engine.close()
