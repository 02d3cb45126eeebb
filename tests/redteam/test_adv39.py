"""adv39: an adversary against this stop's merged readings (hosts:, wrappers, the undescribed `-c`, git's copies).

1. `hosts:` (holes39) read a program's host operand as no path; an option its grammar did not know was read as a flag,
   so its value became the "host" (`ansible -t ~/.ssh -i authorized_keys, authorized_keys -m ping` writes the host's
   output over ~/.ssh/authorized_keys): only operands before every unknown option are hosts; ansible's real options
   are declared and `-t TREE` is a writer of the files in TREE.
2. The carried wrappers (`mywrap CMD`): a dotted variant of an acting program (`mkfs.ext4`) was not read as it, and
   the disks', boot's and accounts' destroyers were not named (`mywrap mke2fs /dev/sda` was allowed).
3. The undescribed `-c STRING` run (holes39) read only a lone `-c` word: `nsh -xc CMD`, `-cx CMD`, `-c'CMD'` were
   allowed, and a one-word line of shell syntax (`';reboot'`, `'$(reboot)'`, `rm${IFS}-rf${IFS}~`) was no shell line.
   A long-only program's one-letter long option (duckdb's `-c`) was read as undeclared (a false alarm on main).
4. git's copies (debt39's _git_copies): a pathspec glob git matches itself (`git add -f '*'`) and a pathspec file were
   read as naming no secret.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import (
    asks_for_the_tree,
    assert_allowed,
    assert_hardline,
    assert_not_allowed,
    live_then_stopped,
    printing_tree,
)

KEY = "sk-live-adv39-0123456789abcdef"

# -- 1. a host operand found after an option the grammar does not know ---------------------------------------------
HOST_PAYLOADS = [
    "ansible -t ~/.ssh -i authorized_keys, -c local authorized_keys -m ping",
    "ansible --tree ~/.ssh -i authorized_keys, -c local authorized_keys -m ping",
    "ansible -t ~ -i .bashrc, -c local .bashrc -m ping",
    "ansible -t ~/.ssh '*' -m ping",
    "salt --zzz '*' test.ping",  # an unknown option: the '*' may be its value's neighbour, a file
]
HOST_NEAR = [
    "ansible '*' -m ping",
    "ansible '*' -m ping -o",
    "ansible -o '*' -m ping",
    "ansible -t out '*' -m ping",
    "ansible -i inv all -m ping --one-line",
    "salt '*' test.ping",
    "salt -C '*' test.ping",
    "ssh '*' uptime",
]


@pytest.mark.parametrize("command", HOST_PAYLOADS)
def test_a_value_read_as_a_host_is_still_a_path(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)


@pytest.mark.parametrize("command", HOST_NEAR)
def test_a_host_pattern_stays_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


# -- 2. carried wrappers: dotted variants and the disks' destroyers ----------------------------------------------------
CARRIED_HARDLINE = [
    "mywrap mkfs.ext4 /dev/sda",
    "mywrap mkfs.xfs /dev/sda",
    "mywrap mke2fs /dev/sda",
    "mywrap blkdiscard /dev/sda",
    "mywrap sgdisk -Z /dev/sda",
    "mywrap cryptsetup luksFormat /dev/sda",
    "mywrap tee /dev/sda",
    "mywrap kexec -e",
]
CARRIED_ASKED = ["mywrap init 0", "mywrap telinit 0", "mywrap zpool destroy tank", "mywrap srm -r ~"]
CARRIED_NEAR = [
    "cowsay init",
    "mytool tee out.txt",
    "mytool -v tee out.txt",
    "cowsay rm.txt",
    "mywrap mkfs.ext4 disk.img",
]


@pytest.mark.parametrize("command", CARRIED_HARDLINE)
def test_a_wrapped_disk_destroyer_is_hardline(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)


@pytest.mark.parametrize("command", CARRIED_ASKED)
def test_a_bare_wrapped_destroyer_is_not_allowed(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)


@pytest.mark.parametrize("command", CARRIED_NEAR)
def test_a_name_as_data_stays_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


# -- 3. an undescribed program's -c in a cluster, attached, or one word of shell syntax -------------------------------
DASH_C_HARDLINE = [
    "nsh -xc 'rm -rf ~'",
    "nsh -cx 'rm -rf ~'",
    "nsh -ec 'rm -rf ~'",
    "nsh -c'rm -rf ~'",
    "nsh -crm\\ -rf\\ ~",
    "nsh -c ';reboot'",
    "nsh -c '(reboot)'",
    "nsh -c '$(reboot)'",
    "nsh -c '`reboot`'",
    "nsh -c 'rm${IFS}-rf${IFS}~'",
]
DASH_C_NEAR = [
    "mytool -vc config.yml",
    "mytool -c config.yaml",
    "mytool -lsh",
    "mytool -xsh foo",
    "nsh -lc 'echo hi && ls'",
    'gcc -c "$f"',
    "grep -c 'a|b' f",
    "duckdb -c \"select * from read_parquet('data/*.parquet')\"",
]


@pytest.mark.parametrize("command", DASH_C_HARDLINE)
def test_an_unnamed_shells_clustered_or_attached_c_is_hardline(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)


@pytest.mark.parametrize("command", DASH_C_NEAR)
def test_an_ordinary_c_option_stays_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


@pytest.mark.parametrize("spelling", ["-xc 'rm -rf ~'", "-cx 'rm -rf ~'", "-c 'rm${IFS}-rf${IFS}$HOME'"])
def test_an_unnamed_shell_deleting_home_is_refused_live(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], spelling: str
) -> None:
    engine, home, _ = plain_harm
    shell = tmp_path / "bin" / "nsh"  # a shell by a name no table row holds (bash, copied)
    shell.parent.mkdir()
    bash = shutil.which("bash")
    assert bash is not None
    shutil.copy(bash, shell)
    live_then_stopped(tmp_path, engine, home, f"{shell} {spelling}")


# -- 4. git's copies: a pathspec glob git matches itself --------------------------------------------------------------
@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Engine, dict[str, str]]]:
    with printing_tree(tmp_path, monkeypatch, KEY) as made:
        yield made


GIT_COPIED = [
    "git add -f '*' && git diff --cached",
    "git add -f '?env' && git diff --cached",
    "git add --pathspec-from-file=list -f && git diff --cached",
]
GIT_NEAR = ["git add -f 'src/*.py' && git diff --cached", "git add 'src/*.py' && git diff --cached"]


@pytest.mark.parametrize("command", GIT_COPIED)
def test_a_globbed_pathspec_copying_the_secret_asks(tree: tuple[Path, Engine, dict[str, str]], command: str) -> None:
    asks_for_the_tree(tree[1], command)


@pytest.mark.parametrize("command", GIT_NEAR)
def test_a_globbed_pathspec_of_no_secret_stays_allowed(tree: tuple[Path, Engine, dict[str, str]], command: str) -> None:
    assert_allowed(tree[1], command)


# -- open: found and not closed --------------------------------------------------------------------------------------
OPEN = {
    "mywrap nvme format /dev/nvme0": "nvme format (and badblocks -w) erase a disk: no pattern names them",
    "badblocks -w /dev/sda": "badblocks -w overwrites the whole disk: no pattern names it",
    "salt '*' file.remove ~": "salt's execution modules (file.remove, file.rmdir) are not read as commands",
}


@pytest.mark.parametrize("command", list(OPEN))
def test_open_payloads(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)


OPEN_HARDLINE = {
    ". ./e; shutdown now --help": "a sourced file may export POSIXLY_CORRECT (then --help is an operand and it shuts"
    " down): runs_nothing_later asks instead of hardline",
    "export POSIXLY_${X}CORRECT=1; shutdown now --help": "an export of a computed name may be POSIXLY_CORRECT",
}


@pytest.mark.parametrize("command", list(OPEN_HARDLINE))
def test_open_lowered_hardline(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)
