"""A program that runs a file the session wrote, its output piped into a shell (stop 31, lead).

`make | sh` after the session wrote a Makefile whose recipe prints `rm -rf ~`: make's recipes were
judged as commands, but what they print went into `sh` unread, and the line was allowed. A stage
that ran a written file (shell._pipeline, Follower.written_runs) now feeds the next stage as a
written file's text nobody read (`$written`): a shell or interpreter reading it asks
(written_code_filtered), as `sed '' x.sh | sh` did. The project's own Makefile, and a written one
whose output goes to a filter, stay allowed."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from bench.bench_adversarial import SessionChecks

RANK = {"allow": 0, "ask": 1, "deny": 2}
MAKEFILE = "all:\n\t@echo rm -rf ~\n"
SCRIPTS = '{"scripts": {"gen": "echo rm -rf ~"}}'


@pytest.fixture
def sessions() -> Iterator[SessionChecks]:
    checks = SessionChecks()  # a working directory of its own: no file of another case is there
    yield checks
    checks.close()


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"Makefile": MAKEFILE}, "make | sh"),
        ({"Makefile": MAKEFILE}, "make -s all | bash"),
        ({"Makefile": MAKEFILE}, "make 2>&1 | sh -s"),
        ({"package.json": SCRIPTS}, "npm run -s gen | sh"),
        ({"gen.js": "console.log('rm -rf ~')\n"}, "node gen.js | sh"),
    ],
)
def test_a_written_files_output_piped_into_a_shell_is_not_allowed(
    sessions: SessionChecks, files: dict[str, str], command: str
) -> None:
    verdict = sessions.prepared(files, command)(command)
    assert RANK[verdict.decision] >= RANK["ask"], (command, verdict)


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"Makefile": "all:\n\t@echo hi\n"}, "make | grep hi"),
        ({"Makefile": "all:\n\t@echo hi\n"}, "make"),
        ({"package.json": '{"scripts": {"gen": "echo hi"}}'}, "npm run -s gen | wc -l"),
        # the project's own Makefile (written before the session), run; (adv50) piped into a shell it asks in a
        # session as in a check without one (its recipes' output is read as code: written_code_filtered)
        ({"notes.txt": "hi\n"}, "make"),
    ],
)
def test_near_misses_stay_allowed(sessions: SessionChecks, files: dict[str, str], command: str) -> None:
    with open(os.path.join(sessions.work, "Makefile"), "a") as own:
        own.write("" if "Makefile" in files else "all:\n\t@echo hi\n")
    os.utime(os.path.join(sessions.work, "Makefile"), (1, 1))  # older than the session
    verdict = sessions.prepared(files, command)(command)
    assert verdict.decision == "allow", (command, verdict)
