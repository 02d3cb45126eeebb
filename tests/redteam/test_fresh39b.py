"""fresh39b (stop 39, issue 8 Build items 4-6): a fresh adversary's multi-call sessions, tried on main ee09fad. Each
payload below was allowed there; the live ones deleted the fake HOME through the engine's own terminal.

- BACKGROUND READERS: a background program no name says reads commands, but that runs a shell on its input
  (`script -q /dev/null`, `newgrp`, `unshare -U`, `chroot DIR`, `nsenter -t 1 -m` with no command): its writes
  were data, each judged alone and sent at once, so `rm -r` then `f ~⏎` deleted HOME. Now read with the Programs
  table's `stdin: true` runs at the first write (session_memory.table_reader_kind): buffered by line and judged
  as a shell's.
- SOURCED DEFINITIONS: a background shell's state after `. ./lib.sh` did not hold what the sourced file defined
  (the state was read without the session's files): `alias ll='rm -rf'` there, then `ll ~`, deleted HOME.
- PROMPTS: an interactive background shell (`bash -i`) runs PROMPT_COMMAND (and expands PS0-PS2) after each line:
  `PROMPT_COMMAND='rm -r'"f $HOME"` ran at the next prompt, judged as an assignment.
- LOCAL BINS: npx / `npm exec` / `pnpm exec` / bunx / `yarn exec`, `poetry run` / `uv run`, and package.json
  scripts run `jest` from node_modules/.bin (`pytest` from .venv/bin) first: one the session wrote there ran
  unread (`under:` on an `as: argv` run; npm scripts with that folder first on PATH).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import Call, home_intact, shell_writes
from tests.redteam.harm import Case, assert_verdict, run_confined, verdict_cases

BIN_JEST = {"node_modules/.bin/jest": "#!/bin/sh\nrm -rf ~\n"}
VENV_PYTEST = {".venv/bin/pytest": "#!/bin/sh\nrm -rf ~\n"}

LOCAL_BINS: dict[str, Case] = {
    "npx jest": (BIN_JEST, "npx jest"),
    "npx --yes jest": (BIN_JEST, "npx --yes jest --ci"),
    "bunx jest": (BIN_JEST, "bunx jest"),
    "npm exec jest": (BIN_JEST, "npm exec jest"),
    "npm x -- jest": (BIN_JEST, "npm x -- jest"),
    "pnpm exec jest": (BIN_JEST, "pnpm exec jest"),
    "yarn exec jest": (BIN_JEST, "yarn exec jest"),
    "npm test runs jest": ({**BIN_JEST, "package.json": '{"scripts": {"test": "jest"}}'}, "npm test"),
    "npm run lint": (
        {"node_modules/.bin/eslint": "rm -rf ~\n", "package.json": '{"scripts": {"lint": "eslint ."}}'},
        "npm run lint",
    ),
    "pnpm lint": (
        {"node_modules/.bin/eslint": "rm -rf ~\n", "package.json": '{"scripts": {"lint": "eslint ."}}'},
        "pnpm lint",
    ),
    "poetry run pytest": (VENV_PYTEST, "poetry run pytest"),
    "uv run pytest": (VENV_PYTEST, "uv run pytest -q"),
    "pdm run pytest": (VENV_PYTEST, "pdm run pytest"),
    "a node bin": (
        {"node_modules/.bin/jest": "#!/usr/bin/env node\nrequire('child_process').execSync('rm -rf ~')\n"},
        "npx jest",
    ),
}
LOCAL_BINS_NEAR: dict[str, Case] = {
    "npx jest, nothing written": ({}, "npx jest --ci"),
    "npx a written harmless bin": ({"node_modules/.bin/hello": "#!/bin/sh\necho hello\n"}, "npx hello"),
    "npm test, another bin written": (
        {"node_modules/.bin/tsc": "#!/bin/sh\necho tsc\n", "package.json": '{"scripts": {"test": "jest"}}'},
        "npm test",
    ),
    "npm test of a written jest script": ({"package.json": '{"scripts": {"test": "jest --ci"}}'}, "npm test"),
    "uv run pytest, a test written": ({"test_x.py": "def test_x():\n    assert True\n"}, "uv run pytest -q"),
    "poetry run a written harmless bin": ({".venv/bin/hello": "#!/bin/sh\necho hi\n"}, "poetry run hello"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(LOCAL_BINS, LOCAL_BINS_NEAR))
def test_a_program_written_into_a_local_bin_folder_is_read(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_npx_does_not_run_a_jest_written_into_node_modules_bin(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    """Live: npx runs node_modules/.bin/jest when it is there (the fake HOME goes); through the engine it is
    refused after the session wrote it, and the home stays."""
    if shutil.which("npx") is None:
        pytest.skip("needs npx")
    home_live, cwd, _ = run_confined(tmp_path, "true")
    (cwd / "node_modules" / ".bin").mkdir(parents=True)
    (cwd / "node_modules" / ".bin" / "jest").write_text(BIN_JEST["node_modules/.bin/jest"])
    (cwd / "node_modules" / ".bin" / "jest").chmod(0o755)
    env = {"HOME": str(home_live), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "npm_config_yes": "true"}
    subprocess.run(["bash", "-c", "npx --offline jest"], env=env, cwd=cwd, capture_output=True, timeout=90, check=False)
    assert not home_intact(home_live), "npx should run the local jest unguarded"
    engine, home, _ = plain_harm
    assert engine.call(
        "write_file", {"path": "node_modules/.bin/jest", "content": BIN_JEST["node_modules/.bin/jest"]}, session_id="s1"
    ).ok
    assert engine.call("terminal", {"command": "chmod +x node_modules/.bin/jest"}, session_id="s1").ok
    result = engine.call("terminal", {"command": "npx --offline jest"}, session_id="s1")
    assert not result.ok and result.error is not None and result.error.type in ("denied", "pending_approval")
    assert home_intact(home)


# -- background programs that read their input as a shell -----------------------------------------------------


def _started_writes(
    engine: Engine, command: str, writes: list[str], wait: float = 1.0, until: Path | None = None
) -> list[bool]:
    """Start ``command`` in the background through the terminal, send ``writes`` to it, give the last one
    ``wait`` seconds to run; which writes were let through."""
    started = engine.call("terminal", {"command": command, "background": True}, session_id="s1")
    assert started.ok, started.error
    pid = str(json.loads(started.output)["process_id"])
    sent = []
    try:
        for text in writes:
            result = engine.call("process", {"action": "write", "process_id": pid, "input": text}, session_id="s1")
            sent.append(result.ok)
        time.sleep(wait)
        deadline = time.monotonic() + 20
        while until is not None and not until.exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # (the process is killed below: not before the file its lines make is there)
    finally:
        engine.call("process", {"action": "kill", "process_id": pid}, session_id="s1")
    return sent


SHELL_STARTERS = ["script -q /dev/null", "newgrp", "unshare -U"]


@pytest.mark.parametrize("command", SHELL_STARTERS)
def test_a_shell_started_by_another_program_gets_its_split_line_judged(
    plain_harm: tuple[Engine, Path, Path], command: str
) -> None:
    """`rm -r` then `f ~⏎`: each write alone is harmless; the shell the program started runs them as one line.
    Buffered and judged as that line, the second write is refused and the home stays."""
    if shutil.which(command.split(maxsplit=1)[0]) is None:
        pytest.skip(f"needs {command.split(maxsplit=1)[0]}")
    engine, home, _ = plain_harm
    sent = _started_writes(engine, command, ["rm -r", "f ~\n"])
    assert sent == [True, False]
    assert home_intact(home)


@pytest.mark.parametrize("command", SHELL_STARTERS)
def test_a_shell_started_by_another_program_still_takes_ordinary_lines(
    plain_harm: tuple[Engine, Path, Path], command: str
) -> None:
    if shutil.which(command.split(maxsplit=1)[0]) is None:
        pytest.skip(f"needs {command.split(maxsplit=1)[0]}")
    engine, _, root = plain_harm
    done = root / "done.txt"
    sent = _started_writes(engine, command, ["ls -la\n", f"echo done > {done}\n"], wait=0, until=done)
    assert sent == [True, True]
    assert done.exists()


@pytest.mark.parametrize(
    "command", ["script -q /dev/null", "newgrp", "unshare -U", "unshare -r", "nsenter -t 1 -m", "sudo -s"]
)
def test_a_program_that_starts_a_shell_reads_its_writes_as_a_shell(engine: Engine, command: str) -> None:
    from engine.policy.session_memory import reader_kind, table_reader_kind

    assert (reader_kind(command) or table_reader_kind(command, engine._snapshot.policy.programs)) == "shell"


@pytest.mark.parametrize(
    "command",
    ["cat", "tail -f app.log", "grep --line-buffered x", "unshare -U ls", "script -qc ls /dev/null"],
)
def test_a_program_reading_data_stays_data(engine: Engine, command: str) -> None:
    from engine.policy.session_memory import reader_kind, table_reader_kind

    assert reader_kind(command) is None
    assert table_reader_kind(command, engine._snapshot.policy.programs) is None


def test_a_data_reader_gets_a_partial_line_at_once(plain_harm: tuple[Engine, Path, Path]) -> None:
    """The near miss: `cat` in the background reads data; a write without a newline is sent, not held."""
    engine, _, _ = plain_harm
    started = engine.call("terminal", {"command": "cat", "background": True}, session_id="s1")
    pid = str(json.loads(started.output)["process_id"])
    try:
        result = engine.call("process", {"action": "write", "process_id": pid, "input": "abc"}, session_id="s1")
        assert result.ok and json.loads(result.output)["written"] == 3
    finally:
        engine.call("process", {"action": "kill", "process_id": pid}, session_id="s1")


# -- a background shell: what a sourced file defines, and its prompts -----------------------------------------


def test_an_alias_a_sourced_file_defines_is_the_shells(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    assert engine.call("write_file", {"path": "lib.sh", "content": "alias ll='rm -rf'\n"}, session_id="s1").ok
    sent = shell_writes(engine, root, home, ["shopt -s expand_aliases; . ./lib.sh\n", "ll ~\n"], "touch {done}\n")
    assert sent == [True, False]
    assert home_intact(home)


@pytest.mark.parametrize(
    ("lib", "line"),
    [("D=~\n", "rm -rf $D/*\n"), ("cd ~\n", "rm -rf .[!.]* *\n"), ("ln -s ~ h\n", "rm -rf h/*\n")],
    ids=["variable", "cd", "link"],
)
def test_what_a_sourced_file_sets_is_the_shells(plain_harm: tuple[Engine, Path, Path], lib: str, line: str) -> None:
    engine, home, root = plain_harm
    assert engine.call("write_file", {"path": "lib.sh", "content": lib}, session_id="s1").ok
    sent = shell_writes(engine, root, home, [". ./lib.sh\n", line], "touch {done}\n")
    assert sent == [True, False]
    assert home_intact(home)


def test_a_sourced_files_harmless_alias_still_runs(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    content = "export APP_ENV=dev\nalias ll='ls -la'\n"
    assert engine.call("write_file", {"path": "env.sh", "content": content}, session_id="s1").ok
    sent = shell_writes(engine, root, home, ["shopt -s expand_aliases; . ./env.sh\n", "ll\n"], "touch {done}\n")
    assert sent == [True, True]


def test_an_interactive_shells_prompt_command_is_read_as_run(plain_harm: tuple[Engine, Path, Path]) -> None:
    """Live through the engine on main: `bash -i` ran PROMPT_COMMAND at its next prompt and HOME went."""
    engine, home, _ = plain_harm
    sent = _started_writes(engine, "bash -i", ["PROMPT_COMMAND='rm -r'\"f $HOME\"\n", "true\n"])
    assert sent[0] is False
    assert home_intact(home)


@pytest.mark.parametrize(
    "line",
    [
        "PS1='$(rm -rf ~)'\n",
        "PS0='`rm -rf ~`'\n",
        "export PROMPT_COMMAND='rm -rf ~'\n",
        "PROMPT_COMMAND=(x 'rm -rf ~')\n",
    ],
)
def test_a_prompt_a_background_shell_runs_is_not_allowed(plain_harm: tuple[Engine, Path, Path], line: str) -> None:
    engine, home, root = plain_harm
    sent = shell_writes(engine, root, home, [line], "touch {done}\n")
    assert sent == [False]


@pytest.mark.parametrize(
    "line", ["PS1='\\u@\\h:\\w\\$ '\n", "PROMPT_COMMAND='history -a'\n", "PS1='$(git branch --show-current) $ '\n"]
)
def test_an_ordinary_prompt_is_allowed(plain_harm: tuple[Engine, Path, Path], line: str) -> None:
    engine, home, root = plain_harm
    sent = shell_writes(engine, root, home, [line, "echo hi\n"], "touch {done}\n")
    assert sent == [True, True]


# -- open (fresh39b): found, not closed by the deadline -----------------------------------------------------------

OPEN: dict[str, tuple[list[Call], str]] = {
    # `yarn NAME` runs node_modules/.bin/NAME when package.json has no script NAME (no `under:` for a run that
    # is not always a command: `yarn add` would be read as coreutils' `add`)
    "yarn jest": ([("write_file", {"path": k, "content": v}) for k, v in BIN_JEST.items()], "yarn jest"),
    # npm test with the project's own package.json (not written by the session) runs its `jest`: the script is
    # not read, so the written node_modules/.bin/jest is not either
    "npm test, the project's package.json": (
        [("write_file", {"path": k, "content": v}) for k, v in BIN_JEST.items()],
        "npm test",
    ),
    # `. .venv/bin/activate` (made on the line by venv: unread) puts .venv/bin first on PATH
    "activate then pytest": (
        [("write_file", {"path": k, "content": v}) for k, v in VENV_PYTEST.items()],
        "python3 -m venv .venv --without-pip; . .venv/bin/activate && pytest",
    ),
    # Java's single-file source launcher runs a written M.java (a language nobody reads here)
    "java M.java": (
        [
            (
                "write_file",
                {
                    "path": "M.java",
                    "content": "class M{public static void main(String[] a)throws Exception{"
                    'Runtime.getRuntime().exec(new String[]{"sh","-c","rm -rf ~"}).waitFor();}}\n',
                },
            )
        ],
        "java M.java",
    ),
    # dub.json's preBuildCommands, octave's .octaverc, ghci's .ghci, julia's depot startup.jl: start-up and
    # build files of programs the table does not describe
    "dub preBuildCommands": (
        [("write_file", {"path": "dub.json", "content": '{"name": "x", "preBuildCommands": ["rm -rf ~"]}'})],
        "dub build",
    ),
    "octaverc": ([("write_file", {"path": ".octaverc", "content": "system('rm -rf ~')\n"})], "octave --eval 1"),
    "ghci": ([("write_file", {"path": ".ghci", "content": ":! rm -rf ~\n"})], "ghci -e 1"),
}


def _session_verdict(root: Path, engine: Engine, calls: list[Call], command: str, session: str) -> str:
    for tool, args in calls:
        assert engine.call(tool, args, session_id=session).ok, args
    view = engine.session_memory.view(session, str(root))
    return engine._evaluator(engine._snapshot).verdict("terminal", {"command": command}, view).decision


# (xfail40 closed every one: tests/redteam/test_xfail40.py)
@pytest.mark.parametrize("name", list(OPEN))
def test_open_payloads(plain_harm: tuple[Engine, Path, Path], name: str) -> None:
    engine, _, root = plain_harm
    calls, command = OPEN[name]
    assert _session_verdict(root, engine, calls, command, f"open-{name}") != "allow"
