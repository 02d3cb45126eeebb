"""help38 (stop 38, issue 8): a hardline verdict is about what runs. A program given an option with which it prints its
help or version, or only parses, and exits runs nothing of the words after it: `sudo --help rm -rf /`,
`systemctl --hel reboot`, `bash -n -c 'rm -rf /'`, `env --version sh -c ...`, `nice --help rm -rf /` were hard-denied
(fresh37a's OPEN_NOT_HARDLINE, strict xfails until this branch).

The reading is data: the Programs rows' `runs_nothing` (and `runs_nothing_unless`) name those options
(policies/executors.yaml: sudo, env, nice, timeout, stdbuf, the sh family's -n, systemctl, loginctl, shutdown,
reboot);
argv.runs_nothing reads them, by getopt_long's abbreviations, fail closed: only before the program's first operand
(with POSIXLY_CORRECT a later `--help` is an operand), not after an option the grammar does not know (it may take the
next word as its value), not with a `+x` word of a shell (`bash -n +n -c TEXT` runs TEXT). Such a command runs none
of its payloads (follow: `refused`), a hardline match on its own words asks instead (evaluate._match), and the flat
scan of a text it cannot parse reads no run in the words of such a command (Evaluator._quiet_piece).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.lexer import MAX_LENGTH
from tests.redteam.conftest import home_intact, make_home
from tests.redteam.harm import assert_hardline, live_then_stopped, run_confined

# Each prints its help or version, or only parses, and exits: nothing after it runs.
QUIET = [
    # fresh37a's five
    "systemctl --hel reboot",
    "bash -n -c 'rm -rf /'",
    "sudo --help rm -rf /",
    "env --version sh -c 'rm -rf /'",
    "nice --help rm -rf /",
    # abbreviations (getopt_long's unique prefixes) and bundled letters
    "systemctl --vers poweroff",
    "systemctl -qh reboot",
    "systemctl --no-pager --help halt",
    "sudo --hel rm -rf /",
    "sudo --vers rm -rf ~",
    "sudo -V rm -rf /",
    "sudo -u root --help rm -rf /",
    "env --vers rm -rf /",
    "env -i --help sh -c 'rm -rf ~'",
    "nice --h rm -rf /",
    "nice --version rm -rf ~",
    "timeout --help 5 rm -rf /",
    "timeout -s KILL --version 5 rm -rf ~",
    "stdbuf --help rm -rf /",
    "shutdown --help now",
    "reboot --hel",
    # a shell's -n: read, not run
    "bash -nc 'rm -rf /'",
    "bash -xn -c 'rm -rf ~'",
    "sh -n -c 'rm -rf ~'",
    "dash -n -c 'rm -rf /'",
    "bash -n -c 'set +n; rm -rf /'",
    "bash --help -c 'rm -rf /'",
    "bash --version -c 'rm -rf ~'",
    # the same through a wrapper, and env's -S splitting into --help
    "nice sudo --help rm -rf /",
    "env -S'--help' rm -rf /",
]

# Their neighbours that act (or may: fail closed) stay hardline.
ACTING = [
    "sudo rm -rf /",
    "sudo -u root rm -rf /",
    # new sudo: a word after a lone -h is a host (src/parse_args.c): rm runs there
    "sudo -h host rm -rf /",
    "bash -c 'rm -rf /'",
    "env -i sh -c 'rm -rf /'",
    "nice -n 5 rm -rf /",  # -n is nice's adjustment, a value option
    "nice -n5 rm -rf /",
    "nice -n -5 rm -rf ~",
    # -i: an interactive shell may ignore -n; +n / +o noexec after it turn it off (bash runs the text)
    "bash -n -i -c 'rm -rf /'",
    "bash -n +n -c 'rm -rf /'",
    "bash -n +o noexec -c 'rm -rf /'",
    # after the text, --help / -n are its $0 and $1
    "bash -c 'rm -rf /' --help",
    "sh -c 'rm -rf ~' -n",
    # another command on the line
    "bash --help; rm -rf /",
    "sudo --help && rm -rf /",
    "sudo --help || rm -rf ~",
    "sudo --help $(rm -rf /)",
    "sudo --help `rm -rf ~`",
    "sudo --help <(rm -rf /)",
    'bash -n -c "$(rm -rf ~)"',
    # the shell opens a redirection whatever the program does with its words
    "sudo --help > /dev/sda",
    "systemctl --help reboot > /dev/sda",
    "bash -n -c x > /dev/sda",
    "bash -n x.sh\nrm -rf /",
    # env -S splits first: --help is then the shell's $0
    "env -S'sh -c \"rm -rf /\"' --help",
    # after the operands (with POSIXLY_CORRECT getopt stops at the first: `rm` deletes, then finds no `--help`)
    "rm -rf / --help",
    # a verb after an option's value is read (holes38's systemctl grammar)
    "systemctl -n 5 reboot",
    "systemctl reboot",
    "systemctl -i poweroff",
]


@pytest.mark.parametrize("command", QUIET)
def test_a_command_that_runs_nothing_is_not_hard_denied(plain_project: tuple[Path, Engine], command: str) -> None:
    verdict = plain_project[1].check(command)
    assert not verdict.hardline, (command, [(m.key, m.command) for m in verdict.matches])


@pytest.mark.parametrize("command", ACTING)
def test_its_acting_neighbour_stays_hard_denied(plain_project: tuple[Path, Engine], command: str) -> None:
    assert_hardline(plain_project[1], command)


def test_a_script_checked_then_run_stays_hard_denied(plain_project: tuple[Path, Engine]) -> None:
    """`bash -n` reads the file and runs nothing; the `bash x.sh` after it runs what the line wrote there."""
    verdict = plain_project[1].check("echo 'rm -rf /' > x.sh && bash -n x.sh && bash x.sh")
    assert verdict.hardline


# The flat scan (a text past the parser's limits): the same readings. Sparse: few command names (each piece read from
# the operator before it); dense: many (the text cut at every operator).
_SPARSE = " ; true" * (MAX_LENGTH // 7 + 8)
_DENSE = " ; rm -f a" * (MAX_LENGTH // 10 + 8)
FLAT_QUIET = [
    "sudo --help rm -rf /",
    "systemctl --hel reboot",
    "bash -n -c 'rm -rf /'",
    "env --version sh -c 'rm -rf /'",
    "nice --help rm -rf /",
]
FLAT_ACTING = [
    "sudo rm -rf /",
    "nice -n 5 rm -rf /",
    "sudo --help && rm -rf /",
    "sudo --help;rm -rf /",
    "bash -n -c 'x; rm -rf /'",
    "bash -n +n -c 'rm -rf /'",
    "systemctl reboot",
    "sudo --help > /dev/sda",
]


@pytest.mark.parametrize("pad", [_SPARSE, _DENSE], ids=["sparse", "dense"])
@pytest.mark.parametrize("command", FLAT_QUIET)
def test_the_flat_scan_reads_a_quiet_command_as_running_nothing(
    plain_project: tuple[Path, Engine], command: str, pad: str
) -> None:
    for text in (command + pad, pad + " ; " + command):
        verdict = plain_project[1].check(text)
        assert verdict.decision == "ask" and not verdict.hardline, (command, [m.key for m in verdict.matches][:4])


@pytest.mark.parametrize("pad", [_SPARSE, _DENSE], ids=["sparse", "dense"])
@pytest.mark.parametrize("command", FLAT_ACTING)
def test_the_flat_scan_still_hard_denies_the_acting_neighbour(
    plain_project: tuple[Path, Engine], command: str, pad: str
) -> None:
    for text in (command + pad, pad + " ; " + command):
        assert plain_project[1].check(text).hardline, command


_SYSTEMCTL_PATTERN = """kind: DangerPatterns
name: mine
description: a project's hardline pattern that names no help option
patterns:
  - key: systemctl_isolate
    description: systemctl isolating a target
    severity: hardline
    match:
      - command: [systemctl]
        subcommand: [isolate]
    examples: {match: ["systemctl isolate x"], not_match: ["systemctl status"]}
"""


def test_a_hardline_match_on_a_quiet_command_asks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern that does not list --help (a project's) still meets no hardline on `systemctl --hel isolate x`:
    its match asks (evaluate._match); after the verb too, unless POSIXLY_CORRECT is named on the line (then it is an
    operand: holes39)."""
    make_home(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / "project"
    (root / "policies").mkdir(parents=True)
    (root / "policies" / "deny.yaml").write_text("kind: ApprovalPolicy\n")
    (root / "policies" / "mine.yaml").write_text(_SYSTEMCTL_PATTERN)
    (root / "hermes-engine.yaml").write_text("workdir: .\n")
    monkeypatch.chdir(root)
    with Engine.load(root) as engine:
        for quiet in (
            "systemctl --hel isolate x",
            "systemctl -qh isolate x",
            "systemctl --version isolate x",
            "systemctl isolate x --version",
        ):
            verdict = engine.check(quiet)
            assert verdict.decision == "ask" and not verdict.hardline, quiet
            assert "systemctl_isolate" in {m.key for m in verdict.matches}, quiet
        for acting in (
            "systemctl isolate x",
            "systemctl -n 3 isolate x",
            "POSIXLY_CORRECT=1 systemctl isolate x --version",
        ):
            verdict = engine.check(acting)
            assert verdict.hardline, acting


# The harm: each runs nothing under a real shell (the fake HOME intact), is not refused as hardline, and through the
# terminal leaves the HOME intact; its neighbour deletes the HOME unguarded and is refused.
HARMLESS = [
    ("bash", "bash -n -c 'rm -rf ~'"),
    ("bash", "bash -nc 'set +n; rm -rf ~'"),
    ("dash", "dash -n -c 'rm -rf ~'"),
    ("env", "env --version sh -c 'rm -rf ~'"),
    ("env", "env --vers sh -c 'rm -rf ~'"),
    ("nice", "nice --help rm -rf ~"),
    ("timeout", "timeout --help 5 rm -rf ~"),
    ("stdbuf", "stdbuf --version rm -rf ~"),
]
HARMFUL = [
    ("bash", "bash -c 'rm -rf ~'"),
    ("bash", "bash -n +n -c 'rm -rf ~'"),
    ("env", "env -u X sh -c 'rm -rf ~'"),  # (not -i: without HOME, ~ is not the fake one)
    ("nice", "nice -n 5 rm -rf ~"),
    ("timeout", "timeout 5 rm -rf ~"),
]


@pytest.mark.parametrize(("program", "payload"), HARMLESS, ids=[p for _, p in HARMLESS])
def test_a_quiet_payload_harms_nothing(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], program: str, payload: str
) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"needs {program}")
    engine, home, _ = plain_harm
    live, _, _ = run_confined(tmp_path, payload)
    assert home_intact(live), "the payload should run nothing"
    assert not engine.check(payload).hardline, payload
    engine.call("terminal", {"command": payload})
    assert home_intact(home), payload


@pytest.mark.parametrize(("program", "payload"), HARMFUL, ids=[p for _, p in HARMFUL])
def test_its_acting_neighbour_harms_and_is_stopped(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], program: str, payload: str
) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"needs {program}")
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, payload)
    assert engine.check(payload).hardline, payload


def test_bash_n_runs_no_start_up_file_and_no_set_plus_n(tmp_path: Path) -> None:
    """The premise of the sh row's `runs_nothing: [n]`, on the bash installed here: with -n no BASH_ENV, no login
    profile and no `set +n` / `set +o noexec` in the text runs; `-n +n` does run (hence the `+` words rule)."""
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    home = make_home(tmp_path)
    marker = home / "ran"
    touch = f"touch {marker}"
    (home / ".bash_profile").write_text(touch + "\n")
    (tmp_path / "benv").write_text(touch + "\n")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "BASH_ENV": str(tmp_path / "benv")}
    for argv in (
        ["bash", "-n", "-l", "-c", "true"],
        ["bash", "-n", "-c", "true"],
        ["bash", "-n", "-c", f"set +n; {touch}"],
        ["bash", "-n", "-c", f"set +o noexec\n{touch}"],
        ["bash", "-nc", touch],
        ["bash", "-c", "--help", touch],
    ):
        subprocess.run(argv, env=env, capture_output=True, timeout=10, check=False)
        assert not marker.exists(), argv
    subprocess.run(["bash", "-n", "+n", "-c", touch], env=env, capture_output=True, timeout=10, check=False)
    assert marker.exists()
