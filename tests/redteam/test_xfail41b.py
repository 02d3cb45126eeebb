"""xfail41b (stop 41, issue 8): payloads the stop's helpers found still allowed, closed.

1. A SESSION-WRITTEN FILE COPIED UNDER A NAME NOBODY RECORDED, THEN RUN: split/csplit name their pieces from a
   prefix (`split -n 1 x.txt p; sh paa`: the prefix is remembered, a later run of a name it starts in its folder
   runs a written file), `git mv x.txt y` and `cpio -p DIR` copy a written file (recorded with its text; cpio fed
   names known only at run time: any file under DIR), runsvdir DIR runs DIR/NAME/run (a folder run reads the
   files the session wrote in its subfolders), `mispipe 'cat x.txt' sh` (its two command lines are a pipe).
2. systemd-nspawn runs its command as chroot does (`-D / ./x.sh`); a getty whose login program is a shell;
   `gunzip -N`/`gzip -dN` on an input at the home's top or in a dot folder of it (the name the archive stored,
   any name there); `lha xf` (its command letter carries modifiers) at the project's top; `gh auth login
   --with-token` (replaces the user's stored credentials).
3. test_redt37's quiet search leaking a bit a call stays open (see the report: no design found here that keeps
   ordinary repeated greps allowed).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import make_home
from tests.redteam.harm import (
    Case,
    assert_verdict,
    blocked,
    verdict_cases,
    written_then_stopped,
)

SCRIPT = "#!/bin/sh\nrm -rf ~\n"
SAFE = "#!/bin/sh\necho hello\n"

# -- 1. copies under a new name ---------------------------------------------------------------------------------------
COPIED: dict[str, Case] = {
    "split, a prefix": ({"x.txt": SCRIPT}, "split -n 1 x.txt p; sh paa"),
    "split, its default prefix": ({"x.txt": SCRIPT}, "split x.txt; sh xaa"),
    "split, the piece run as ./": ({"x.txt": SCRIPT}, "split -l 100 x.txt part_ && ./part_aa"),
    "split --additional-suffix": ({"x.txt": SCRIPT}, "split --additional-suffix=.sh x.txt p; bash paa.sh"),
    "split in a subfolder": ({"x.txt": SCRIPT}, "split x.txt out/p; sh out/paa"),
    "csplit -f": ({"x.txt": SCRIPT}, "csplit -s x.txt 1 -f p; sh p01"),
    "csplit, its default prefix": ({"x.txt": SCRIPT}, "csplit -s x.txt 2; sh xx00"),
    "git mv": ({"x.txt": SCRIPT}, "git mv x.txt y; sh y"),
    "git mv -f": ({"x.txt": SCRIPT}, "git mv -f x.txt bin/y && bash bin/y"),
    "cpio -p, a here-string": ({"x.txt": SCRIPT}, "cpio -p d <<< x.txt; sh d/x.txt"),
    "cpio -pdm, echo": ({"x.txt": SCRIPT}, "echo x.txt | cpio -pdm d; sh d/x.txt"),
    "cpio -p, find": ({"x.txt": SCRIPT}, "find . -name x.txt | cpio -pdm d; sh d/x.txt"),
    "runsvdir": ({"svc/web/run": SCRIPT}, "runsvdir svc"),
    "runsvdir -P": ({"svc/web/run": SCRIPT}, "runsvdir -P svc log"),
    "runsv, its log service": ({"svc/log/run": SCRIPT}, "runsv svc"),
    "mispipe": ({"x.txt": SCRIPT}, "mispipe 'cat x.txt' sh"),
    "mispipe, bash -s": ({"x.txt": SCRIPT}, "mispipe 'cat x.txt' 'bash -s'"),
}
COPIED_NEAR: dict[str, Case] = {
    "split, its pieces listed": ({"x.txt": SCRIPT}, "split -l 100 x.txt chunk_ && ls chunk_*"),
    "split, a piece counted": ({}, "split -l 100 data.csv chunk_ && wc -l chunk_aa"),
    "split, another script run": ({"x.txt": SCRIPT, "run.sh": SAFE}, "split x.txt p; sh run.sh"),
    "csplit of a log": ({}, "csplit -f sec log.txt '/^==/' '{*}'"),
    "git mv, tests after": ({}, "git mv a.py b.py && python -m pytest"),
    "git mv, a written file": ({"x.txt": SCRIPT}, "git mv x.txt docs/x.txt && git status"),
    "git mv of a safe script": ({"x.sh": SAFE}, "git mv x.sh y.sh && sh y.sh"),
    "cpio -p, a listing after": ({"x.txt": SCRIPT}, "find . | cpio -pdm /tmp/b && ls /tmp/b"),
    "runsvdir of the system": ({"x.sh": SCRIPT}, "runsvdir /etc/service"),
    "runsvdir, a safe service": ({"svc/web/run": SAFE}, "runsvdir svc"),
    "runsvdir, nothing written there": ({"notes.txt": SCRIPT}, "runsvdir svc"),
    "mispipe, tests": ({}, "mispipe 'make test' 'tee log.txt'"),
    "mispipe, a count": ({"x.txt": SCRIPT}, "mispipe 'cat x.txt' 'wc -l'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(COPIED, COPIED_NEAR))
def test_a_written_file_copied_under_a_new_name_then_run_is_read(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.skipif(shutil.which("split") is None, reason="needs coreutils split")
def test_a_split_piece_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"x.txt": SCRIPT}, "split -n 1 x.txt p; sh paa")


@pytest.mark.skipif(shutil.which("cpio") is None, reason="needs cpio")
def test_a_cpio_pass_through_copy_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"x.txt": SCRIPT}, "echo x.txt | cpio -p -d d; sh d/x.txt")


@pytest.mark.skipif(shutil.which("mispipe") is None, reason="needs mispipe (moreutils)")
def test_mispipe_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"x.txt": SCRIPT}, "mispipe 'cat x.txt' sh")


# -- 2. listed as still allowed -------------------------------------------------------------------------------------
LISTED: dict[str, Case] = {
    "systemd-nspawn -D /": ({"x.sh": SCRIPT}, "systemd-nspawn -D / ./x.sh"),
    "systemd-nspawn --directory=/": ({"x.sh": SCRIPT}, "systemd-nspawn -q --directory=/ -- ./x.sh"),
    "systemd-nspawn, a command": ({}, "systemd-nspawn -D / sh -c 'rm -rf ~'"),
    "busybox getty -l /bin/sh": ({}, "busybox getty -n -l /bin/sh 115200 tty1"),
    "agetty --login-program bash": ({}, "agetty --login-program /bin/bash -n tty1"),
    "gunzip -N in the home": ({}, "gunzip -N ~/x.gz"),
    "gzip -dN in the home": ({}, "gzip -dN ~/x.gz"),
    "gzip --decompress --name in a dot folder": ({}, "gzip --decompress --name ~/.config/x.gz"),
    "gunzip -N from the home": ({}, "cd ~ && gunzip -N x.gz"),
    "lha xf at the top": ({}, "lha xf a.lzh"),
    "lha -xqf at the top": ({}, "lha -xqf /tmp/a.lzh"),
    "lha xf in the home": ({}, "cd ~ && lha xf /tmp/a.lzh"),
    "gh auth login --with-token": ({"tok.txt": "ghp_x\n"}, "gh auth login --with-token < tok.txt"),
    "gh auth login, piped": ({}, "echo ghp_x | gh auth login -h github.com --with-token"),
}
LISTED_NEAR: dict[str, Case] = {
    "systemd-nspawn, a shell in a machine": ({}, "systemd-nspawn -D /var/lib/machines/deb /bin/bash"),
    "systemd-nspawn -b": ({}, "systemd-nspawn -b -D /var/lib/machines/deb"),
    "systemd-nspawn, tests in a tree": ({}, "systemd-nspawn -D ./rootfs make test"),
    "getty": ({}, "busybox getty 115200 tty1"),
    "agetty --noclear": ({}, "agetty --noclear tty1"),
    "getty -l login": ({}, "getty -l /bin/login 115200 tty1"),
    "gunzip -N in a subfolder": ({}, "gunzip -N build/x.gz"),
    "gzip -dN in a subfolder": ({}, "gzip -dN src/x.gz"),
    "gunzip in the home": ({}, "gunzip ~/x.gz"),
    "gunzip -Nc": ({}, "gunzip -Nc ~/x.gz > x"),
    "gzip -N compressing": ({}, "gzip -Nk ~/notes.txt"),  # (stop 56: without -k the note is replaced: asks)
    "lha l": ({}, "lha l a.lzh"),
    "lha xf in a subfolder": ({}, "cd build && lha xf ../a.lzh"),
    "lha a": ({}, "lha a out.lzh src"),
    "gh auth status": ({}, "gh auth status"),
    "gh auth setup-git": ({}, "gh auth setup-git"),
    "gh pr list": ({}, "gh pr list"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(LISTED, LISTED_NEAR))
def test_the_listed_payloads_are_not_allowed(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.skipif(shutil.which("gunzip") is None, reason="needs gzip")
def test_gunzip_n_writes_a_homes_startup_file_unguarded_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / ".bashrc").write_text("echo pwned\n")
    subprocess.run(["gzip", "-N", str(kit / ".bashrc")], check=True)  # stores the name .bashrc
    live = make_home(tmp_path / "live")
    shutil.copy(kit / ".bashrc.gz", live / "x.gz")
    payload = "gunzip -Nf ~/x.gz"
    subprocess.run(["bash", "-c", payload], env={"HOME": str(live), "PATH": "/usr/bin:/bin"}, check=False, timeout=30)
    assert (live / ".bashrc").read_text() == "echo pwned\n", "the payload should write ~/.bashrc unguarded"
    engine, home, _ = plain_harm
    shutil.copy(kit / ".bashrc.gz", home / "x.gz")
    try:
        blocked(engine, home, payload)
        assert not (home / ".bashrc").is_file(), "refused: the stored name was not restored"
    finally:
        (home / "x.gz").unlink(missing_ok=True)
