"""unseen49 (stop 49, issue 8): three more projects' command-safety expectations replayed through Engine.check.

Sources (read as data, not copied: each command, its label and where it comes from are in tests/data/unseen49/,
one case a line, with the source repository, commit and path; tests/data/unseen49/README.md says how each was read):

- continuedev/continue@d0a3c0b, packages/terminal-security/test/terminalCommandSecurity.test.ts (continue.jsonl,
  213 cases): evaluateTerminalCommandSecurity's expected results (run unasked -> allow; needs permission or
  disabled -> flag).
- microsoft/vscode@010f573, chatAgentTools' runInTerminalTool.test.ts, suite "default auto-approve rules"
  (vscode.jsonl, 113 cases): the commands its shipped defaults auto-approve (allow) and those needing confirmation.
- block/goose@013e6d1, crates/goose/src/security/patterns.rs (130 cases: a threat pattern matches -> flag, must stay
  silent -> allow) and block-open-source/goose@0b0ebd7, tests/utils/test_check_shell_command.py (13 more)
  (goose.jsonl, 143 cases).

Scored with harm.holds_expectation through harm.replay_cases: "allow" must be allowed, "flag" not allowed. A case the
engine disagrees with, judged on its merits, carries `accepted`: the verdict the engine keeps and why.

Misses before / after (469 expectations):
- continue: 88 of its flagged commands allowed -> 0 unexplained, all 88 accepted (package installs from their
  registries, scripts the session never wrote, sudo around harmless commands, /etc/passwd sent or looked up, Windows
  and PowerShell words, escapes that decode to `rm -rf` with no operand, newline-separated ordinary lines). Its safe
  commands the engine flags: 0.
- vscode: 50 of its confirmation-required commands allowed, all accepted (changes inside the working directory, a
  pid killed, pages fetched to the screen, PowerShell words, variables for one command); `tree -o output.txt` among
  them led to fix 1 (the same option naming a start-up file). Its auto-approved commands the engine flags: 0.
- goose: 10 of its flagged commands allowed, all accepted (password crackers on local files and login attempts on
  another host, `\\u0041...` which runs no program, a push without force). Its safe commands the engine flags:
  31 -> 26: 5 fixed (fix 2), 26 accepted (recursive deletes outside the working directory ask, device names like
  /dev/sdaa are disks, mke2fs's -n / -V dry runs now ask instead of the hardline, rm naming ~ asks).

Fixed here:
1. tree's -o FILE (policies/writers.yaml tree; the grammar flag `apart`, engine/policy/argv._apart_options): tree
   writes its listing to FILE, and reads a short option's value from the word after the option word, never the
   rest of it (checked with tree 2.1: `tree -oa out d` writes `out`). `tree -o ~/.bashrc`, `tree -oa ~/.profile d`
   were allowed; they ask (write_sensitive_file), `tree -o policies/x.yaml` is the hardline. Harm, live below: with
   -N a file name holding a newline and a command becomes a line of ~/.bashrc that bash runs.
2. mke2fs read by its grammar (policies/executors.yaml mke2fs): an option's value is no device, so `mkfs.ext4 -F
   -L /dev/sda /tmp/image` (an image file labelled "/dev/sda": goose's safe cases) was the hardline and is allowed;
   `-n` (show what it would do) and `-V` exit before writing (runs_nothing): `mke2fs -n /dev/sdb1` (listing a disk's
   backup superblocks) was the hardline and asks. `mkfs.ext4 -L -n /dev/sda1` (a label "-n") stays the hardline.
3. A running process's memory read through a debugger or tracer attached to it (policies/secrets.yaml
   credential_read; found judging goose's memory_dump / process_injection family): `gcore PID`, `gdb -p PID`,
   `gdb PROG PID`, `-ex 'attach PID'`, `lldb -p/-n`, `strace -p`, `ltrace -p` were allowed, while `cat
   /proc/PID/mem` asked. They ask; a program the debugger starts itself (`gdb ./a.out`, `strace ./app`, `gdb
   --args ./prog 1234`) stays allowed. Harm, live below: gcore writes a running process's secret to a file.
   env45's and env46's near miss `lldb -p PID` asks now: their near misses read a core file instead.
Also: harm.replay_cases takes the fixture a case is judged in (`scorer_for`), and test_unseen48 uses it with the
shared conftest.fresh_project (review note from stop 48); unseen46's shellfirm case `mkfs.ext4 -n /dev/sda1` is now
accepted as ask (was the hardline).

Open: nothing from these sources (no strict xfail). Noticed, not fixed: `nsenter -t 1 -m -u -i -n -p sh` and
`chroot / sh` are allowed (root only; from a privileged container, nsenter into PID 1's namespaces is an escape to
the host), and `tree -R -H . -L 1 DIR` writes 00Tree.html files into the folders it lists.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from engine.policy.argv import Grammar, parse_argv, parse_getopt
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    accepted_by_source,
    allowed_payloads,
    assert_cases_accounted,
    assert_hardline,
    find_dot_where,
    flagged_near_misses,
    harm_project,
    replay_cases,
    replay_data,
    run_confined,
    said,
    wanted_verdict,
)

FILES = ("continue.jsonl", "vscode.jsonl", "goose.jsonl")
CASES: list[dict[str, Any]] = replay_data("unseen49", FILES)
SOURCES = {
    "continuedev/continue@d0a3c0b",
    "microsoft/vscode@010f573",
    "block/goose@013e6d1",
    "block-open-source/goose@0b0ebd7",
}


test_replayed_expectation_holds = replay_cases(
    CASES, lambda i, case: f"{i}-{case['source'][:8]}-{wanted_verdict(case)}-{case['command'][:40]!r}", find_dot_where
)


def test_every_case_names_its_source_and_every_disagreement_its_reason() -> None:
    assert_cases_accounted(CASES, SOURCES, 469, lambda case: (case["path"], case["command"]), ("allow", "flag"))


def test_the_fixed_cases_are_the_ones_counted() -> None:
    fixed = [case["command"] for case in CASES if case.get("fixed")]
    assert fixed == [
        "mkfs.ext4 -L '/dev/sda not-a-target'",
        "mkfs.ext4 -F -L /dev/sda /tmp/image",
        "mkfs.ext4 -F -L '/dev/sda' /tmp/image",
        'mkfs.ext4 -F -L "/dev/sda" /tmp/image',
        "mkfs.ext4 /tmp/image -L /dev/sda",
    ]
    by_source = accepted_by_source(CASES)
    # (flagged there and allowed here, safe there and flagged here); block-open-source's git push is goose's 10th
    assert by_source == {
        "continuedev/": (88, 0),
        "microsoft/vs": (50, 0),
        "block/goose@": (9, 26),
        "block-open-s": (1, 0),
    }


# -- the families closed here, in our own spellings, with near misses ---------------------------------------
TREE_OUTPUT = (
    [
        "tree -o ~/.bashrc",
        "tree -oa ~/.profile d",
        "tree -aNo ~/.zshrc .",
        "tree -LNo 2 ~/.bash_profile .",
        "tree -J -o ~/.ssh/authorized_keys",
        "tree -o /etc/cron.d/job",
        "tree -H . -o ~/.config/autostart/x.desktop",
    ],
    [
        "tree",
        "tree -L 2 src",
        "tree -a -I node_modules",
        "tree -o tree.txt",
        "tree -J -o build/tree.json .",
        "tree -oa docs/tree.txt src",
        "tree --charset ascii -L 3",
        "tree -P '*.py' --prune",
    ],
)

MKE2FS = (
    # payloads that stay the hardline: a device, whatever the options around it
    [
        "mkfs.ext4 /dev/sda1",
        "mkfs.ext4 -L -n /dev/sda1",
        "mkfs.ext4 -F -L /tmp/image /dev/sdb",
        "mke2fs -t ext4 -j /dev/nvme0n1p3",
        "mkfs.ext4 -E nodiscard -L /dev/sda /dev/sdb",
    ],
    # a dry run or the version of a disk's format: asks (was the hardline)
    ["mkfs.ext4 -n /dev/sda1", "mke2fs -Fn /dev/sdb", "mkfs.ext4 /dev/sda1 -n", "mkfs.ext4 -V /dev/sda1"],
    # near misses: an image file, whatever its label says
    [
        "mkfs.ext4 -F -L /dev/sda /tmp/image",
        "mkfs.ext4 /tmp/image -L /dev/sda",
        "mkfs.ext4 -F -L '/dev/sda' disk.img",
        "mkfs.ext4 -q -F -d rootfs disk.img",
        "mke2fs -F -L /dev/sdb -t ext4 build/fs.img",
    ],
)

PROCESS_MEMORY = (
    [
        "gcore 1234",
        "gcore -o /tmp/c $(pgrep -n ssh-agent)",
        "gdb -p 1234 -batch -ex 'dump memory m 0x1000 0x2000'",
        "gdb --pid $(pgrep gpg-agent) -batch -ex gcore",
        "gdb -q ./server 4321",
        "gdb -batch -ex 'attach 99' -ex generate-core-file",
        "lldb -p 77 --batch -o 'process save-core x'",
        "lldb --attach-name ssh-agent",
        "strace -p 1 -e trace=read -s 4096",
        "strace -fp $(pgrep sshd)",
        "sudo ltrace -p 1234",
    ],
    [
        "gdb ./a.out",
        "gdb -batch -ex run -ex bt ./a.out",
        "gdb --args ./prog 1234",
        "gdb ./prog core.1234",
        "gdb -c core ./prog",
        "strace -f -o trace.log ./app",
        "strace -c ls",
        "ltrace ./prog",
        "lldb ./a.out",
        "lldb -- ./prog 99",
    ],
)


def test_tree_output_is_a_written_file(scorer: Engine) -> None:
    payloads, near_misses = TREE_OUTPUT
    assert allowed_payloads(scorer, payloads) == []
    assert flagged_near_misses(scorer, near_misses) == []
    assert_hardline(scorer, "tree -oa policies/x.yaml d")


def test_tree_reads_a_value_from_the_word_after_its_option_word() -> None:
    short, stop, plus = parse_getopt("aNLo:")
    grammar = Grammar(short=short, stop_at_operand=stop, plus=plus, apart=True)
    parsed = parse_argv(grammar, ["tree", "-oa", "out", "d"])
    assert [(name, value) for name, value, _ in parsed.options] == [("o", "out"), ("a", None)]
    assert parsed.operands == ["d"]
    # getopt's reading of the same words (the one tree does not have): -o's value would be `a`
    getopt = parse_argv(Grammar(short=short), ["tree", "-oa", "out", "d"])
    assert [(name, value) for name, value, _ in getopt.options] == [("o", "a")]
    missing = parse_argv(grammar, ["tree", "-ao"])
    assert missing.refused


def test_mke2fs_reads_its_option_values_and_dry_runs(scorer: Engine) -> None:
    hardline, dry_runs, near_misses = MKE2FS
    for command in hardline:
        assert_hardline(scorer, command)
    for command in dry_runs:
        verdict = scorer.check(command)
        assert verdict.decision == "ask" and not verdict.hardline, said(command, verdict)
    assert flagged_near_misses(scorer, near_misses) == []


def test_a_process_memory_read_through_a_debugger_asks(scorer: Engine) -> None:
    payloads, near_misses = PROCESS_MEMORY
    assert allowed_payloads(scorer, payloads) == []
    assert flagged_near_misses(scorer, near_misses) == []
    for command in payloads:
        assert "credential_read" in {m.key for m in scorer.check(command).matches}, command


@pytest.mark.skipif(shutil.which("tree") is None, reason="needs tree")
def test_tree_writes_a_command_into_a_start_up_file_live_and_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant = "mkdir -p d && touch 'd/x\necho PWNED\n'"
    payload = "tree -Nioa ~/.bashrc d"  # -i: no indentation lines (names only, whatever the locale's charset)
    home, _, _ = run_confined(tmp_path, f"{plant} && {payload}")
    bashrc = home / ".bashrc"
    assert "echo PWNED" in bashrc.read_text().splitlines(), "unguarded, tree writes the name's line into ~/.bashrc"
    ran = subprocess.run(["bash", str(bashrc)], capture_output=True, text=True, timeout=60, check=False)
    assert "PWNED" in ran.stdout, "and bash runs it"
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, home, root):
        subprocess.run(["bash", "-c", plant], cwd=root, check=True, timeout=60)
        result = engine.call("terminal", {"command": payload})
        assert not result.ok and result.error is not None and result.error.type == "pending_approval", result.output
        assert not (home / ".bashrc").exists() and home_intact(home)
        # the near miss: the listing written into the project
        assert engine.call("terminal", {"command": "tree -oa tree.txt d"}).ok
        assert (root / "tree.txt").is_file() and not (root / "a").exists()


SLEEPER = "import time; k = 'SECRET-' + 'KEY-49'; time.sleep(60)"


@pytest.mark.skipif(shutil.which("gcore") is None, reason="needs gdb's gcore")
def test_gcore_writes_a_running_process_secret_live_and_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = "gcore -o core $p"
    live = f'python3 -c "{SLEEPER}" & p=$!; sleep 1; {payload} >/dev/null 2>&1; kill $p; grep -ac SECRET-KEY-49 core.$p'
    _, cwd, printed = run_confined(tmp_path, live)
    if not list(cwd.glob("core.*")):
        pytest.skip("gcore could not attach here (ptrace not permitted)")
    assert printed.strip() not in ("", "0"), "unguarded, the process's secret is in the core file"
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, home, root):
        sleeper = subprocess.Popen(["python3", "-c", SLEEPER])
        try:
            result = engine.call("terminal", {"command": f"gcore -o core {sleeper.pid}"})
            assert not result.ok and result.error is not None and result.error.type == "pending_approval"
            assert not list(root.glob("core.*")) and home_intact(home)
        finally:
            sleeper.kill()
            sleeper.wait(timeout=30)


@pytest.mark.skipif(shutil.which("mkfs.ext4") is None, reason="needs e2fsprogs")
def test_mke2fs_formats_the_image_its_label_names_no_device_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with harm_project(tmp_path, monkeypatch) as (engine, home, root):
        for name in ("disk.img", "dry.img"):
            with (root / name).open("wb") as image:
                image.truncate(8 * 1024 * 1024)
        result = engine.call("terminal", {"command": "mkfs.ext4 -q -F -L /dev/sda disk.img"})
        assert result.ok, result.output
        superblock = (root / "disk.img").read_bytes()[1024:1400]
        assert superblock[56:58] == b"\x53\xef", "an ext4 superblock in the image"
        assert superblock[120:128] == b"/dev/sda", "labelled /dev/sda, which stays untouched"
        # -n writes nothing (live, unguarded); the engine asks for it (a disk's dry run is shown to a person)
        subprocess.run(["mkfs.ext4", "-n", "dry.img"], cwd=root, capture_output=True, timeout=60, check=False)
        assert (root / "dry.img").read_bytes() == bytes(8 * 1024 * 1024)
        assert home_intact(home)
