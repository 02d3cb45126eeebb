"""Live reload: Engine.reload, the watcher, the dev command, and consistency under load."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from engine.reload.events import ReloadEvent
from tests.conftest import REPO

TOOL = """\
kind: Tool
name: {name}
toolset: {toolset}
description: {description}
handler: rl_handlers:{handler}
parameters:
  type: object
  properties:
    text: {{type: string}}
  required: [text]
"""
HANDLERS = """\
def echo(text: str) -> str:
    return text


def shout(text: str) -> str:
    return text.upper()


def version(text: str, ctx) -> dict:
    return {"generation": ctx.generation, "text": text}
"""


@pytest.fixture
def root(write_project: Callable[..., Path]) -> Path:
    return write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [rl_handlers]\nstate_dir: .state\n",
            "rl_handlers/__init__.py": HANDLERS,
            "toolsets/sets.yaml": "kind: Toolset\nname: main\ndescription: Main.\n---\n"
            "kind: Toolset\nname: extra\ndescription: Extra.\nincludes: [main]\n",
            "manifests/echo.yaml": TOOL.format(name="echo", toolset="main", description="Echo v1.", handler="echo"),
        }
    )


@pytest.fixture
def engine(root: Path) -> Iterator[Engine]:
    engine = Engine.load(root, approve_changes=True)
    yield engine
    engine.close()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_reload_bumps_the_generation_and_reports_the_diff(engine: Engine, root: Path) -> None:
    events: list[ReloadEvent] = []
    engine.on_reload(events.append)
    write(
        root / "manifests/echo.yaml", TOOL.format(name="echo", toolset="main", description="Echo v2.", handler="echo")
    )
    write(
        root / "manifests/shout.yaml", TOOL.format(name="shout", toolset="main", description="Shout.", handler="shout")
    )
    event = engine.reload()
    assert (event.ok, event.old_generation, event.new_generation) == (True, 1, 2)
    assert (event.added, event.changed, event.removed) == (("shout",), ("echo",), ())
    assert event.toolsets_changed == ("extra", "main")
    assert events == [event]
    assert engine.generation == 2
    assert engine.call("shout", {"text": "hi"}).output == "HI"
    assert [d["function"]["description"] for d in engine.definitions()] == ["Echo v2.", "Shout."]
    (root / "manifests/shout.yaml").unlink()
    event = engine.reload()
    assert event.removed == ("shout",) and engine.generation == 3
    assert event.summary().startswith("generation 3: -shout ~toolset:extra ~toolset:main")


@pytest.mark.parametrize(
    "name,files,code",
    [
        ("half-written file", {"manifests/echo.yaml": "kind: Tool\nname: echo\ntoolset: ma"}, "missing-field"),
        ("yaml syntax error", {"manifests/echo.yaml": "kind: Tool\nname: [echo\n"}, "yaml-syntax"),
        (
            "missing handler",
            {"manifests/echo.yaml": TOOL.format(name="echo", toolset="main", description="E.", handler="nowhere")},
            "handler-not-found",
        ),
        (
            "broken template",
            {
                "manifests/echo.yaml": TOOL.format(
                    name="echo", toolset="main", handler="echo", description="'{{ available_tools | nope }}'"
                )
            },
            "template-syntax",
        ),
        (
            "toolset cycle",
            {
                "toolsets/sets.yaml": "kind: Toolset\nname: main\ndescription: M.\nincludes: [extra]\n---\n"
                "kind: Toolset\nname: extra\ndescription: E.\nincludes: [main]\n"
            },
            "toolset-cycle",
        ),
        (
            "deleted toolset still referenced",
            {"toolsets/sets.yaml": "kind: Toolset\nname: extra\ndescription: E.\n"},
            "toolset-unknown",
        ),
    ],
)
def test_a_bad_edit_keeps_the_previous_generation_serving_and_a_fix_recovers(
    engine: Engine, root: Path, name: str, files: dict[str, str], code: str
) -> None:
    originals = {rel: (root / rel).read_text() for rel in files}
    for rel, text in files.items():
        write(root / rel, text)
    event = engine.reload([root / rel for rel in files])
    assert not event.ok, name
    assert event.new_generation == event.old_generation == engine.generation == 1
    assert code in [p.code for p in event.errors]
    assert all(p.line >= 1 and p.file for p in event.errors)
    assert event.as_dict()["event"] == "error"
    assert engine.call("echo", {"text": "still"}).output == "still"
    assert [d["function"]["name"] for d in engine.definitions()] == ["echo"]
    for rel, text in originals.items():
        write(root / rel, text)
    recovered = engine.reload([root / rel for rel in files])
    assert recovered.ok and engine.generation == 2


def test_changed_handler_modules_are_imported_again(engine: Engine, root: Path) -> None:
    assert engine.call("echo", {"text": "a"}).output == "a"
    write(root / "rl_handlers/__init__.py", HANDLERS.replace("    return text\n", "    return 'v2:' + text\n", 1))
    event = engine.reload([root / "rl_handlers/__init__.py"])
    assert event.ok and event.changed == ("echo",)
    assert engine.call("echo", {"text": "a"}).output == "v2:a"


def test_availability_checks_run_again_after_a_reload(
    write_project: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [ck_handlers]\ncheck_ttl: 3600\n",
            "ck_handlers/__init__.py": "import os\n\ndef ok() -> bool:\n    return os.environ.get('CK_FLAG') == '1'\n\n"
            "def run(text: str) -> str:\n    return text\n",
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
            "manifests/m.yaml": "kind: Tool\nname: gated\ntoolset: t\ndescription: G.\nhandler: ck_handlers:run\n"
            "check: ck_handlers:ok\nparameters: {type: object, properties: {text: {type: string}}, required: [text]}\n",
        }
    )
    monkeypatch.delenv("CK_FLAG", raising=False)
    engine = Engine.load(root, approve_changes=True)
    assert engine.definitions() == []
    monkeypatch.setenv("CK_FLAG", "1")
    assert engine.definitions() == []  # cached for an hour...
    engine.reload()
    assert [d["function"]["name"] for d in engine.definitions()] == ["gated"]  # ...but not past a reload


def test_a_listener_that_raises_does_not_stop_the_reload(engine: Engine, root: Path) -> None:
    def broken(event: ReloadEvent) -> None:
        raise RuntimeError("listener bug")

    seen: list[int] = []
    engine.on_reload(broken)
    remove = engine.on_reload(lambda event: seen.append(event.new_generation))
    assert engine.reload().ok and seen == [2]
    remove()
    engine.reload()
    assert seen == [2]


# -- the watcher ------------------------------------------------------------------------


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.005)


@pytest.fixture
def watched(engine: Engine) -> Iterator[tuple[Engine, list[ReloadEvent]]]:
    events: list[ReloadEvent] = []
    engine.on_reload(events.append)
    with engine.watch():
        yield engine, events


def test_watcher_picks_up_an_atomic_rename_save(watched: tuple[Engine, list[ReloadEvent]], root: Path) -> None:
    engine, events = watched
    temp = root / "manifests" / ".echo.yaml.tmp"
    temp.write_text(TOOL.format(name="echo", toolset="main", description="Saved atomically.", handler="echo"))
    os.replace(temp, root / "manifests/echo.yaml")
    wait_for(lambda: engine.generation == 2)
    assert engine.definitions()[0]["function"]["description"] == "Saved atomically."
    assert events[-1].changed == ("echo",)


def test_watcher_sees_deletes_and_new_folders(watched: tuple[Engine, list[ReloadEvent]], root: Path) -> None:
    engine, events = watched
    write(
        root / "manifests/more/shout.yaml", TOOL.format(name="shout", toolset="main", description="S.", handler="shout")
    )
    wait_for(lambda: "shout" in engine.tools)
    (root / "manifests/more/shout.yaml").unlink()
    wait_for(lambda: "shout" not in engine.tools)
    write(root / "policies/project.yaml", "kind: ApprovalPolicy\nmode: manual\n")
    wait_for(lambda: any(e.policies_changed for e in events))


def test_watcher_ignores_editor_temporary_files(watched: tuple[Engine, list[ReloadEvent]], root: Path) -> None:
    engine, events = watched
    for name in (".echo.yaml.swp", "echo.yaml~", ".#echo.yaml", "4913"):
        write(root / "manifests" / name, "not: [yaml")
    # A real change afterwards is the first event: the temporary files caused none.
    write(root / "manifests/echo.yaml", TOOL.format(name="echo", toolset="main", description="Real.", handler="echo"))
    wait_for(lambda: engine.generation >= 2)
    assert events[0].ok and events[0].changed == ("echo",)


def test_a_burst_of_saves_becomes_one_reload(watched: tuple[Engine, list[ReloadEvent]], root: Path) -> None:
    engine, events = watched
    for i in range(8):
        write(
            root / f"manifests/burst_{i}.yaml",
            TOOL.format(name=f"burst_{i}", toolset="main", description="B.", handler="echo"),
        )
    wait_for(lambda: all(f"burst_{i}" in engine.tools for i in range(8)))
    assert len(events) <= 2 and engine.generation <= 3


def test_a_save_between_the_load_and_the_watcher_is_reloaded_when_it_arms(engine: Engine, root: Path) -> None:
    """The load has read the files; the watch is not set up yet: a save then raises no event.
    start() compares with what the load read, so the save is served before it returns."""
    events: list[ReloadEvent] = []
    engine.on_reload(events.append)
    write(root / "manifests/echo.yaml", TOOL.format(name="echo", toolset="main", description="Early.", handler="echo"))
    with engine.watch():
        assert engine.generation == 2  # no waiting: start() reloaded it
        assert engine.definitions()[0]["function"]["description"] == "Early."
        assert [e.changed for e in events] == [("echo",)]


def test_a_save_while_the_watches_are_being_set_up_is_reloaded(engine: Engine, root: Path) -> None:
    """The same window inside start(): each watching thread saves just before its watch exists
    (the seam runs on the thread, right before watchfiles sets the watch up)."""
    watcher = engine.watch()
    saves = iter(
        [
            lambda: write(root / "rl_handlers/__init__.py", HANDLERS.replace("text.upper()", "text.lower() + '!'")),
            lambda: write(
                root / "manifests/shout.yaml",
                TOOL.format(name="shout", toolset="main", description="S.", handler="shout"),
            ),
        ]
    )
    lock = threading.Lock()

    def save() -> None:
        with lock:
            step = next(saves, None)
        if step is not None:
            step()

    watcher._before_arming = save
    with watcher:
        watcher._before_arming = None
        # Both saves are served when start() returns: a new tool, and a handler module imported again.
        assert engine.call("shout", {"text": "Hi"}).output == "hi!"


def test_a_handler_saved_before_a_reload_of_another_file_is_imported_when_the_watch_arms(
    engine: Engine, root: Path
) -> None:
    """A reload names only the files it was told of: a handler module saved before it, and not named,
    is not imported again by it. The watch armed later must still see that module as changed (stop 43:
    the reload's start time hid it, as if the module had been imported after its save)."""
    write(root / "rl_handlers/__init__.py", HANDLERS.replace("    return text\n", "    return text + '?'\n", 1))
    write(root / "manifests/echo.yaml", TOOL.format(name="echo", toolset="main", description="V2.", handler="echo"))
    assert engine.reload([root / "manifests/echo.yaml"]).ok
    assert engine.call("echo", {"text": "a"}).output == "a"  # that reload kept the module it had
    with engine.watch():
        assert engine.call("echo", {"text": "a"}).output == "a?"


def test_arming_waits_for_a_reload_in_progress(engine: Engine, root: Path) -> None:
    """A reload that is still importing when a watch arms: start() compared while the reload had begun
    to read the files, found nothing newer than its start, and returned before the new generation
    was served (stop 43: in CI, a new tool saved while the watches armed was unknown after start())."""
    marker = root / "importing"
    slow = HANDLERS + f"\n\nimport pathlib, time\npathlib.Path({str(marker)!r}).touch()\ntime.sleep(1.5)\n"
    write(root / "rl_handlers/__init__.py", slow)
    shout = write(
        root / "manifests/shout.yaml", TOOL.format(name="shout", toolset="main", description="S.", handler="shout")
    )
    reloading = threading.Thread(target=engine.reload, args=([root / "rl_handlers/__init__.py", shout],))
    reloading.start()
    try:
        wait_for(marker.exists)
        with engine.watch():
            assert engine.call("shout", {"text": "Hi"}).output == "HI"
    finally:
        reloading.join()


def test_arming_a_watcher_on_an_unchanged_project_reloads_nothing(engine: Engine, root: Path) -> None:
    events: list[ReloadEvent] = []
    engine.on_reload(events.append)
    with engine.watch():
        assert engine.generation == 1 and events == []
    # Nor after files were removed and that reload served: what is gone is not "changed" again.
    (root / "hermes-engine.yaml").unlink()
    (root / "manifests/echo.yaml").unlink()
    engine.reload()
    served = engine.generation
    with engine.watch():
        assert engine.generation == served and len(events) == 1


# -- the dev command ------------------------------------------------------------------------


@contextlib.contextmanager
def dev(root: Path, *args: str, stop: int = signal.SIGTERM) -> Iterator[Callable[[], str]]:
    """Run `hermes-engine dev` and yield a reader of its next output line; it must exit 0 when stopped."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "engine", "--root", str(root), "dev", *args]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as proc:
        assert proc.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]

        def line(timeout: float = 20) -> str:
            try:
                return lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"dev printed nothing more within {timeout}s") from None

        try:
            yield line
        finally:
            proc.send_signal(stop)
            try:
                code = proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()  # (else leaving the `with` waits for it without end)
                proc.wait()
                raise AssertionError("dev did not exit within 20 s of its stop signal") from None
            assert code == 0


def test_dev_prints_json_events_and_exits_zero_on_sigterm(root: Path) -> None:
    with dev(root, "--json") as line:
        assert json.loads(line()) == {"event": "ready", "generation": 1, "tools": 1}
        write(root / "manifests/echo.yaml", "kind: Tool\nname: [broken\n")
        error = json.loads(line())
        assert error["event"] == "error" and error["generation"] == 1
        assert error["errors"][0]["code"] == "yaml-syntax" and error["errors"][0]["file"] == "manifests/echo.yaml"
        write(root / "manifests/echo.yaml", TOOL.format(name="echo2", toolset="main", description="E.", handler="echo"))
        reloaded = json.loads(line())
        assert reloaded["event"] == "reloaded" and reloaded["generation"] == 2
        assert (reloaded["added"], reloaded["removed"]) == (["echo2"], ["echo"])
        assert reloaded["ms"] >= 0


def test_dev_reloads_a_save_made_the_moment_ready_is_printed(root: Path) -> None:
    """An editor integration waits for "ready", then saves: that save must not be lost.

    "ready" used to be printed before the watcher was armed (~50-170 ms); a save in that
    window was reloaded only with some later save. Each round saves with no pause at all.
    """
    with dev(root, "--json") as line:
        assert json.loads(line()) == {"event": "ready", "generation": 1, "tools": 1}
        write(root / "manifests/echo.yaml", TOOL.format(name="first", toolset="main", description="F.", handler="echo"))
        reloaded = json.loads(line())
        assert (reloaded["event"], reloaded["generation"], reloaded["added"]) == ("reloaded", 2, ["first"])
        # And again right after that event: each reload leaves the watch armed.
        second = TOOL.format(name="second", toolset="main", description="S.", handler="echo")
        write(root / "manifests/echo.yaml", second)
        reloaded = json.loads(line())
        assert (reloaded["generation"], reloaded["added"], reloaded["removed"]) == (3, ["second"], ["first"])


def test_dev_text_output_shows_one_line_per_event_and_exits_zero_on_ctrl_c(root: Path) -> None:
    with dev(root, stop=signal.SIGINT) as line:
        assert line().startswith("generation 1: ready, 1 tools")
        write(root / "manifests/echo.yaml", TOOL.format(name="echo", toolset="main", description="E2.", handler="echo"))
        event = line()
        assert event.startswith("generation 2: ~echo (") and event.rstrip().endswith("ms)")


def test_dev_exits_zero_on_ctrl_c_when_started_with_sigint_ignored(root: Path) -> None:
    """A shell without job control starts a background job with SIGINT ignored (`nohup cmd &` in a script), and
    a Python child then installs no KeyboardInterrupt handler: dev reads Ctrl-C itself."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the child as the shell's job would
    try:
        with dev(root, stop=signal.SIGINT) as line:
            assert line().startswith("generation 1: ready, 1 tools")
    finally:
        signal.signal(signal.SIGINT, before)


def test_dev_waits_for_a_broken_project_to_be_fixed(root: Path) -> None:
    write(root / "manifests/echo.yaml", "kind: Tool\nname: [broken\n")
    with dev(root, "--json") as line:
        error = json.loads(line())
        assert (error["event"], error["generation"]) == ("error", 0)
        assert error["errors"][0]["code"] == "yaml-syntax"
        # No pause: the error is printed once the watch is armed, so this fix is seen.
        write(root / "manifests/echo.yaml", TOOL.format(name="echo", toolset="main", description="E.", handler="echo"))
        assert json.loads(line()) == {"event": "ready", "generation": 1, "tools": 1}


# -- consistency under load -------------------------------------------------------------------


def test_readers_never_see_a_mixed_generation_during_200_reloads(write_project: Callable[..., Path]) -> None:
    files = {
        "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [rl_handlers]\nstate_dir: .state\n",
        "rl_handlers/__init__.py": HANDLERS,
        "toolsets/sets.yaml": "kind: Toolset\nname: main\ndescription: Main.\n",
    }
    for i in range(5):
        files[f"manifests/t{i}.yaml"] = TOOL.format(name=f"t{i}", toolset="main", description="v0", handler="version")
    root = write_project(files)
    engine = Engine.load(root, approve_changes=True)
    stop = threading.Event()
    failures: list[BaseException] = []
    calls = [0]

    def reader() -> None:
        try:
            while not stop.is_set():
                definitions = engine.definitions("anthropic")
                versions = {d["description"] for d in definitions}
                assert len(versions) == 1, versions  # one generation's descriptions, never a mix
                result = engine.call("t0", {"text": "x"})
                assert result.ok, result.output
                seen = json.loads(result.output)["generation"]
                assert seen == result.metadata.generation  # the handler ran in the generation the call began in
                calls[0] += 1
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(8)]
    for thread in threads:
        thread.start()
    valid = 0
    try:
        for step in range(200):
            if step % 2 == 0:
                valid += 1
                for i in range(5):
                    write(
                        root / f"manifests/t{i}.yaml",
                        TOOL.format(name=f"t{i}", toolset="main", description=f"v{valid}", handler="version"),
                    )
                event = engine.reload([root / f"manifests/t{i}.yaml" for i in range(5)])
                assert event.ok
            else:
                write(root / "manifests/t0.yaml", "kind: Tool\nname: [broken")
                event = engine.reload([root / "manifests/t0.yaml"])
                assert not event.ok
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert failures == []
    assert calls[0] > 0
    assert engine.generation == 101


def test_templates_are_test_rendered_again_when_the_set_of_tools_changes(engine: Engine, root: Path) -> None:
    # Unchanged documents keep their compiled templates only while the render context is the same.
    description = "'Echo.{% if \"shout\" in available_tools %} {{ 1 // 0 }}{% endif %}'"
    write(
        root / "manifests/echo.yaml", TOOL.format(name="echo", toolset="main", description=description, handler="echo")
    )
    assert engine.reload([root / "manifests/echo.yaml"]).ok
    shout = write(
        root / "manifests/shout.yaml", TOOL.format(name="shout", toolset="main", description="Shout.", handler="shout")
    )
    event = engine.reload([shout])
    assert not event.ok
    assert [(p.code, p.file) for p in event.errors] == [("template-render", "manifests/echo.yaml")]
    shout.unlink()
    assert engine.reload([shout]).ok


def test_a_handler_root_removed_from_the_config_unbinds_tools_on_reload(engine: Engine, root: Path) -> None:
    config = root / "hermes-engine.yaml"
    write(config, "include_builtin: false\nhandler_roots: [other_handlers]\nstate_dir: .state\n")
    event = engine.reload([config])
    assert not event.ok
    assert "handler-not-allowed" in [p.code for p in event.errors]
    assert engine.call("echo", {"text": "still"}).output == "still"


def test_a_lower_size_limit_in_the_config_applies_to_unchanged_manifests_on_reload(engine: Engine, root: Path) -> None:
    config = root / "hermes-engine.yaml"
    write(config, "include_builtin: false\nhandler_roots: [rl_handlers]\nstate_dir: .state\nmax_manifest_bytes: 64\n")
    event = engine.reload([config])
    assert not event.ok
    assert [(p.code, p.file) for p in event.errors] == [
        ("file-too-large", "manifests/echo.yaml"),
        ("file-too-large", "toolsets/sets.yaml"),
    ]


# -- robustness: packages, a root that goes away, what dev reports -----------------------------


def test_a_reload_rebinds_a_tool_to_an_unchanged_module_of_a_package_whose_other_module_changed(
    write_project: Callable[..., Path],
) -> None:
    root = write_project(
        {
            "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [rb_pkg]\n",
            "rb_pkg/__init__.py": "",
            "rb_pkg/a.py": "from rb_pkg.b import b as _b\n\ndef a() -> str:\n    return 'a1' + _b()\n",
            "rb_pkg/b.py": "def b() -> str:\n    return 'b'\n",
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
            "manifests/m.yaml": "kind: Tool\nname: x\ntoolset: t\ndescription: X.\nhandler: rb_pkg.a:a\n"
            "parameters: {type: object}\n",
        }
    )
    engine = Engine.load(root, approve_changes=True)
    assert engine.call("x").output == "a1b"
    write(root / "rb_pkg/a.py", "def a() -> str:\n    return 'a2'\n")
    write(root / "manifests/m.yaml", (root / "manifests/m.yaml").read_text().replace("rb_pkg.a:a", "rb_pkg.b:b"))
    event = engine.reload([root / "rb_pkg/a.py", root / "manifests/m.yaml"])
    assert event.ok, [p.format() for p in event.problems]
    assert engine.call("x").output == "b"
    assert sys.modules["rb_pkg"].b is sys.modules["rb_pkg.b"]  # the package is whole again


def test_the_watcher_judges_the_root_itself_relevant(engine: Engine) -> None:
    watcher = engine.watch()
    assert watcher.relevant(engine.root) is True
    assert watcher.relevant(engine.root / "hermes-engine.yaml") is True
    assert watcher.relevant(engine.root.parent) is False


@pytest.mark.parametrize("how", ["rename", "remove"])
def test_the_watcher_survives_the_root_going_away_and_coming_back(
    watched: tuple[Engine, list[ReloadEvent]], root: Path, how: str
) -> None:
    engine, _ = watched
    away = root.with_name(root.name + ".away")
    if how == "rename":
        os.rename(root, away)
    else:
        shutil.copytree(root, away)
        shutil.rmtree(root)
    wait_for(lambda: all(t.is_alive() for t in engine._watchers[0]._threads) and not root.exists())
    if how == "rename":
        os.rename(away, root)
    else:
        shutil.copytree(away, root)
    write(root / "hermes-engine.yaml", (root / "hermes-engine.yaml").read_text() + "check_ttl: 7\n")
    wait_for(lambda: engine.config["check_ttl"] == 7)
    write(root / "manifests/echo.yaml", TOOL.format(name="echo", toolset="main", description="Back.", handler="echo"))
    # Not "the generation moved": the folder watcher, set up again after the root came back,
    # may reload the copied files first (a generation without this save).
    wait_for(lambda: engine.definitions()[0]["function"]["description"] == "Back.")


def test_a_symlink_loop_among_the_manifests_is_a_located_error_not_a_skipped_file(root: Path, runner: Any) -> None:
    from engine.cli import cli

    os.symlink("loop.yaml", root / "manifests/loop.yaml")
    result = runner.invoke(cli, ["validate", "--root", str(root), "--format", "json"])
    assert result.exit_code == 1, result.output
    [error] = json.loads(result.stdout)["errors"]
    assert (error["file"], error["line"], error["code"]) == ("manifests/loop.yaml", 1, "file-unreadable")


def test_dev_reports_every_problem_as_an_error_event_and_never_a_traceback(root: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "engine", "--root", str(root), "dev", "--json"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert json.loads(proc.stdout.readline())["event"] == "ready"
        write(root / "manifests/bad.yaml", "kind: [Tool]\nname: x\n")
        error = json.loads(proc.stdout.readline())
        assert error["event"] == "error"
        assert [(e["file"], e["code"]) for e in error["errors"]] == [("manifests/bad.yaml", "kind-unknown")]
        (root / "manifests/bad.yaml").unlink()
        assert json.loads(proc.stdout.readline())["event"] == "reloaded"
        os.symlink("loop.yaml", root / "manifests/loop.yaml")
        error = json.loads(proc.stdout.readline())
        assert [(e["file"], e["code"]) for e in error["errors"]] == [("manifests/loop.yaml", "file-unreadable")]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert "Traceback" not in proc.stderr.read()
