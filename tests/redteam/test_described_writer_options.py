"""A described program's option, or its command text, naming the file it writes (adv27 family 2).

engine_files_unknown_writer asks when a program the tables do not know to be read-only names an
engine file — but it read only positional words. A program the Programs table describes (a
wrapper or a debugger: strace, ltrace, perf, valgrind, gdb, screen, ssh, less) has its option
values read by its grammar, and no table named them as outputs: `strace -o policies/deny.yaml
true` rewrote the policy (allowed; `time -o` was denied). The rule now also reads every option
value the grammar read (`options: {"*": …}`), leaving out the readers and the programs that only
read a configuration from an option. The files an ex-style command text writes (vim's `:w F`,
`:saveas F`, `:redir > F`, `:wq F`; gdb's `set logging file F`, `set history filename F`,
`dump memory F …`) are judged as `tee F`, as sed's `w F` is. HOME, state and the project are
temporary (asserted before anything runs).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import files_intact_after, policy_project, policy_rewritten_live

POLICY = "kind: ApprovalPolicy\ndeny: ['npm publish*']\n"

# at least asked (an unknown writer) ...
OPTION_PAYLOADS = [
    "strace -o policies/deny.yaml true",
    "strace -opolicies/deny.yaml true",
    "strace --output=hermes-engine.yaml true",
    "timeout 5 strace -o policies/deny.yaml true",
    "sudo strace -o policies/deny.yaml true",
    "ltrace -o policies/deny.yaml true",
    "perf stat -o policies/deny.yaml true",
    "perf record -o policies/p.yaml true",
    "valgrind -q --log-file=policies/v.yaml true",
    "hyperfine --export-json policies/deny.yaml true",
    "parallel --joblog policies/deny.yaml true ::: 1",
    "ssh -E policies/deny.yaml host",
    "screen -L -Logfile policies/deny.yaml -dm true",
    "tcpdump -w policies/deny.yaml",
    "less -o policies/deny.yaml x.txt",
    "start-stop-daemon --start --pidfile policies/deny.yaml --make-pidfile --exec /bin/true",
]
# ... and refused (a write the command text names)
TEXT_PAYLOADS = [
    "gdb -batch -ex 'set logging file policies/deny.yaml' -ex 'set logging enabled on' -ex 'echo x\\n'",
    "gdb -batch -ex 'set history filename policies/deny.yaml' -ex 'set history save on'",
    "gdb -batch -ex 'dump memory policies/m.yaml 0 1'",
    "vim -es -c 'w! policies/deny.yaml' -c q x.txt",
    "vim -es -c 'saveas! policies/deny.yaml' -c q x.txt",
    "vim -es -c 'redir! > policies/deny.yaml' -c 'echo 1' -c 'redir END' -c q",
    "vim -es -c 'wq! policies/deny.yaml' x.txt",
    "vim -es -c 'w >> hermes-engine.yaml' -c q x.txt",
    "ex -sc 'mksession! policies/s.yaml' -c q",
]
NEAR_MISSES = [
    "strace -o out.trace true",
    "strace -f -o trace.log -e trace=file ls",
    "perf stat -o perf.txt true",
    "valgrind --log-file=vg.log ls",
    "gdb -batch -ex 'set logging file gdb.log' -ex 'info functions' ./a.out",
    "vim -es -c 'w! out.txt' -c q x.txt",
    "vim -es -c 'saveas copy.txt' -c q x.txt",
    "ssh -E ssh.log host uptime",
    "less -o saved.txt x.txt",
    "less -p deny policies/deny.yaml",
    "hyperfine --export-json bench.json 'sleep 0.1'",
    "docker compose -f policies/compose.yaml config",
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "writer-options", POLICY) as found:
        yield found


@pytest.mark.parametrize("payload", OPTION_PAYLOADS)
def test_an_output_option_naming_an_engine_file_asks(project: tuple[Path, Engine], payload: str) -> None:
    _, engine = project
    assert engine.check(payload).decision != "allow", payload


@pytest.mark.parametrize("payload", TEXT_PAYLOADS)
def test_a_file_the_command_text_writes_is_judged_as_written(project: tuple[Path, Engine], payload: str) -> None:
    _, engine = project
    verdict = engine.check(payload)
    assert verdict.decision == "deny" and verdict.hardline, (payload, verdict.decision)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_an_ordinary_output_stays_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    assert engine.check(command).decision == "allow", command


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_the_policy_stays_as_it_was(project: tuple[Path, Engine], tmp_path: Path) -> None:
    """Harm: under bash in a copy of the project `strace -o` rewrites the policy (when ptrace is
    allowed here); through the engine's terminal (nobody to approve) the policy is unchanged."""
    root, engine = project
    payload = OPTION_PAYLOADS[0]
    if not policy_rewritten_live(tmp_path, payload, POLICY):
        pytest.skip("strace cannot trace here")
    files_intact_after(root, engine, [("terminal", {"command": payload})], "harm", policy=POLICY)
