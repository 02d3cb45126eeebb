"""The red-team suite: payloads an adaptive caller sends, and near misses that must stay allowed.

One file per family. Payloads must never be `allow`; near misses (safe commands that
look like the payloads) must stay `allow`. Harm itself is tested end to end in test_harm.py.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine import Engine
from engine.cli import cli
from engine.policy.model import Verdict
from tests.conftest import REPO

RANK = {"allow": 0, "ask": 1, "deny": 2}


@pytest.fixture(scope="session")
def engine() -> Iterator[Engine]:
    """The engine's own project, loaded from its folder whatever test first asks for it (a module's
    `plain_project` fixture works in a temporary project: loaded there, the engine's files were not its own)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        engine = Engine.load(REPO)
    yield engine
    engine.close()


def judge(engine: Engine, command: str) -> Verdict:
    """The verdict for a terminal call running ``command``."""
    return engine.check(command)


def strictness(verdict: Verdict) -> tuple[int, bool, bool]:
    """Orders verdicts: a larger value is stricter (hardline above deny, a grant-proof ask above an ask)."""
    return RANK[verdict.decision], verdict.hardline, not verdict.grantable


def make_home(root: Path) -> Path:
    """A fake HOME under ``root`` holding a key and a note: what a harmful command would destroy."""
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("secret key\n")
    (home / "notes.txt").write_text("keep me\n")
    return home


def home_intact(home: Path) -> bool:
    """The fake home's key and note are there, the note unchanged (False, never an error, when either is gone)."""
    note = home / "notes.txt"
    return (home / ".ssh" / "id_ed25519").is_file() and note.is_file() and note.read_text() == "keep me\n"


def assert_judged_as_fresh(engine: Engine, work: Path, state: Path, commands: list[str]) -> None:
    """Each of ``commands`` is judged by ``engine`` (which judged them before the file system changed)
    as by an engine loaded now in ``work`` (its state in ``state``), and is not allowed there: nothing
    an earlier check kept is stale (redt32, redt33)."""
    fresh = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(state)})
    try:
        for command in commands:
            expected = decision_and_keys(fresh, command)
            assert decision_and_keys(engine, command) == expected, command
            assert expected[0] != "allow", command
    finally:
        fresh.close()


def decision_and_keys(engine: Engine, command: str) -> tuple[str, list[str]]:
    """``command``'s verdict as the kept-answer tests compare it: the decision and its match keys."""
    verdict = engine.check(command)
    return verdict.decision, sorted(m.key for m in verdict.matches)


def run_elsewhere(code: str, cwd: Path) -> None:
    """``code`` run by another Python process (a change the engine did not make, nor see made)."""
    subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, check=True)


def kept_verdict(engine: Engine, command: str) -> tuple[str, list[str]]:
    """``command`` judged three times once the folders are past the racy window (the later checks
    read the answers the first kept); the same verdict each time."""
    time.sleep(2.1)
    first = decision_and_keys(engine, command)
    assert decision_and_keys(engine, command) == first
    assert decision_and_keys(engine, command) == first
    return first


def judged_as_fresh(engine: Engine, command: str, tmp_path: Path, work: Path) -> tuple[str, list[str]]:
    """The verdict of ``engine`` on ``command``, asserted equal to that of an engine loaded now."""
    fresh = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state2")})
    try:
        expected = decision_and_keys(fresh, command)
    finally:
        fresh.close()
    found = decision_and_keys(engine, command)
    assert found == expected, command
    return found


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = make_home(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The working directory of ``work_engine`` (a module may give its own, e.g. with folders in it)."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def work_engine(tmp_path: Path, work: Path, fake_home: Path) -> Iterator[Engine]:
    """The repository's engine working in ``work`` (the test module's fixture) with a fake HOME
    and its state under ``tmp_path``: what a harmful call reaches is all temporary."""
    assert str(fake_home).startswith(str(tmp_path)) and os.environ["HOME"] == str(fake_home)
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    yield engine
    engine.close()


@pytest.fixture
def session(work_engine: Engine, work: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    """``work_engine`` with the test's working directory in ``work`` (where the session writes)."""
    monkeypatch.chdir(work)
    return work_engine


PROJECT_POLICY = "kind: ApprovalPolicy\ndeny: ['npm publish*']\n"


@pytest.fixture(scope="module")
def plain_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    """A project whose own policy adds nothing, as the working directory, and its engine
    (harm.policy_project), shared by a module's verdicts (harm.assert_verdict: each case in a
    session of its own)."""
    from tests.redteam.harm import policy_project

    with policy_project(tmp_path_factory, "plain", "kind: ApprovalPolicy\n") as loaded:
        yield loaded


@pytest.fixture(scope="module")
def own_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The engine's own project, loaded with it as the working directory (HOME and state temporary),
    shared by a module's verdicts."""
    tmp = tmp_path_factory.mktemp("own")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(make_home(tmp)))
        mp.setenv("XDG_STATE_HOME", str(tmp / "state"))
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        mp.chdir(REPO)
        with Engine.load(REPO) as loaded:
            yield loaded


@pytest.fixture(scope="module")
def scorer(own_project: Engine) -> Engine:
    """The engine's own project with a fake HOME and state, as the issue's scorer loads it (the unseen replays:
    test_unseen46 ... test_unseen55 each defined it; stop 55)."""
    return own_project


@pytest.fixture(scope="module")
def fresh_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The engine's own policies with a fake HOME and state, its working directory a fresh project of ours (src/app.py,
    README.md): where an unseen replay's allowed `find .` is judged (fp47 reads such a find by its listing, which must
    not be the engine's repository's: its .git and build trees differ between a clone, a worktree and CI's sdist)."""
    tmp = tmp_path_factory.mktemp("fresh")
    work = tmp / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "app.py").write_text("print('app')\n")
    (work / "README.md").write_text("readme\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(make_home(tmp)))
        mp.setenv("XDG_STATE_HOME", str(tmp / "state"))
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        mp.chdir(work)
        with Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp / "state")}) as loaded:
            yield loaded


@pytest.fixture
def plain_harm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path, Path]]:
    """A project whose own policy adds nothing, its engine, the fake home and the project's folder
    (harm.harm_project), for one test's real harm run."""
    from tests.redteam.harm import harm_project

    with harm_project(tmp_path, monkeypatch, "kind: ApprovalPolicy\n") as loaded:
        yield loaded


def make_project(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    name: str = "proj",
    handlers: str | None = None,
    git: bool = False,
    folders: tuple[str, ...] = (),
    home_folders: tuple[str, ...] = (),
) -> Path:
    """A project under ``tmp_path`` that the engine loads: `policies/deny.yaml` (PROJECT_POLICY) and a
    `hermes-engine.yaml` working in it; with a ``handlers`` package named as given (a handler root),
    empty ``folders``, and `git init` when ``git``. HOME (with ``home_folders``), XDG_STATE_HOME and
    XDG_CONFIG_HOME point under ``tmp_path``: nothing a test does reaches the real ones."""
    home = tmp_path / "home"
    home.mkdir()
    for folder in home_folders:
        (home / folder).mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / name
    (root / "policies").mkdir(parents=True)
    (root / "policies" / "deny.yaml").write_text(PROJECT_POLICY)
    config = "workdir: .\n"
    if handlers is not None:
        (root / handlers).mkdir()
        (root / handlers / "__init__.py").write_text("")
        config += f"handler_roots: [{handlers}]\n"
    for folder in folders:
        (root / folder).mkdir(parents=True)
    (root / "hermes-engine.yaml").write_text(config)
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def guard(
    agent: str,
    root: Path,
    tool: str,
    tool_input: dict[str, Any],
    *,
    cwd: Path | None = None,
    empty: str = "defer",
) -> str:
    """The decision `hermes-engine guard --for AGENT --root ROOT` answers for one pre-tool event
    (the agent's session in ``cwd``, ROOT by default): allow, ask, deny, or ``empty`` for an answer
    that says nothing ("defer": the agent's own rules decide; a red-team test that must not let a
    payload through without a decision reads it as "allow")."""
    event = {
        "hook_event_name": "BeforeTool" if agent == "gemini" else "PreToolUse",
        "session_id": "s1",
        "cwd": str(cwd or root),
        "tool_name": tool,
        "tool_input": tool_input,
    }
    result = CliRunner().invoke(cli, ["guard", "--for", agent, "--root", str(root)], input=json.dumps(event))
    assert result.exit_code == 0, result.stderr
    answer = json.loads(result.stdout)
    if agent == "gemini":
        return str(answer.get("decision", empty if answer == {} else "defer"))
    return str(answer.get("hookSpecificOutput", {}).get("permissionDecision", empty if answer == {} else "defer"))


# How long shell_writes waits for its marker when the payload write was refused (see there).
REFUSED_WAIT = 2.0

# The bound of a real run that must finish (a near miss through the terminal, a payload under a real
# shell, a marker a near miss waits for): generous, since CI's 2-CPU machine may be loaded far past
# what a quiet machine needs (a child pytest once spent 30 s deleting earlier runs' folders at its
# exit), and under pytest-timeout's 300 s for the whole test (pyproject.toml), so that a run past it
# fails as itself (exit code 124), with its output. A run that finishes costs only its own time; a
# refused command never starts.
RUN_SECONDS = 90


def shell_writes(
    engine: Engine, work: Path, home: Path, writes: list[str], marker: str, wait: float = 20, settle: float = 0
) -> list[bool]:
    """Start a background bash through the terminal tool (HOME and cwd temporary), send ``writes``
    with `process write`, then ``marker`` (a line writing ``{done}``); wait up to ``wait`` seconds
    for it to run (every line sent before it ran), and ``settle`` more when it did not. Returns
    which writes were let through.

    When the last write (the payload) was refused, what reached the shell is only the lines before
    it, which each test sends as harmless on their own: the marker is then waited for at most
    ``REFUSED_WAIT`` seconds (a program the earlier lines started may never run the marker, and
    waiting the full ``wait`` for it cost CI minutes)."""
    assert str(home).startswith(str(work.parent))
    assert Path.cwd() == work
    started = engine.call("terminal", {"command": "bash", "background": True}, session_id="s1")
    assert started.ok, started.error
    pid = str(json.loads(started.output)["process_id"])
    sent = []
    for text in writes:
        result = engine.call("process", {"action": "write", "process_id": pid, "input": text}, session_id="s1")
        sent.append(result.ok)
    done = work / "done.txt"
    written = engine.call(
        "process", {"action": "write", "process_id": pid, "input": marker.format(done=done)}, session_id="s1"
    )
    deadline = time.monotonic() + (wait if not writes or sent[-1] else min(wait, REFUSED_WAIT))
    while written.ok and not done.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not done.exists():
        time.sleep(settle)  # the marker was refused or the shell is slow: give the payload line time to run
    engine.call("process", {"action": "kill", "process_id": pid}, session_id="s1")
    return sent


# A tool call as (name, arguments); payloads that delete HOME in each language the session tests run.
Call = tuple[str, dict[str, Any]]
RM_HOME = "rm -rf ~\n"
PY_RM_HOME = "import os, shutil\nshutil.rmtree(os.path.expanduser('~'))\n"
JS_RM_HOME = "require('fs').rmSync(require('os').homedir(), {recursive: true, force: true})\n"


def write_call(path: str, content: str) -> Call:
    """A write_file call (the file tool a caller writes its scripts with)."""
    return ("write_file", {"path": path, "content": content})


def relinked_in_a_forked_child(engine: Engine, command: str, folder: Path, home: Path) -> None:
    """A child of fork() renames ``folder/x`` away, links ``folder/x`` to ``home`` and must see it in
    its own check of ``command``. It shares the parent's open files: were it to read the kernel's
    queue of changes (landing._Watcher), the parent would never see them (the caller checks that)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        code = 1
        try:
            os.rename(folder / "x", folder / "old")
            os.symlink(home, folder / "x")
            code = 0 if engine.check(command).decision != "allow" else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.fixture(params=["watched", "stat"])
def watching(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[bool]:
    """The link walk's two modes, for a module that asks for it (`pytestmark =
    pytest.mark.usefixtures("watching")`): with the kernel's watch (Linux), and with the stat check
    alone (another OS, or a folder that cannot be watched). A watched test runs on a watcher of its
    own, closed after it: the process's watcher keeps what earlier tests of the worker left in it, and
    the [watched] walk tests once failed together in full runs reading it (cause not found: a watcher
    filled to its cap beforehand did not reproduce it)."""
    from engine.policy import landing

    on = request.param == "watched"
    if not on:
        monkeypatch.setattr(landing, "WATCHING", False)
        yield on
        return
    monkeypatch.setattr(landing, "_WATCHER", None)
    monkeypatch.setattr(landing, "_NO_WATCHER", False)
    yield on
    fresh = landing._WATCHER
    if fresh is not None:
        fresh.close()


@pytest.fixture
def listener() -> Iterator[Any]:
    """A TCP server on loopback keeping what it receives (harm.Listener), closed after the test."""
    from tests.redteam.harm import Listener

    server = Listener()
    yield server
    server.close()


@pytest.fixture
def home_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path, Path]]:
    """(engine, home, project) of harm.home_with_project under ``tmp_path`` (the project at ~/p) as the working
    directory, HOME and the engine's state there (test_stop53, test_adv53)."""
    from tests.redteam.harm import home_with_project

    home, project = home_with_project(tmp_path / "guarded")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(project)
    with Engine.load(project) as engine:
        yield engine, home, project


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A loopback HTTP server (module scope) of three files: p.py and p.sh (each deletes ~/notes.txt) and v.json; its
    base URL (test_stop55, test_stop56)."""
    root = tmp_path_factory.mktemp("served")
    (root / "p.py").write_text("import os\nos.remove(os.path.expanduser('~/notes.txt'))\n")
    (root / "p.sh").write_text("rm -f ~/notes.txt\n")
    (root / "v.json").write_text('{"tag": "v1.2.3"}\n')
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
