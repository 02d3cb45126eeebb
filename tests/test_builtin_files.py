"""The builtin file tools, called through the engine."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    return root


@pytest.fixture
def engine(work: Path, tmp_path: Path) -> Engine:
    return Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})


def ok(engine: Engine, tool: str, **args: object) -> str:
    result = engine.call(tool, args)
    assert result.ok, result.output
    return result.output


def fails(engine: Engine, tool: str, **args: object) -> str:
    result = engine.call(tool, args)
    assert not result.ok and result.error is not None, result.output
    return result.error.message


def test_read_file_numbers_lines_and_reads_a_range(engine: Engine, work: Path) -> None:
    (work / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    assert ok(engine, "read_file", path="a.txt", offset=3, limit=2) == (
        "     3|line 3\n     4|line 4\n[lines 3-4 of 10; call again with offset=5 for more]"
    )
    assert ok(engine, "read_file", path="a.txt").splitlines()[-1] == "    10|line 10"


def test_read_file_refuses_binary_and_directories_and_missing_files(engine: Engine, work: Path) -> None:
    (work / "b.bin").write_bytes(b"\x7fELF\x00\x01\x02" * 100)
    (work / "d").mkdir()
    assert "binary" in fails(engine, "read_file", path="b.bin")
    assert "directory" in fails(engine, "read_file", path="d")
    assert "no such file" in fails(engine, "read_file", path="nope.txt")
    (work / "short.txt").write_text("one\n")
    assert "past the end" in fails(engine, "read_file", path="short.txt", offset=5)


def test_read_file_caps_very_long_lines(engine: Engine, work: Path) -> None:
    (work / "long.txt").write_text("y" * 10_000 + "\n")
    assert ok(engine, "read_file", path="long.txt").endswith("…[+8000 chars]")


def test_read_file_accepts_the_legacy_file_path_argument(engine: Engine, work: Path) -> None:
    (work / "a.txt").write_text("x\n")
    assert ok(engine, "read_file", file_path="a.txt") == "     1|x"


def test_write_file_creates_parents_and_replaces_atomically(engine: Engine, work: Path) -> None:
    assert ok(engine, "write_file", path="deep/dir/f.txt", content="one\n").startswith("created deep/dir/f.txt")
    assert ok(engine, "write_file", path="deep/dir/f.txt", content="two\n").startswith("replaced")
    assert (work / "deep/dir/f.txt").read_text() == "two\n"
    assert [p.name for p in (work / "deep/dir").iterdir()] == ["f.txt"]  # no temp files left behind


def test_a_failed_write_leaves_the_old_file_whole(engine: Engine, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = work / "keep.txt"
    target.write_text("original\n")

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    message = fails(engine, "write_file", path="keep.txt", content="new content that never lands\n")
    assert "No space left" in message
    assert target.read_text() == "original\n"
    assert [p.name for p in work.iterdir()] == ["keep.txt"]


def test_write_preserves_the_file_mode(engine: Engine, work: Path) -> None:
    script = work / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    ok(engine, "write_file", path="run.sh", content="#!/bin/sh\necho hi\n")
    assert script.stat().st_mode & 0o777 == 0o755


def test_patch_replaces_a_unique_string_and_shows_the_diff(engine: Engine, work: Path) -> None:
    (work / "c.py").write_text("a = 1\nb = 2\n")
    diff = ok(engine, "patch", path="c.py", old_string="b = 2", new_string="b = 3")
    assert "-b = 2" in diff and "+b = 3" in diff
    assert (work / "c.py").read_text() == "a = 1\nb = 3\n"


def test_patch_refuses_ambiguous_or_missing_strings(engine: Engine, work: Path) -> None:
    (work / "c.py").write_text("x\nx\n")
    assert "occurs 2 times" in fails(engine, "patch", path="c.py", old_string="x", new_string="y")
    assert "not found" in fails(engine, "patch", path="c.py", old_string="z", new_string="y")
    ok(engine, "patch", path="c.py", old_string="x", new_string="y", replace_all=True)
    assert (work / "c.py").read_text() == "y\ny\n"


def test_patch_applies_a_unified_diff_and_rejects_one_that_does_not_fit(engine: Engine, work: Path) -> None:
    (work / "m.txt").write_text("alpha\nbeta\ngamma\ndelta\n")
    diff = "--- a/m.txt\n+++ b/m.txt\n@@ -2,2 +2,3 @@\n beta\n-gamma\n+GAMMA\n+gamma2\n"
    ok(engine, "patch", path="m.txt", diff=diff)
    assert (work / "m.txt").read_text() == "alpha\nbeta\nGAMMA\ngamma2\ndelta\n"
    stale = "@@ -1,1 +1,1 @@\n-omega\n+OMEGA\n"
    assert "does not apply" in fails(engine, "patch", path="m.txt", diff=stale)
    assert (work / "m.txt").read_text() == "alpha\nbeta\nGAMMA\ngamma2\ndelta\n"


def test_search_files_by_content_and_by_name(engine: Engine, work: Path) -> None:
    (work / "src").mkdir()
    (work / "src/one.py").write_text("def alpha():\n    pass\n")
    (work / "src/two.txt").write_text("nothing here\nALPHA upper\n")
    (work / "node_modules").mkdir()
    (work / "node_modules/skip.py").write_text("def alpha(): pass\n")
    assert ok(engine, "search_files", pattern=r"def \w+") == "src/one.py:1:def alpha():"
    hits = ok(engine, "search_files", pattern="alpha", ignore_case=True, include="*.txt")
    assert hits == "src/two.txt:2:ALPHA upper"
    assert ok(engine, "search_files", pattern="*.py", mode="files") == "src/one.py"
    assert "invalid regular expression" in fails(engine, "search_files", pattern="(unclosed")
    assert ok(engine, "search_files", pattern="zzz").startswith("no matches")


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
def test_search_files_uses_ripgrep_when_present(engine: Engine, work: Path) -> None:
    (work / "f.py").write_text("needle\n")
    assert ok(engine, "search_files", pattern="needle") == "f.py:1:needle"


def test_search_files_python_path_when_ripgrep_is_absent(
    engine: Engine, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    (work / "f.py").write_text("a\nneedle\n")
    assert ok(engine, "search_files", pattern="needle") == "f.py:2:needle"


def test_list_dir_shows_directories_first_and_hides_dotfiles(engine: Engine, work: Path) -> None:
    (work / "z.txt").write_text("12345")
    (work / "adir").mkdir()
    (work / ".hidden").write_text("")
    listing = ok(engine, "list_dir").splitlines()
    assert listing[1:] == ["adir/", "z.txt  (5 bytes)"]
    assert ".hidden" in ok(engine, "list_dir", hidden=True)


def test_traversal_outside_the_working_directory_is_refused(engine: Engine, work: Path) -> None:
    (work.parent / "secret.txt").write_text("s")
    assert "outside the working directory" in fails(engine, "read_file", path="../secret.txt")
    assert "outside the working directory" in fails(engine, "read_file", path=str(work.parent / "secret.txt"))
    assert "outside the working directory" in fails(engine, "write_file", path="../x.txt", content="x")


def test_symlink_escapes_are_refused(engine: Engine, work: Path) -> None:
    outside = work.parent / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("private")
    (work / "link").symlink_to(outside)
    assert "outside the working directory" in fails(engine, "read_file", path="link/f.txt")
    assert "outside the working directory" in fails(engine, "write_file", path="link/new.txt", content="x")
    assert not (outside / "new.txt").exists()


def test_writes_to_credential_locations_are_refused(
    tmp_path: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    engine = Engine.load(
        REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state"), "files": {"roots": [str(home)]}}
    )
    for path in (str(home / ".ssh/authorized_keys"), str(home / ".aws/credentials"), ".env", "config/.env.local"):
        assert "credential" in fails(engine, "write_file", path=path, content="x"), path
    assert not (home / ".ssh/authorized_keys").exists()
    ok(engine, "write_file", path=str(home / "notes.txt"), content="fine")


def test_safe_root_restricts_every_write(tmp_path: Path, work: Path) -> None:
    (work / "out").mkdir()
    engine = Engine.load(
        REPO,
        config={"workdir": str(work), "state_dir": str(tmp_path / "state"), "files": {"safe_root": str(work / "out")}},
    )
    assert "restricted" in fails(engine, "write_file", path="top.txt", content="x")
    ok(engine, "write_file", path="out/ok.txt", content="x")
