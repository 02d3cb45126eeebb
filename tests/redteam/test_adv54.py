"""adv54 (issue 8): the adversary of stop 54 -- programs that delete, move away or write over a user's file or
folder through a spelling the tables did not read, with the project where users keep theirs (~/p).

Fixed here (each shown live below: bash, a fake HOME, no engine -- then refused through the terminal tool):

1. Named files packed and deleted: `tar --remove-files -cf /tmp/x.tar ../notes.txt` and `zip -m /tmp/x.zip
   ../notes.txt` moved the user's note into a temp folder (allowed: only the names read on stdin were read as
   deleted; zip's `--move` was, its `-m` was not). Each operand is now read as `rm -r NAME` when the flag is set.
2. `shuf -o FILE` (`--output=FILE`) writes over FILE as `sort -o` does: `shuf -o ../notes.txt a.py` was allowed
   (shuf had no grammar at all). Read as `tee FILE`.
3. `CARGO_TARGET_DIR=.. cargo clean` (or CARGO_BUILD_TARGET_DIR) removes the folder the variable names: it deleted
   the home's key, .bashrc and the project, allowed (`cargo clean --target-dir ..` was caught). Read as `rm -rf DIR`.
   `GOMODCACHE=DIR go clean -modcache` removes DIR whole (`go help clean`; go is not installed here: not live).
4. gcc's `-oFILE` (the value attached): `gcc -o../notes.txt a.c` wrote a program over the note, allowed (gcc's row
   read only `-o FILE`).
5. The rest, each in CHANGELOG.md's "stop 54, adv54" section: go mod vendor -o, go test -c -o=, GOMODCACHE, msgfmt and
   the gettext tools' -o, python -m zipfile/tarfile/json.tool as writers, mv into `$(mktemp -d)`, conda env remove -p,
   cobra's `-o=VALUE` (docker, kubectl, helm, gh, hugo), docker save/export -o, terraform -out=.

Still open: none. (Stop 55 fixed this file's two strict xfails: `split` writing its default output names (xaa)
through a link made on the line (links.LinkFollower._pieces_links), and `docker -H=ssh://h run ...` (a verb's
matchers read the global options' values as docker's grammar reads them, matchers.Shape.outer).)
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import (
    assert_allowed,
    assert_not_allowed,
    blocked,
    home_project_verdicts,
    lost_unguarded_then_blocked,
    needs_tar,
    needs_zip,
    note_lost,
    unguarded_home,
)

CARGO = shutil.which("cargo")
# read before any fixture moves HOME: the toolchain cargo runs lives in the real home
RUSTUP_HOME = os.environ.get("RUSTUP_HOME") or str(Path("~").expanduser() / ".rustup")
CARGO_HOME = os.environ.get("CARGO_HOME") or (str(Path(CARGO).parent.parent) if CARGO else "")
MANIFEST = (
    'printf \'[package]\\nname = "a"\\nversion = "0.1.0"\\n\' > Cargo.toml; mkdir -p src; '
    "echo 'fn main(){}' > src/main.rs; "
)

PAYLOADS = [
    # 1. named files packed into an archive and deleted
    "tar --remove-files -cf /tmp/x.tar ~/notes.txt",
    "tar --remove-files -cf /tmp/x.tar ../notes.txt",
    "tar cf /tmp/x.tar ../notes.txt --remove-files",
    "tar -czf /tmp/x.tgz --remove-files ../.bashrc",
    "zip -m /tmp/x.zip ~/notes.txt",
    "zip -m /tmp/x.zip ../notes.txt",
    "zip -qm /tmp/x.zip ../.bashrc",
    "zip -T -m x.zip ../notes.txt",
    # 2. shuf's output file
    "shuf -o ~/notes.txt a.py",
    "shuf -o../notes.txt a.py",
    "shuf --output=../notes.txt a.py",
    "shuf -n1 -o ~/.bashrc a.py",
    "ln -s ~/notes.txt x; shuf -ox a.py",
    # 3. a build folder named by a variable, cleaned
    "CARGO_TARGET_DIR=.. cargo clean",
    "CARGO_TARGET_DIR=~/Documents cargo clean",
    "CARGO_BUILD_TARGET_DIR=.. cargo clean -p a",
    "GOMODCACHE=.. go clean -modcache",
    "GOMODCACHE=~/Documents go clean -modcache",
    # 4. gcc's attached output
    "gcc -o../notes.txt a.c",
    "cc -o$HOME/.bashrc a.c",
    # 5. go's folders and files: `go mod vendor -o DIR` deletes DIR first, `go test -c -o FILE` writes FILE
    "go mod vendor -o ..",
    "go mod vendor -o=~/Documents",
    "go work vendor -o ~/.ssh",
    "go test -c -o=../notes.txt .",
    "go test -o ~/.bashrc ./...",
    # 6. cobra's (pflag's) `-o=VALUE`, and files written by programs no row read (docs: `docker save --help`,
    # `terraform plan -help`, pflag's README)
    "hugo --cleanDestinationDir -d=..",
    "hugo -d=~/Documents --cleanDestinationDir",
    "docker save -o ../notes.txt img",
    "docker save -o=../notes.txt img",
    "docker image save --output=../notes.txt img",
    "docker export -o ~/.bashrc c",
    "terraform plan -out=../notes.txt",
    "tofu apply -state-out=../.bashrc",
    # 7. python's modules as writers, and a user's file moved into a fresh temp folder
    "python3 -m zipfile -c ../notes.txt a.py",
    "python3 -m zipfile --cr ~/notes.txt a.py",
    "python3 -m tarfile -c ../.bashrc a.py",
    "python3 -m json.tool a.json ../notes.txt",
    "python3 -m json.tool --sort a.json ~/.bashrc",
    "mv ~/notes.txt $(mktemp -d)",
    "mv ../notes.txt `mktemp -d`",
    "d=$(mktemp -d); mv ~/notes.txt $d",
    # 8. a conda environment's folder removed (docs: conda env remove, -p/--prefix)
    "conda env remove -p ..",
    "mamba env remove -yp ~",
    "micromamba env remove --prefix=~/Documents",
]
NEAR_MISSES = [
    "tar -czf /tmp/out.tgz src",
    "tar --remove-files -cf x.tar build",
    "tar -czf out.tgz src --remove-files",
    "tar -xzf a.tgz -C build",
    "zip -m out.zip a.py",
    "zip -r out.zip src",
    "zip -r /tmp/out.zip .",
    "shuf -n5 a.py",
    "shuf -o out.txt a.py",
    "shuf -ren1 a b",
    "cargo clean",
    "CARGO_TARGET_DIR=target cargo clean",
    "CARGO_TARGET_DIR=/tmp/t cargo clean",
    "CARGO_TARGET_DIR=.. cargo build",
    "go clean -modcache",
    "GOMODCACHE=/tmp/m go clean -modcache",
    "GOMODCACHE=~ go clean -cache",
    "gcc -oapp a.c",
    "gcc -O2 -Wall -Wno-unused -fno-omit-frame-pointer -o app a.c",
    "g++ -std=c++17 -Wno-deprecated -fopenmp -pthread main.cpp -o main",
    "gcc -c a.c -o build/a.o",
    "mv a.py /tmp/",
    "mv ~/.cache/x /tmp/",
    "go mod vendor",
    "go mod vendor -o third_party",
    "go mod tidy",
    "go test ./...",
    "go test -c -o bin/x.test .",
    "go test -run TestX -v ./...",
    "hugo -d=public --cleanDestinationDir",
    "hugo --minify",
    "docker save -o img.tar img",
    "docker image save -o /tmp/i.tar img",
    "docker save img > img.tar",
    "docker run -v=./src:/src alpine ls",
    "kubectl get pods -o=yaml",
    "kubectl -n=default get pods",
    "helm -n=x list",
    "terraform plan -out=tfplan",
    "terraform apply tfplan",
    "python3 -m zipfile -c out.zip src",
    "python3 -m zipfile -l a.zip",
    "python3 -m tarfile -e a.tar build",
    "python3 -m json.tool a.json",
    "python3 -m json.tool a.json pretty.json",
    "cat a.json | python3 -m json.tool",
    "mv a.py $(mktemp -d)",
    "d=$(mktemp -d); mv build/x $d",
    "cp ~/notes.txt $(mktemp -d)",
    "conda env remove -n myenv",
    "conda env remove -p ./envs/dev -y",
    "conda env remove -d -p ..",
    "hatch env remove test",
    "poetry env remove python3.11",
]


_verdicts = home_project_verdicts(PAYLOADS, NEAR_MISSES)
test_a_users_file_or_folder_deleted_or_written_over_is_not_allowed = _verdicts[0]
test_near_misses_stay_allowed = _verdicts[1]


@needs_tar
def test_tar_remove_files_loses_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path]
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, "tar --remove-files -cf ../../x.tar ../notes.txt")


@needs_zip
def test_zip_m_loses_the_note_unguarded_and_is_refused(tmp_path: Path, home_project: tuple[Engine, Path, Path]) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, "zip -qm ../../x.zip ../notes.txt")


@pytest.mark.skipif(shutil.which("shuf") is None, reason="shuf is not installed")
@pytest.mark.parametrize("payload", ["shuf -o ../notes.txt a.py", "shuf -o../notes.txt a.py"])
def test_shuf_o_loses_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path], payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload)


@pytest.mark.skipif(CARGO is None or not Path(RUSTUP_HOME).is_dir(), reason="cargo (rustup) is not installed")
def test_cargo_clean_of_a_variables_folder_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path]
) -> None:
    toolchain = f"RUSTUP_HOME={RUSTUP_HOME} CARGO_HOME={CARGO_HOME} "
    home = unguarded_home(tmp_path, f"{MANIFEST}{toolchain}CARGO_TARGET_DIR=.. cargo clean")
    assert not (home / ".ssh" / "id_ed25519").exists() and not (home / "p").exists(), "cargo clean should delete it"
    engine, guarded, _ = home_project
    blocked(engine, guarded, f"{MANIFEST}CARGO_TARGET_DIR=.. cargo clean")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_gcc_attached_output_loses_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path]
) -> None:
    payload = "echo 'int main(void){return 0;}' > m.c; gcc -o../notes.txt m.c"
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


@pytest.mark.parametrize(
    "payload",
    [
        "python3 -m zipfile -c ../notes.txt a.py",
        "python3 -m tarfile -c ../notes.txt a.py",
        "echo '{}' > j.json; python3 -m json.tool j.json ../notes.txt",
        "mv ~/notes.txt $(mktemp -d)",
    ],
)
def test_python_modules_and_mktemp_lose_the_note_unguarded_and_are_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path], payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


GO = shutil.which("go")
GO_MODULE = (
    "export GOPROXY=off GOFLAGS=-mod=mod; printf 'module m\\ngo 1.19\\n' > go.mod; "
    "echo 'package main; func main(){}' > m.go; "
)


@pytest.mark.skipif(GO is None, reason="go is not installed")
@pytest.mark.parametrize(
    "payload",
    [
        f"{GO_MODULE}go mod vendor -o ..",
        f"{GO_MODULE}GOMODCACHE=.. go clean -modcache",
        f"{GO_MODULE}echo 'package main; import \"testing\"; func TestX(t *testing.T){{}}' > m_test.go; "
        "go test -c -o=../notes.txt .",
    ],
)
def test_go_loses_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path], payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


def test_docker_host_with_equals_asks(home_project: tuple[Engine, Path, Path]) -> None:
    """(stop 55: a strict xfail until then) the global option's value as docker's own grammar reads it
    (matchers.Shape.outer), and the near miss: the local socket in the same spelling."""
    assert_not_allowed(home_project[0], "docker -H=ssh://h.example run alpine ls")
    assert_not_allowed(home_project[0], "docker --host=tcp://10.0.0.5:2375 -l=debug run alpine ls")
    assert_allowed(home_project[0], "docker -H=unix:///var/run/docker.sock run alpine ls")


# --- msgfmt (fixed) and split (still open): each loses the note unguarded ---------------------------------------

SPLIT = "ln -s ~/notes.txt xaa; split -l1 a.py"
MSGFMT = 'printf \'msgid "a"\\nmsgstr "b"\\n\' > m.po; msgfmt -o ../notes.txt m.po'


def test_msgfmt_output_over_the_note_is_not_allowed(home_project: tuple[Engine, Path, Path]) -> None:
    assert_not_allowed(home_project[0], MSGFMT)


@pytest.mark.parametrize(("name", "payload"), [("split", SPLIT), ("msgfmt", MSGFMT)])
def test_open_payloads_lose_the_note_unguarded(tmp_path: Path, name: str, payload: str) -> None:
    if shutil.which(name) is None:
        pytest.skip(f"{name} is not installed")
    assert note_lost(unguarded_home(tmp_path, payload))


def test_split_through_a_link_at_its_default_name_is_not_allowed(home_project: tuple[Engine, Path, Path]) -> None:
    assert_not_allowed(home_project[0], SPLIT)
