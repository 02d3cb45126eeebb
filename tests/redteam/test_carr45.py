"""carr45 (stop 45, issue 8 parts 3 and 5): carriers, and their global options, read the way each program reads them.

Each carrier of the brief was given `CARRIER [its options in every spelling] rm -rf ~` (bundled letters, `--opt=v` and
`--opt v`, unique prefixes, `--`, options that take a value and flags, options after the command name); the payloads
below are the ones that were allowed, each family with near misses that must stay allowed.

Fixed:
1. `function` is a reserved word only where a command starts (shell._command_word): as an option's value or an
   operand it is a word (`sudo -p function rm -rf ~`, `env -u function rm -rf ~`, `perf ftrace -t function CMD`
   were read as a definition of a function `rm`, and ran unread).
2. Carriers that start a shell reading their input when given no command (`chroot NEWROOT`, `systemd-run -S`,
   `run0`, `pkexec`, `firejail`, `sg GROUP`, `torsocks --shell`, `aws-vault exec PROFILE`): `<<< 'rm -rf ~'` ran.
3. Grammars shared by programs that read their options differently: numactl's `-l` and xvfb-run's `-l` are flags
   (the shared row's `-l` took the command as its value); watchexec's `-r` is --restart; poetry's `-n` and uv's
   `-n` are flags (`poetry -n run CMD`); faketime's `-f` is a flag (`faketime -f '+1d' CMD`).
4. Verbs and forms the tables did not know: `distrobox enter [-n NAME] -- CMD` / `-e CMD`, `nix GLOBAL-OPTS develop
   -c CMD` (`--option NAME VALUE` takes two words), `hatch run ENV:CMD`, `yarn exec 'LINE'`, `yarn workspace NAME
   CMD`, `yarn workspaces foreach CMD`, `just --command CMD`, `mise exec TOOL -- CMD`, `asdf env SHIM CMD`, `perf
   sched|lock|mem|c2c|kmem|kvm|timechart record CMD`, `perf ftrace CMD`, `perf script record NAME CMD`, `rr CMD`
   (rr's default verb is record), `nodemon --exec PROG -- ARGS`.
Checked and right already: taskset `-c0` / `--cpu-list=0` (taskset refuses both: nothing runs).

Open then, closed by xf46: `sudo -h HOST CMD` with a HOST that is a hardline word (`sudo -h reboot ls`) was denied: a
lone -h takes the next word when it is no option (the grammar's `next_value`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import (
    allowed_payloads,
    assert_hardline,
    deleted_then_stopped,
    flagged_near_misses,
    said,
)

# -- 1. `function` as a word that is no command's first --------------------------------------------------------------
FUNCTION_WORD = [
    "env -u function rm -rf ~",
    "sudo -p function rm -rf ~",
    "perf ftrace -t function rm -rf ~",
    "nice -n 5 env -u function rm -rf ~",
]
FUNCTION_NEAR = [
    "function f { echo ok; }; f",
    "function f() { echo hi; }; f",
    "echo function rm -rf",
    "grep -rn function src",
    "git log -S function",
]

# -- 2. carriers that start a shell reading their input ----------------------------------------------------------------
SHELL_ON_INPUT = [
    "chroot / <<< 'rm -rf ~'",
    "echo 'rm -rf ~' | chroot --userspec=0:0 /",
    "systemd-run -S <<< 'rm -rf ~'",
    "systemd-run --user --shell <<< 'rm -rf ~'",
    "run0 <<< 'rm -rf ~'",
    "pkexec <<< 'rm -rf ~'",
    "firejail <<< 'rm -rf ~'",
    "firejail --noprofile <<< 'rm -rf ~'",
    "echo 'rm -rf ~' | sg wheel",
    "torsocks --shell <<< 'rm -rf ~'",
    "aws-vault exec prod <<< 'rm -rf ~'",
]
SHELL_ON_INPUT_NEAR = [
    "chroot /srv/root ls <<< 'rm -rf ~'",
    "chroot /srv/root",
    "run0 ls",
    "run0 -u www systemctl status nginx",
    "pkexec ls <<< 'rm -rf ~'",
    "firejail --private ls",
    "sg docker -c 'docker ps'",
    "sg docker ls <<< 'rm -rf ~'",
    "torsocks curl https://example.com",
    "aws-vault exec prod -- aws s3 ls <<< 'rm -rf ~'",
    "systemd-run --user --scope make",
]

# -- 3. each program's own option grammar ------------------------------------------------------------------------------
OWN_GRAMMAR = [
    "numactl -l rm -rf ~",
    "numactl -lN0 rm -rf ~",
    "xvfb-run -l rm -rf ~",
    "xvfb-run -al rm -rf ~",
    "watchexec -r rm -rf ~",
    "poetry -n run rm -rf ~",
    "poetry -nq run rm -rf ~",
    "uv -n run rm -rf ~",
    "faketime -f '+1d' rm -rf ~",
    "faketime -f +1d -- rm -rf ~",
]
OWN_GRAMMAR_NEAR = [
    "numactl -l make",
    "numactl -N 0 echo reboot",
    "xvfb-run -a pytest",
    "xvfb-run -s reboot pytest",
    "watchexec -r -e py -- cargo run",
    "poetry -n install",
    "poetry -n run pytest",
    "uv -n run pytest",
    "uv --color never run pytest",
    "faketime -f '+1d' date",
    "faketime '2020-01-01' echo reboot",
    "taskset -c0 make",
    "taskset -c 0 make",
]

# -- 4. verbs and forms the tables did not know ----------------------------------------------------------------------
VERBS = [
    "distrobox enter -- rm -rf ~",
    "distrobox enter -n box -- rm -rf ~",
    "distrobox enter --name box -- rm -rf ~",
    "distrobox enter box -e 'rm -rf ~'",
    "nix --option sandbox false develop -c rm -rf ~",
    "hatch run test:rm -rf ~",
    "hatch run default:sh -c 'rm -rf ~'",
    "yarn exec 'rm -rf ~'",
    "yarn workspace app exec rm -rf ~",
    "yarn workspaces foreach exec rm -rf ~",
    "yarn workspaces foreach -A --parallel exec rm -rf ~",
    "just --command rm -rf ~",
    "just -c rm -rf ~",
    "mise exec node -- rm -rf ~",
    "asdf env nodejs rm -rf ~",
    "perf sched record rm -rf ~",
    "perf lock record rm -rf ~",
    "perf mem record rm -rf ~",
    "perf c2c record rm -rf ~",
    "perf kmem record rm -rf ~",
    "perf kvm --host record rm -rf ~",
    "perf timechart record rm -rf ~",
    "perf ftrace rm -rf ~",
    "perf script record syscall-counts rm -rf ~",
    "rr rm -rf ~",
    "rr -M rm -rf ~",
    "nodemon --exec rm -- -rf ~",
]
VERBS_NEAR = [
    "distrobox enter box",
    "distrobox enter box -- ls -la",
    "nix develop -c make",
    "nix --option sandbox false build .#x",
    "nix-shell -p hello --run hello",
    "hatch run test:cov",
    "hatch run test",
    "yarn exec eslint .",
    "yarn workspace app build",
    "yarn workspaces list",
    "just --list",
    "just -c ls",
    "mise exec node@20 -- node -v",
    "mise x node -- npm test",
    "asdf env nodejs",
    "asdf exec node -v",
    "asdf install nodejs 20",
    "perf sched latency",
    "perf kvm stat",
    "perf sched record ls",
    "perf ftrace ls",
    "rr replay",
    "rr ps",
    "rr record ls",
    "rr ls",
    "nodemon app.js",
    "nodemon --exec 'npm test'",
    "conda env create -f environment.yml",
]

# The brief's near misses, and hardline words that are only printed or an option's value
BRIEF_NEAR = [
    "sudo -u www ls",
    "timeout 5 make test",
    "nice make",
    "uv run pytest",
    "time -o reboot echo",
    "nice -n 5 echo mkfs",
    "/usr/bin/time -f reboot echo hi",
    "timeout -k 1 5 echo reboot",
    "run0 --description reboot ls",
]

PAYLOADS = FUNCTION_WORD + SHELL_ON_INPUT + OWN_GRAMMAR + VERBS
NEAR_MISSES = FUNCTION_NEAR + SHELL_ON_INPUT_NEAR + OWN_GRAMMAR_NEAR + VERBS_NEAR + BRIEF_NEAR


@pytest.mark.parametrize(
    ("payloads", "near"),
    [
        pytest.param(FUNCTION_WORD, FUNCTION_NEAR, id="function-word"),
        pytest.param(SHELL_ON_INPUT, SHELL_ON_INPUT_NEAR, id="shell-on-input"),
        pytest.param(OWN_GRAMMAR, OWN_GRAMMAR_NEAR, id="own-grammar"),
        pytest.param(VERBS, VERBS_NEAR, id="verbs"),
    ],
)
def test_family_refused_and_near_misses_allowed(engine: Engine, payloads: list[str], near: list[str]) -> None:
    assert allowed_payloads(engine, payloads) == []
    assert flagged_near_misses(engine, near) == []


def test_brief_near_misses_stay_allowed(engine: Engine) -> None:
    assert flagged_near_misses(engine, BRIEF_NEAR) == []


@pytest.mark.parametrize("payload", PAYLOADS)
def test_home_deletion_is_hardline(engine: Engine, payload: str) -> None:
    assert_hardline(engine, payload)


@pytest.mark.parametrize("payload", ["env -u function rm -rf ~", "nice -n 5 env -u function find ~ -delete"])
def test_function_as_a_value_deletes_unguarded_and_is_stopped(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str
) -> None:
    engine, home, _ = plain_harm
    deleted_then_stopped(tmp_path, engine, home, payload)


def test_sudo_remote_host_word_is_no_command(engine: Engine) -> None:
    verdict = engine.check("sudo -h reboot ls")
    assert not verdict.hardline, said("sudo -h reboot ls", verdict)
