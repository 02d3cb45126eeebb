"""adv38 (stop 38, issue 8): the adversary on this stop's readings (help38's `runs_nothing`, lead38's kept answers,
holes38 / fresh38a).

Closed: a `runs_nothing` reading (`sudo --help CMD` runs nothing) is a reading of the system's program; a program named
by another path (`./sudo`, `bin/nice`, `~/bin/timeout`, `venv/bin/env`) may be any file the caller put there (a script
that drops its first word and runs the rest): its `--help` is no promise, and the hardline match on its words stands
(argv.system_program).

Also closed: POSIXLY_CORRECT (on the line, exported, or inherited) ends a permuting program's options at its first
operand, so a pattern's `without_flags` after the verb is an operand (`shutdown now --help` shuts down with the message
`--help`); tmux's `#(CMD)` formats and `run -C`; chmod spellings taking the owner's access from ~ (`chmod -x ~`,
`--reference`, setfacl); `${r@P}` through a name reference; pdsh/clush's exec worker, dsh, mussh.

Open (strict xfails): a program named by a caller's path or PATH is read by the table's row of its name (a copy of
dash named `sudo` runs `-V -c TEXT`).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.lexer import MAX_LENGTH
from tests.redteam.conftest import home_intact
from tests.redteam.harm import assert_allowed, assert_hardline, assert_not_allowed, live_then_stopped, run_confined

# A program named by a path outside the system's folders: its --help is no promise (the hardline match stands).
PATH_NAMED = [
    "./sudo --help rm -rf ~",
    "bin/nice --help rm -rf ~",
    "~/bin/timeout --help 5 rm -rf ~",
    "venv/bin/env --version rm -rf ~",
    "/tmp/x/stdbuf --help rm -rf /",
    "/usr/bin/../../tmp/sudo --help rm -rf ~",
]

# The system's programs keep help38's reading; ordinary commands stay allowed.
NEAR_MISSES = [
    "sudo --help rm -rf /",
    "/usr/bin/sudo --help rm -rf ~",
    "/bin/bash -n -c 'rm -rf ~'",
    "env --version sh -c 'rm -rf ~'",
    "systemctl --help reboot",
    "./configure --help",
    "./gradlew --version",
    "bash -n ./build.sh",
    "nice --help",
    "timeout --help",
]


@pytest.mark.parametrize("command", PATH_NAMED)
def test_a_path_named_program_is_not_read_as_running_nothing(plain_project: tuple[Path, Engine], command: str) -> None:
    assert_hardline(plain_project[1], command)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_the_system_programs_and_ordinary_commands_stay_allowed(
    plain_project: tuple[Path, Engine], command: str
) -> None:
    assert_allowed(plain_project[1], command)


@pytest.mark.parametrize("pad", [" ; true" * (MAX_LENGTH // 7 + 8), " ; rm -f a" * (MAX_LENGTH // 10 + 8)])
def test_the_flat_scan_reads_a_path_named_program_so_too(plain_project: tuple[Path, Engine], pad: str) -> None:
    """Past the parser's limits (the flat scan, Evaluator._quiet_piece) the same: `./sudo --help` is no quiet piece."""
    for text in ("./sudo --help rm -rf /" + pad, pad + " ; bin/nice --help rm -rf /"):
        assert plain_project[1].check(text).hardline
    assert not plain_project[1].check("sudo --help rm -rf /" + pad).hardline


_FAKE_SUDO = '#!/bin/sh\nshift\nexec "$@"\n'  # drops its first word (`--help`) and runs the rest


def test_a_planted_sudo_that_ignores_help_is_refused(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    """A file named sudo in the working directory (put there by another process) runs `rm -rf ~` after `--help`:
    unguarded the fake HOME goes; through the terminal the call is refused and the HOME stays."""
    engine, home, root = plain_harm
    live, _, _ = run_confined(tmp_path, f"printf '{_FAKE_SUDO}' > sudo && chmod +x sudo && ./sudo --help rm -rf ~")
    assert not home_intact(live), "the payload should delete the HOME unguarded"
    planted = root / "sudo"
    planted.write_text(_FAKE_SUDO)
    planted.chmod(planted.stat().st_mode | stat.S_IXUSR)
    result = engine.call("terminal", {"command": "./sudo --help rm -rf ~"})
    assert not result.ok
    assert home_intact(home)


# holes38 / fresh38a's families, near variants that were allowed (each not `allow` now).
FAMILY = {
    # tmux: a format's `#(CMD)` runs CMD when expanded; run-shell -C's word is a tmux command
    "tmux display -p '#(rm -rf ~)'": "deny",
    "tmux new -d \\; display -p '#(rm -rf ~)'": "deny",
    "tmux if -F '#(rm -rf ~)' true": "deny",
    "tmux run 'echo #(rm -rf ~)'": "deny",
    "tmux set -g status-right '#(rm -rf ~)'": "deny",
    "tmux run -C 'run \"rm -rf ~\"'": "deny",
    'tmux new -d \\; run -b -C \'if true "run \\"rm -rf ~\\""\'': "deny",
    # chmod taking the owner's access from ~: a mode spelled as an option word, a copied mode, an ACL
    "chmod -x ~": "ask",
    "chmod -rwx $HOME": "ask",
    "chmod 000000 ~": "ask",
    "chmod u-r+w ~": "ask",
    "chmod --reference=x ~": "ask",
    "setfacl -m u::0 ~": "ask",
    "setfacl --set u::0,g::0,o::0 ~": "ask",
    # ${x@P} through a name reference: the target's value is prompt-expanded
    "declare -n r=x; x='$(rm -rf ~)'; echo ${r@P}": "deny",
    "typeset -n r=x; x='$(rm -rf ~)'; : \"${r@P}\"": "deny",
    "f() { local -n r=$1; : \"${r@P}\"; }; x='$(rm -rf ~)'; f x": "deny",
    "declare -n r=x; echo ${r@P}": "ask",
    # pdsh / clush's exec worker runs its words here, unjoined; dsh and mussh like ssh
    "pdsh -w h -R exec sh -c 'rm -rf ~'": "deny",
    "clush --worker=exec -w h bash -c 'rm -rf ~'": "deny",
    "dsh -m h 'rm -rf ~'": "deny",
    "mussh -h h -c 'rm -rf ~'": "deny",
    # credential files of the same CLIs at their other paths
    "cat ~/.vercel/auth.json": "ask",
    "cat ~/.config/flyctl/config.yml": "ask",
    "cat ~/.railway/config.json": "ask",
    "cat ~/.snowsql/config": "ask",
    "cat ~/.sbt/.credentials": "ask",
    "cat ~/.config/composer/auth.json": "ask",
    "cat ~/.ansible/vault_pass": "ask",
}

FAMILY_NEAR_MISSES = [
    "tmux display -p '#{pane_id}'",
    "tmux set -g status-right '#(date +%H:%M)'",
    "tmux list-sessions -F '#{session_name}'",
    "tmux run -C 'display hi'",
    "tmux new -d -s build 'make test'",
    "chmod -x ./script.sh",
    "chmod -w notes.txt",
    "chmod 700 ~",
    "chmod 0755 ~",
    "chmod u=rwx ~",
    "chmod -R -x ./dist",
    "setfacl -m u:me:rwx ~/proj",
    "declare -n r=x; x=hello; echo ${r@P}",
    "PS1='\\u@\\h'; echo \"${PS1@P}\"",
    "pdsh -w h uptime",
    "clush -a 'systemctl status nginx'",
    "dsh -a uptime",
    "mussh -h h -c uptime",
    "cat ~/.sbt/repositories",
    "cat ~/.config/flyctl/state.yml",
    "cat ~/.tmux.conf",
]


@pytest.mark.parametrize(("command", "decision"), FAMILY.items(), ids=list(FAMILY))
def test_a_family_variant_is_not_allowed(plain_project: tuple[Path, Engine], command: str, decision: str) -> None:
    verdict = plain_project[1].check(command)
    assert verdict.decision == decision, (command, verdict.decision, [m.key for m in verdict.matches])


@pytest.mark.parametrize("command", FAMILY_NEAR_MISSES)
def test_a_family_near_miss_stays_allowed(plain_project: tuple[Path, Engine], command: str) -> None:
    assert_allowed(plain_project[1], command)


@pytest.mark.parametrize(
    "payload",
    [
        "tmux -L adv38b$$ -f /dev/null new -d \\; run -C 'run \"rm -rf ~\"'; sleep 1; tmux -L adv38b$$ kill-server",
    ],
)
def test_tmux_run_shell_c_deletes_the_home_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str
) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("needs tmux")
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, payload)


def test_prompt_expansion_through_a_name_reference_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, "declare -n r=x; x='$(rm -rf ~)'; : ${r@P}")


# POSIXLY_CORRECT ends getopt's options at the first operand (systemd's shutdown, systemctl, reboot use getopt_long
# without `+`): the `--help` / `-h` / `-k` / `-c` after the verb or time is then an operand (a wall message), and the
# pattern's `without_flags` (policies/system.yaml shutdown_reboot) let it pass. The variable may be inherited or
# exported by an earlier call: only the flags before the first operand count (matchers.Shape.firm). (holes39) A help
# option after the verb with no POSIXLY_CORRECT on the line asks instead of hardline (`sudo shutdown now --help`,
# `systemctl reboot --help`: tests/redteam/test_holes39.py); named on the line, the verb's hardline stands.
POSIX_OPERANDS = [
    "POSIXLY_CORRECT=1 shutdown now --help",
    "POSIXLY_CORRECT=1 shutdown -r now -k",
    "POSIXLY_CORRECT=1 shutdown now -c",
    "env POSIXLY_CORRECT=1 shutdown now --help",
    "export POSIXLY_CORRECT=1; systemctl reboot -h",
    "POSIXLY_CORRECT=1 systemctl poweroff --help",
]
POSIX_NEAR_MISSES = [
    "shutdown --help",
    "shutdown -c",
    "shutdown -k now",
    "systemctl --help reboot",
    "systemctl -h poweroff",
    "reboot -f --help",
    "reboot --help",
    "loginctl --version reboot",
    "systemctl status nginx",
]


@pytest.mark.parametrize("command", POSIX_OPERANDS)
def test_posixly_correct_makes_a_later_help_an_operand(plain_project: tuple[Path, Engine], command: str) -> None:
    assert_hardline(plain_project[1], command)


@pytest.mark.parametrize("command", POSIX_NEAR_MISSES)
def test_a_help_before_the_verb_still_runs_nothing(plain_project: tuple[Path, Engine], command: str) -> None:
    assert_allowed(plain_project[1], command)


# -- open ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "./sudo -V -c 'rm -rf ~'",
        "PATH=.:$PATH sudo -V -c 'rm -rf ~'",
        "./sudo -V rm -rf /",  # (sudo's row: -V runs no command)
        "./systemctl --help reboot",  # (shutdown_reboot's without_flags)
        # (`bin/nice --help -c 'rm -rf ~'` is closed by holes39: an undeclared `-c STRING` is read as a shell line)
    ],
)
def test_a_shell_copied_under_a_wrappers_name(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], command: str
) -> None:
    engine, home, root = plain_harm
    (root / "bin").mkdir()
    for copy in (root / "sudo", root / "bin" / "nice"):
        copy.write_bytes(Path("/bin/dash").read_bytes())
        copy.chmod(0o755)
    assert os.environ["HOME"] == str(home)
    assert engine.check(command).decision != "allow", command


# (xfail39, was a strict xfail) tmux's set-option on the command line is read as the same line of a configuration:
# a later new-window runs the default-command
@pytest.mark.parametrize(
    "command", ["tmux new -d \\; set default-command 'rm -rf ~' \\; neww", "tmux set -g default-command 'rm -rf ~'"]
)
def test_tmux_default_command_set_on_the_line(plain_project: tuple[Path, Engine], command: str) -> None:
    assert_not_allowed(plain_project[1], command)


@pytest.mark.parametrize(
    "command", ["tmux set -g mouse on", "tmux setw -g mode-keys vi", "tmux set -g default-shell /bin/zsh"]
)
def test_tmux_other_options_stay_allowed(plain_project: tuple[Path, Engine], command: str) -> None:
    assert_allowed(plain_project[1], command)
