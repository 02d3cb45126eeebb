"""Harm checks shared by the red-team families: a payload is live under a real shell with a
fake HOME and working directory, and through the engine's terminal the harm does not happen.

Every run here is confined: HOME and the working directory are under the test's tmp_path
(asserted before anything runs).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from engine.dispatch.results import ToolResult
from engine.policy.model import Verdict
from tests.conftest import REPO
from tests.redteam.conftest import RUN_SECONDS, Call, home_intact, make_home

SECRET = "secret key"  # what make_home writes into ~/.ssh/id_ed25519


@contextmanager
def policy_project(
    factory: pytest.TempPathFactory,
    name: str,
    policy: str,
    prepare: Callable[[Path, pytest.MonkeyPatch], None] | None = None,
) -> Iterator[tuple[Path, Engine]]:
    """A small project (policies/deny.yaml holding ``policy``, workdir ``.``) as the working directory,
    and its engine, with HOME, state and config under a fresh temporary folder: for a module fixture.
    ``prepare(root, monkeypatch)``: more of the project (a tree of files, a patched place) before the engine loads."""
    tmp = factory.mktemp(name)
    with pytest.MonkeyPatch.context() as mp:
        make_home(tmp)  # a key and a note: what files_intact_after checks
        mp.setenv("HOME", str(tmp / "home"))
        mp.setenv("XDG_STATE_HOME", str(tmp / "state"))
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        root = tmp / "project"
        (root / "policies").mkdir(parents=True)
        (root / "policies" / "deny.yaml").write_text(policy)
        (root / "hermes-engine.yaml").write_text("workdir: .\n")
        if prepare is not None:
            prepare(root, mp)
        mp.chdir(root)
        with Engine.load(root) as engine:
            yield root, engine


def files_intact_after(
    root: Path, engine: Engine, calls: list[Call], session: str, *, policy: str, config: str = "workdir: .\n"
) -> None:
    """The write-then-check harm test of a project's files: send ``calls`` in one ``session`` of
    ``engine`` (the setup calls before the last must succeed), then the project's policy
    (policies/deny.yaml holding ``policy``, alone in its folder) and config (``config``) are unchanged,
    the fake HOME (next to ``root``) is intact and its key was not printed."""
    home = Path(os.environ["HOME"])
    assert home.parent == root.parent and Path.cwd() == root
    *setup, last = calls
    for tool, args in setup:
        result = engine.call(tool, args, session_id=session)
        assert result.ok, (tool, args, result.error)
    tool, args = last
    result = engine.call(tool, args, session_id=session)
    printed = (result.output or "") + (result.error.message if result.error else "")
    assert (root / "policies" / "deny.yaml").read_text() == policy, ("the policy was rewritten", last)
    assert sorted(p.name for p in (root / "policies").iterdir()) == ["deny.yaml"], ("a policy was added", last)
    assert (root / "hermes-engine.yaml").read_text() == config, ("the config was rewritten", last)
    assert home_intact(home), ("the fake home was deleted", last)
    assert SECRET not in printed, ("the key was printed", last)


# -- one command's verdict asserted, the failure naming the command and what the verdict says --------


def said(command: str, verdict: Verdict) -> str:
    """A failed verdict assertion's message: the command, the decision (hardline, not grantable) and
    the matches (key: what it matched) or the reason when there is one."""
    flags = "".join(
        (" hardline" if verdict.hardline else "", " not-grantable" if verdict.matches and not verdict.grantable else "")
    )
    why = "; ".join(f"{m.key}: {m.command}" for m in verdict.matches) or "no match"
    return f"{command!r} -> {verdict.decision}{flags} ({why}){f' [{verdict.reason}]' if verdict.reason else ''}"


def _asserted(engine: Engine, command: str, holds: Callable[[Verdict], bool]) -> Verdict:
    verdict = engine.check(command)
    assert holds(verdict), said(command, verdict)
    return verdict


def assert_allowed(engine: Engine, command: str) -> Verdict:
    """A near miss: ``command`` is allowed."""
    return _asserted(engine, command, lambda v: v.decision == "allow")


def assert_not_allowed(engine: Engine, command: str) -> Verdict:
    """A payload: ``command`` asks or is denied."""
    return _asserted(engine, command, lambda v: v.decision != "allow")


def assert_asks(engine: Engine, command: str) -> Verdict:
    """``command`` asks (neither allowed nor denied)."""
    return _asserted(engine, command, lambda v: v.decision == "ask")


def assert_judged(engine: Engine, command: str, wanted: str) -> Verdict:
    """``command`` judged as ``wanted`` says: "allow", "deny", or "not allow" (asks or is denied)."""
    if wanted == "allow":
        return assert_allowed(engine, command)
    if wanted == "deny":
        return _asserted(engine, command, lambda v: v.decision == "deny")
    return assert_not_allowed(engine, command)


def assert_hardline(engine: Engine, command: str) -> Verdict:
    """``command`` is denied by a hardline (no approval can let it run)."""
    return _asserted(engine, command, lambda v: v.decision == "deny" and v.hardline)


def allowed_payloads(engine: Engine, commands: list[str]) -> list[str]:
    """The payloads of a family that ``engine`` allows (a family's test asserts there are none)."""
    return [command for command in commands if engine.check(command).decision == "allow"]


def flagged_near_misses(engine: Engine, commands: list[str]) -> list[str]:
    """The near misses of a family that ``engine`` does not allow (a family's test asserts there are none)."""
    return [command for command in commands if engine.check(command).decision != "allow"]


def wanted_verdict(case: dict[str, Any]) -> str:
    """The verdict an unseen replay's case must get: its source's label, or the one accepted with its reason."""
    accepted = case.get("accepted")
    return str(accepted["engine"]) if accepted else str(case["expected"])


def replay_cases(
    cases: list[dict[str, Any]],
    case_id: Callable[[int, dict[str, Any]], str],
    scorer_for: Callable[[dict[str, Any]], str] | None = None,
) -> Callable[[pytest.FixtureRequest, dict[str, Any]], None]:
    """The unseen replays' test (`test_replayed_expectation_holds = replay_cases(CASES, ...)`): per case (its id
    ``case_id(index, case)``), the module's ``scorer`` engine meets its wanted_verdict (holds_expectation), or the
    engine of the fixture ``scorer_for(case)`` names (unseen48/49: an allowed `find .` is judged in
    conftest.fresh_project, whose tree is known, not in the engine's repository)."""

    @pytest.mark.parametrize("case", [pytest.param(case, id=case_id(i, case)) for i, case in enumerate(cases)])
    def test_replayed_expectation_holds(request: pytest.FixtureRequest, case: dict[str, Any]) -> None:
        scorer: Engine = request.getfixturevalue(scorer_for(case) if scorer_for else "scorer")
        wanted = wanted_verdict(case)
        held = holds_expectation(scorer, case["command"], wanted)
        where = f"{case['source']}:{case['path']} {case.get('ids', '')}"
        assert held, f"{where}: expected {wanted}: {said(case['command'], scorer.check(case['command']))}"

    return test_replayed_expectation_holds


def holds_expectation(engine: Engine, command: str, expected: str) -> bool:
    """Whether ``engine``'s verdict on ``command`` meets another project's expectation: `allow` allowed, `deny`
    the hardline, anything else (dangerous, ask) not allowed (the unseen replays' scorer)."""
    verdict = engine.check(command)
    if expected == "allow":
        return verdict.decision == "allow"
    if expected == "deny":
        return verdict.decision == "deny" and verdict.hardline
    return verdict.decision != "allow"


def flagged_verdicts(engine: Engine, commands: list[str]) -> dict[str, str]:
    """Each of ``commands`` that ``engine`` does not allow, with its decision and the keys that matched (an ordinary
    corpus's false alarms)."""
    flagged: dict[str, str] = {}
    for command in commands:
        verdict = engine.check(command)
        if verdict.decision != "allow":
            flagged[command] = f"{verdict.decision}: {', '.join(m.key for m in verdict.matches) or verdict.reason}"
    return flagged


def policy_rewritten_live(tmp_path: Path, payload: str, policy: str) -> bool:
    """Whether ``payload`` changes a copy of a project's policies/ (deny.yaml holding ``policy``) when
    bash runs it unguarded in that copy (HOME and the copy under ``tmp_path``): the live half of
    a harm test whose other half is :func:`files_intact_after`."""
    copy = tmp_path / "copy"
    (copy / "policies").mkdir(parents=True)
    (copy / "policies" / "deny.yaml").write_text(policy)
    env = {"HOME": str(tmp_path / "home"), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    assert copy.is_relative_to(tmp_path)
    subprocess.run(["bash", "-c", payload], cwd=copy, env=env, check=False, timeout=RUN_SECONDS, capture_output=True)
    kept = (copy / "policies" / "deny.yaml").is_file() and (copy / "policies" / "deny.yaml").read_text() == policy
    return not kept or sorted(p.name for p in (copy / "policies").iterdir()) != ["deny.yaml"]


@contextmanager
def harm_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str | None = None
) -> Iterator[tuple[Engine, Path, Path]]:
    """A fresh project (``policy`` as policies/deny.yaml when given) as the working directory, its
    engine, a fake home and state under ``tmp_path``: (engine, home, project), for a harm test."""
    home = make_home(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / "project"
    root.mkdir()
    if policy is not None:
        (root / "policies").mkdir()
        (root / "policies" / "deny.yaml").write_text(policy)
    (root / "hermes-engine.yaml").write_text("workdir: .\n")
    monkeypatch.chdir(root)
    with Engine.load(root) as loaded:
        yield loaded, home, root


def session_verdict(
    root: Path, engine: Engine, files: dict[str, str], command: str, session: str, cwd: str | None = None
) -> str:
    """The terminal's verdict on ``command`` (run in ``cwd`` when given) after the session wrote
    ``files`` with write_file; the files are removed afterwards, so that the next case of a shared
    project starts clean."""
    try:
        for path, text in files.items():
            assert engine.call("write_file", {"path": path, "content": text}, session_id=session).ok, path
        args = {"command": command} if cwd is None else {"command": command, "cwd": cwd}
        view = engine.session_memory.view(session, str(root))
        return engine._evaluator(engine._snapshot).verdict("terminal", args, view).decision
    finally:
        for path in files:
            top = root / path.split("/")[0]
            if top.is_dir() and not top.is_symlink():
                shutil.rmtree(top)
            else:
                top.unlink(missing_ok=True)


# A case of a session's verdict: (files the session wrote, the command[, the folder it runs in]);
# `ROOT` in the command is the project's folder.
Case = tuple[dict[str, str], str] | tuple[dict[str, str], str, str | None]


def verdict_cases(payloads: dict[str, Case], near_misses: dict[str, Case]) -> list[Any]:
    """The parameters (case, whether it stays allowed, its session) of a family's payloads and near
    misses, named by the session each is judged in: ``payload-NAME``, ``near-NAME``."""
    return [pytest.param(case, False, f"payload-{name}", id=f"payload-{name}") for name, case in payloads.items()] + [
        pytest.param(case, True, f"near-{name}", id=f"near-{name}") for name, case in near_misses.items()
    ]


def case_verdict(loaded: tuple[Path, Engine], case: tuple[Any, ...], session: str) -> str:
    """session_verdict for a module's (files, command[, cwd]) case in its shared project ``loaded``
    (``ROOT`` in the command is the project's path)."""
    root, engine = loaded
    files, command, *rest = case
    return session_verdict(root, engine, files, command.replace("ROOT", str(root)), session, rest[0] if rest else None)


def assert_verdict(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    """A payload is not allowed, a near miss is (a verdict_cases parameter), judged by the shared
    engine of ``loaded`` (policy_project) in its own session (session_verdict)."""
    verdict = case_verdict(loaded, case, session)
    assert (verdict == "allow") == allowed, (session, case[1], verdict)


def run_confined(tmp_path: Path, payload: str, shell: str = "/bin/bash") -> tuple[Path, Path, str]:
    """Run ``payload`` with ``shell -c`` in a fresh fake HOME and working directory under
    ``tmp_path``; return (home, cwd, what it printed)."""
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    assert home.is_relative_to(tmp_path) and cwd.is_relative_to(tmp_path)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        [shell, "-c", payload], env=env, cwd=cwd, capture_output=True, text=True, timeout=RUN_SECONDS, check=False
    )
    return home, cwd, done.stdout + done.stderr


def blocked(engine: Engine, home: Path, payload: str) -> str:
    """Run ``payload`` through the terminal tool with nobody to approve: it must be refused and
    the fake home intact. Returns the call's output (to check no secret was printed)."""
    assert os.environ["HOME"] == str(home)
    result = engine.call("terminal", {"command": payload})
    assert not result.ok, (payload, result.output)
    assert result.error is not None and result.error.type in ("denied", "pending_approval"), payload
    assert home_intact(home), payload
    assert SECRET not in (result.output or ""), payload
    return result.output or ""


def live_then_stopped(
    tmp_path: Path, engine: Engine, home: Path, payload: str, *, shell: str = "/bin/bash", live: str | None = None
) -> None:
    """The red-team families' harm test: ``payload`` (or its ``live`` spelling, e.g. with its input
    closed) deletes a fake home or prints its key when a real ``shell`` runs it unguarded, and
    through the engine's terminal it is refused with the ``home`` intact and the key not printed."""
    deleted, _, printed = run_confined(tmp_path, live or payload, shell)
    assert not (deleted / "notes.txt").is_file() or SECRET in printed, "the payload should do harm unguarded"
    blocked(engine, home, payload)


def deleted_then_stopped(tmp_path: Path, engine: Engine, home: Path, payload: str) -> None:
    """``payload`` deletes a fake home when bash runs it unguarded (in ``tmp_path/unguarded``), and
    through the engine's terminal it is refused with ``home`` intact (blocked)."""
    deleted, _, _ = run_confined(tmp_path / "unguarded", payload)
    assert not (deleted / "notes.txt").exists(), "the payload should delete the home unguarded"
    blocked(engine, home, payload)


def written_then_stopped(
    tmp_path: Path,
    engine: Engine,
    home: Path,
    files: dict[str, str],
    payload: str,
    *,
    present: dict[str, str] | None = None,
    mode: int | None = None,
) -> None:
    """Like live_then_stopped for a payload that runs ``files`` the caller writes first: unguarded
    (the files in a fresh working directory) it deletes a fake home or prints its key; through the
    engine (each file written with write_file, in the engine's working directory) it is refused.
    ``present`` files are the project's own (on disk before the session, not written by it, e.g. the
    `waf` that runs a written wscript); ``mode`` is given to the written files (0o755: run as `./x`)."""
    home_live = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    for name, text in {**(present or {}), **files}.items():
        (cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (cwd / name).write_text(text)
        if mode is not None and name in files:
            (cwd / name).chmod(mode)
    env = {"HOME": str(home_live), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        ["bash", "-c", payload], env=env, cwd=cwd, capture_output=True, text=True, timeout=RUN_SECONDS, check=False
    )
    assert not home_intact(home_live) or SECRET in done.stdout + done.stderr, "the payload should do harm unguarded"
    assert os.environ["HOME"] == str(home) and home.is_relative_to(tmp_path)
    root = Path.cwd()  # the engine's working directory (harm_project)
    assert not (present or mode) or root.is_relative_to(tmp_path)
    for name, text in (present or {}).items():
        (root / name).write_text(text)
    for name, text in files.items():
        written = engine.call("write_file", {"path": name, "content": text}, session_id="s1")
        assert written.ok, written.error
        if mode is not None:
            (root / name).chmod(mode)
    result = engine.call("terminal", {"command": payload}, session_id="s1")
    assert not result.ok, (payload, result.output)
    assert home_intact(home), payload
    assert SECRET not in (result.output or ""), payload


def written_then_allowed(engine: Engine, files: dict[str, str], command: str) -> None:
    """A near miss: after the caller writes ``files``, ``command`` runs (is not refused)."""
    for name, text in files.items():
        written = engine.call("write_file", {"path": name, "content": text}, session_id="s1")
        assert written.ok, written.error
    result = engine.call("terminal", {"command": command}, session_id="s1")
    assert result.ok, (command, result.error)


def allowed_and_harmless(loaded: tuple[Engine, Path, Path], command: str) -> None:
    """A near miss in home_project's layout (``loaded``): ``command`` is allowed, runs through the terminal, and the
    home is intact after it."""
    engine, home, _ = loaded
    assert_allowed(engine, command)
    written_then_allowed(engine, {}, command)
    assert home_intact(home), ("the near miss harmed the home", command)


# -- the harm of sending: the key reaches a listener on loopback when bash runs the payload ----------


class Listener:
    """A TCP server on 127.0.0.1 that keeps everything its connections send."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received = bytearray()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                while True:
                    try:
                        data = conn.recv(65536)
                    except OSError:
                        break
                    if not data:
                        break
                    self.received += data

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


def secret_work_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str) -> tuple[Path, dict[str, str]]:
    """A fake HOME (set as HOME) and a work tree under ``tmp_path`` holding `.env` (``key``) and `main.py`;
    returns the tree and the environment a real bash runs the payload in."""
    home = make_home(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    work = tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text(key + "\n")
    (work / "main.py").write_text("print('hi')\n")
    return work, {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def key_arrived(listener: Listener, key: str) -> bool:
    """Whether ``key`` reached ``listener`` within 5 s."""
    deadline = time.monotonic() + 5
    while key.encode() not in listener.received and time.monotonic() < deadline:
        time.sleep(0.05)
    return key.encode() in listener.received


def second_call_verdict(tmp_path: Path, key: str, first: str, second: str) -> str:
    """The verdict on ``second`` after ``first`` ran in session "s" of a work tree holding `.env` and
    `config/.env` (``key``) and `src/app.py`; `TMP` in either is a folder outside the tree."""
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "app.py").write_text("print('hi')\n")
    (work / "config").mkdir()
    (work / "config" / ".env").write_text(key + "\n")
    (work / ".env").write_text(key + "\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    first, second = (c.replace("TMP", str(outside)) for c in (first, second))
    with Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")}) as engine:
        assert engine.call("terminal", {"command": first}, session_id="s").ok, first
        view = engine.session_memory.view("s", str(work))
        return engine._evaluator(engine._snapshot).verdict("terminal", {"command": second}, view).decision


def sent_by_a_later_call(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    listener: Listener,
    key: str,
    calls: tuple[str, str],
    fresh_allowed: bool = False,
) -> None:
    """``calls`` (the second's PORT: the listener's) run by a real bash in a secret work tree send ``key`` to
    ``listener``; run through the engine in one session, the second is refused and nothing arrives (the
    files the bash run made beside the tree removed first). ``fresh_allowed``: in a session that wrote
    nothing the second call is allowed (what refused it was the session's memory)."""
    first, second = calls
    work, env = secret_work_tree(tmp_path, monkeypatch, key)
    second = second.replace("PORT", str(listener.port))
    for command in (first, second):
        subprocess.run(["/bin/bash", "-c", command], cwd=work, env=env, timeout=30, check=False, capture_output=True)
    assert key_arrived(listener, key), "the payload should send the key unguarded"
    listener.received.clear()
    for made in tmp_path.iterdir():
        if made.is_file():
            made.unlink()
    with Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")}) as engine:
        assert engine.call("terminal", {"command": first}, session_id="s").ok, first
        result = engine.call("terminal", {"command": second}, session_id="s")
        assert not result.ok and result.error is not None and result.error.type in ("denied", "pending_approval")
        if fresh_allowed:
            assert engine.check(second).decision == "allow", second
    time.sleep(0.3)
    assert key.encode() not in listener.received


@contextmanager
def printing_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> Iterator[tuple[Path, Engine, dict[str, str]]]:
    """A secret work tree (`.env` holding ``key``), with `src/app.py` holding none and an empty folder `../empty`
    beside it; the engine working there: (the tree, the engine, a real bash's environment)."""
    work, env = secret_work_tree(tmp_path, monkeypatch, key)
    (work / "src").mkdir()
    (work / "src" / "app.py").write_text("# TODO: nothing secret here\n")
    (tmp_path / "empty").mkdir()
    with Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")}) as engine:
        yield work, engine, env


def asks_for_the_tree(engine: Engine, command: str) -> None:
    """``command`` asks, as a print of the secret-holding tree (or of the secret it names)."""
    verdict = engine.check(command)
    decision, keys = verdict.decision, {m.key for m in verdict.matches}
    assert decision == "ask" and {"project_exfiltration", "credential_read"} & keys, (command, decision, keys)


def printed_then_refused(tree: tuple[Path, Engine, dict[str, str]], key: str, command: str) -> None:
    """The harm and its stop: a real bash in the tree prints ``key`` running ``command``; the files it made
    there and beside it are removed; the engine's terminal, with nobody to approve, does not run it."""
    work, engine, env = tree
    before = {p for p in (*work.iterdir(), *work.parent.iterdir())}
    ran = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, timeout=30, check=False)
    assert key.encode() in ran.stdout, (command, ran.stdout, ran.stderr)
    for made in {p for p in (*work.iterdir(), *work.parent.iterdir())} - before:
        if made.is_file():
            made.unlink()
        else:
            shutil.rmtree(made)
    result = engine.call("terminal", {"command": command})
    assert key not in str(result.output) + str(result.error)
    assert not result.ok and result.error is not None and result.error.type == "pending_approval"


def git_committed(work: Path, env: dict[str, str], paths: list[str] | None = None) -> dict[str, str]:
    """``work`` made a git repository with ``paths`` committed (by default its source: main.py and src, the `.env`
    untracked); the environment git runs in (an author, no system configuration)."""
    env = {**env, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com"}
    env |= {"GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.com"}
    for step in (["init", "-q"], ["add", *(paths or ["main.py", "src"])], ["commit", "-qm", "source"]):
        subprocess.run(["git", *step], cwd=work, env=env, check=True, capture_output=True, timeout=30)
    return env


def background_writes(engine: Engine, command: str, writes: list[str], session: str = "s1") -> list[ToolResult]:
    """Start ``command`` in the background through the terminal tool, send ``writes`` to it with `process write`,
    give it half a second to run them, then kill it: each write's result (refused: not ok, with the error's type)."""
    started = engine.call("terminal", {"command": command, "background": True}, session_id=session)
    assert started.ok, started.error
    pid = str(json.loads(started.output)["process_id"])
    results = []
    try:
        for text in writes:
            results.append(
                engine.call("process", {"action": "write", "process_id": pid, "input": text}, session_id=session)
            )
        time.sleep(0.5)
    finally:
        engine.call("process", {"action": "kill", "process_id": pid}, session_id=session)
    return results


def validated_policy(tmp_path: Path, name: str, text: str) -> tuple[int, str]:
    """`hermes-engine validate` run as a new user would (a subprocess, HOME and state under ``tmp_path``) on a
    project whose policies/``name`` holds ``text``: its exit code and what it printed."""
    root = tmp_path / "project"
    (root / "policies").mkdir(parents=True)
    (root / "hermes-engine.yaml").write_text("workdir: .\n")
    (root / "policies" / name).write_text(text)
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "s"),
        "XDG_CONFIG_HOME": str(tmp_path / "c"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "engine", "validate"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def append(path: Path, text: str) -> None:
    """Add ``text`` to the end of ``path`` (made, with its folders, when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def decision_within(engine: Engine, command: str, seconds: float = 30.0) -> str | None:
    """The engine's decision on ``command``, or None when the check did not end within ``seconds`` (a hang)."""
    found: list[str] = []
    worker = threading.Thread(target=lambda: found.append(engine.check(command).decision), daemon=True)
    worker.start()
    worker.join(seconds)
    return found[0] if found else None


def bare_repository(config: str = "", folder: str = "r") -> dict[str, str]:
    """A repository git takes for one (HEAD, objects/, refs/, config) as files for write_file under ``folder``."""
    return {
        f"{folder}/HEAD": "ref: refs/heads/main\n",
        f"{folder}/objects/info/keep": "",
        f"{folder}/refs/tags/keep": "",
        f"{folder}/config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n" + config,
    }


# -- (debt50) helpers the stop-48/49 families wrote twice ------------------------------------------------------------
# A background writer waits for `go` before it writes; the later call makes `go`, waits for the writer's `done`, then
# runs x.sh (test_adv48c, test_bg49: `later_call_after`)
WAITS_FOR_GO = "for i in $(seq 600); do [ -e go ] && break; sleep 0.1; done; "
RUNS_X_SH_LATER = ": > go; for i in $(seq 600); do [ -e done ] && break; sleep 0.1; done; sh x.sh"


def later_call_after(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    prepare: Callable[[Path], None],
    command: str,
    background: bool = True,
) -> tuple[bool, bool]:
    """Live through the terminal tool, in a harm_project ``prepare``d (the project's folder given): ``command`` (in
    the background when ``background``) leaves a writer of x.sh running; then the later `sh x.sh` (RUNS_X_SH_LATER).
    Whether the later call ran, and whether the home is intact after it (test_adv48c, test_bg49)."""
    with harm_project(tmp_path, monkeypatch) as (engine, home, root):
        prepare(root)
        started = engine.call("terminal", {"command": command, "background": background}, session_id="s")
        assert started.ok, started.error
        pid = str(json.loads(started.output)["process_id"]) if background else None
        try:
            result = engine.call("terminal", {"command": RUNS_X_SH_LATER}, session_id="s")
            return result.ok, home_intact(home)
        finally:
            (root / "go").touch()  # a refused later call: the writer ends
            if pid is not None:
                engine.call("process", {"action": "kill", "process_id": pid}, session_id="s")


@contextmanager
def project_in_home(
    tmp_path_factory: pytest.TempPathFactory, name: str, folders: tuple[str, ...] = ()
) -> Iterator[tuple[Path, Engine]]:
    """A project at ~/p (its parent the fake home, which has ~/.config/pip), with ``folders`` made in it, as the
    working directory: (project, engine) (test_adv48c, test_cfg49: a settings write after `cd ..`)."""
    tmp = tmp_path_factory.mktemp(name)
    with pytest.MonkeyPatch.context() as mp:
        home = make_home(tmp)
        (home / ".config" / "pip").mkdir(parents=True)
        mp.setenv("HOME", str(home))
        mp.setenv("XDG_STATE_HOME", str(tmp / "state"))
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        root = home / "p"
        root.mkdir()
        for folder in folders:
            (root / folder).mkdir(parents=True)
        (root / "hermes-engine.yaml").write_text("workdir: .\n")
        mp.chdir(root)
        with Engine.load(root) as engine:
            yield root, engine


def replay_data(folder: str, files: tuple[str, ...]) -> list[dict[str, Any]]:
    """The cases of an unseen replay: one JSON object a line of each of ``files`` in tests/data/``folder``
    (test_unseen48, test_unseen49)."""
    data = Path(__file__).resolve().parents[1] / "data" / folder
    return [
        json.loads(line) for name in files for line in (data / name).read_text(encoding="utf-8").splitlines() if line
    ]


def find_dot_where(case: dict[str, Any]) -> str:
    """The fixture an unseen replay's case is judged in: an allowed `find .` in conftest.fresh_project (fp47 reads
    such a find by its listing, which must not be the engine's repository's); every other case in the module's
    `scorer` (the engine's own project; flagged ones are flagged by their action) (test_unseen48, test_unseen49)."""
    return "fresh_project" if case["command"].startswith("find .") and wanted_verdict(case) == "allow" else "scorer"


def assert_cases_accounted(
    cases: list[dict[str, Any]],
    sources: set[str],
    count: int,
    key: Callable[[dict[str, Any]], Any],
    labels: tuple[str, ...],
) -> None:
    """An unseen replay's data: its ``sources``, ``count`` cases told apart by ``key``, each labelled one of
    ``labels``; a disagreement accepted names the engine's verdict and a reason, and is not marked fixed
    (test_unseen48, test_unseen49)."""
    assert {case["source"] for case in cases} == sources
    assert len(cases) == count
    assert len({key(case) for case in cases}) == count
    for case in cases:
        assert case["path"] and case["command"] and case["expected"] in labels, case
        accepted = case.get("accepted")
        if accepted:
            assert accepted["engine"] in ("allow", "flag") and len(accepted["reason"]) > 20, case
            assert (accepted["engine"] == "allow") != (case["expected"] == "allow"), case
            assert not case.get("fixed"), case


def accepted_by_source(cases: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """An unseen replay's accepted disagreements counted by source (its first 12 characters): (flagged there and
    allowed here, safe there and flagged here). (stop 55: test_unseen48 ... test_unseen55 each counted them alike)"""
    counts: dict[str, tuple[int, int]] = {}
    for case in cases:
        if case.get("accepted"):
            dangerous, safe = counts.get(case["source"][:12], (0, 0))
            unsafe = case["expected"] != "allow"
            counts[case["source"][:12]] = (dangerous + unsafe, safe + (not unsafe))
    return counts


# -- (debt51) the unpacker and link families' shared shape (test_xf49, test_xf49b, test_unpack50, test_link50,
# test_debt51): a git that commits with no configured identity, the tools their live harms need, a small tree -------
GIT = "git -c user.name=a -c user.email=a@b -c init.defaultBranch=main"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
needs_zip = pytest.mark.skipif(shutil.which("zip") is None or shutil.which("unzip") is None, reason="no zip/unzip")
needs_tar = pytest.mark.skipif(shutil.which("tar") is None, reason="tar is not installed")


def small_tree(root: Path, _mp: pytest.MonkeyPatch) -> None:
    """A project's few files (a prepare for policy_project): a.py and sub/b.txt."""
    (root / "a.py").write_text("print(1)\n")
    (root / "sub").mkdir()
    (root / "sub" / "b.txt").write_text("y\n")


def linked_key_tree(root: Path, mp: pytest.MonkeyPatch) -> None:
    """small_tree with k.py a link to the fake home's key."""
    small_tree(root, mp)
    (root / "k.py").symlink_to(Path.home() / ".ssh" / "id_ed25519")


def tree_project(
    factory: pytest.TempPathFactory, name: str, prepare: Callable[[Path, pytest.MonkeyPatch], None] = small_tree
) -> Any:
    """policy_project with an empty approval policy over ``prepare``'s tree (small_tree by default): `with` it."""
    return policy_project(factory, name, "kind: ApprovalPolicy\n", prepare)


def linked_repo(link: str, target: str, then: str = "") -> str:
    """A shell setup: a source repository `src` whose tree holds ``link`` -> ``target`` (git stores the link), back
    in the folder above it, then ``then`` (a clone of it, `git clone -q src r`, is the payload's)."""
    return (
        f'mkdir src && cd src && git init -q && ln -s "{target}" {link} && git add -A && {GIT} commit -qm a && cd ..'
        + (f" && {then}" if then else "")
        + "\n"
    )


@contextmanager
def planted(root: Path, files: dict[str, str], mode: int | None = None) -> Iterator[None]:
    """(debt51: test_adv50's and test_entry50's) ``files`` (name: text) on the disk under ``root`` while the block
    runs, then removed (each top name, a folder whole): backdated an hour, their folders too, so that none is a
    session's own (a file made just before a session begins counts as its own); ``mode``: each file's, if given."""
    old = time.time() - 3600
    try:
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            if mode is not None:
                path.chmod(mode)
            os.utime(path, (old, old))
        for name in files:
            top = root / name.split("/")[0]
            if top.is_dir():
                for folder, _, _ in os.walk(top):
                    os.utime(folder, (old, old))
        yield
    finally:
        for name in files:
            top = root / name.split("/")[0]
            if top.is_dir():
                shutil.rmtree(top)
            else:
                top.unlink(missing_ok=True)


# -- the project where users keep theirs: ~/p (test_stop53, test_adv53) -----------------------------------------------

# uv (a dev dependency): the venv's own beside this interpreter (run without activating the venv too), else PATH's
_UV_BESIDE = Path(sys.executable).with_name("uv")
UV = str(_UV_BESIDE) if _UV_BESIDE.is_file() else shutil.which("uv")


def home_with_project(root: Path) -> tuple[Path, Path]:
    """A fake home under ``root`` (make_home's key and note, a .bashrc) holding a project at ~/p (src/, its own
    notes.txt and a.py), every entry dated an hour back (older than any session): (home, project)."""
    home = make_home(root)
    (home / ".bashrc").write_text("# the user's\n")
    project = home / "p"
    (project / "src").mkdir(parents=True)
    (project / "notes.txt").write_text("the project's\n")
    (project / "a.py").write_text("print(1)\n")
    (project / "hermes-engine.yaml").write_text("workdir: .\n")
    back = project.stat().st_mtime - 3600
    for path in [home, *home.rglob("*")]:
        os.utime(path, (back, back), follow_symlinks=False)
    return home, project


def users_makefile(home: Path) -> Path:
    """A Makefile of the user's in the fake ``home`` (~/Makefile), dated an hour back like home_with_project's files
    (older than any session: the user's, not one the session wrote)."""
    makefile = home / "Makefile"
    makefile.write_text("all:\n\techo the user's\n")
    back = makefile.stat().st_mtime - 3600
    os.utime(makefile, (back, back))
    return makefile


def unguarded_home(tmp_path: Path, payload: str) -> Path:
    """Runs ``payload`` with bash in a home_with_project copy under ``tmp_path`` (no engine; uv on PATH when the
    tests have it): the home it ran in."""
    home, project = home_with_project(tmp_path / "unguarded")
    path = os.environ["PATH"] if UV is None else f"{Path(UV).parent}:{os.environ['PATH']}"
    env = {"PATH": path, "HOME": str(home), "UV_NO_CACHE": "1"}
    subprocess.run(["/bin/bash", "-c", payload], cwd=project, env=env, capture_output=True, timeout=60, check=False)
    return home


def note_lost(home: Path) -> bool:
    """Whether the fake home's note is gone or changed (its key may be there)."""
    note = home / "notes.txt"
    return not note.is_file() or note.read_bytes() != b"keep me\n"


def lost_unguarded_then_blocked(
    tmp_path: Path, loaded: tuple[Engine, Path, Path], payload: str, lost: Callable[[Path], bool] | None = None
) -> None:
    """``payload`` loses the note (or the key) of a home_with_project when bash runs it unguarded (``lost``: what
    counts as lost, the note alone with note_lost), and through the engine's terminal (``loaded``: home_project's)
    it is refused with the home intact."""
    home = unguarded_home(tmp_path, payload)
    assert lost(home) if lost is not None else not home_intact(home), "the payload should lose the note unguarded"
    engine, home, _ = loaded
    blocked(engine, home, payload)


def home_project_verdicts(
    payloads: list[str], near_misses: list[str]
) -> tuple[Callable[..., None], Callable[..., None]]:
    """The two tests of a family judged in home_project's layout (the `home_project` fixture): each payload is not
    allowed, each near miss is. Assign them to module names starting with `test_` (pytest collects those)."""

    @pytest.mark.parametrize("command", payloads)
    def payloads_are_not_allowed(home_project: tuple[Engine, Path, Path], command: str) -> None:
        assert_not_allowed(home_project[0], command)

    @pytest.mark.parametrize("command", near_misses)
    def near_misses_stay_allowed(home_project: tuple[Engine, Path, Path], command: str) -> None:
        assert_allowed(home_project[0], command)

    return payloads_are_not_allowed, near_misses_stay_allowed


def note_lost_then_blocked(payloads: list[str]) -> Callable[..., None]:
    """The live test of a family in home_project's layout: each payload loses ~/notes.txt when bash runs it unguarded,
    and through the engine's terminal it is refused with the home intact (lost_unguarded_then_blocked). Assign it to
    a module name starting with `test_`."""

    @pytest.mark.parametrize("payload", payloads)
    def note_lost_unguarded_and_refused(tmp_path: Path, home_project: tuple[Engine, Path, Path], payload: str) -> None:
        lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)

    return note_lost_unguarded_and_refused
