"""debt50 (stop 50): code written twice, and special cases on shared mechanisms.

The family: no new payload family -- the clean-up of what stop 49 wrote twice, kept honest by tests of the behaviour
each merged piece carries, and two latent bugs found on the way.

Fixed:
- engine/: tar's old-style letters and tree's apart letters are one loop (argv._letters_in_order); the Programs
  examples `globs_unknown` / `sends` one loop (programs._example_loop, the same messages); a file's last line is
  read once (shell.last_line, also evaluate._line_ended's); SessionView.writes_running is _live's sweep; a listing
  of the tree keeps its word (no second search: the `next()` without a default in _listings_made is gone); a copy's
  words are parsed once for its destination and its sources (Program.unpacks_target takes the parse).
- tests/: the helpers test_unseen48/49, test_adv48c/test_bg49 (`_later_call_after`), test_adv48c/test_cfg49
  (`in_home`) and test_adv49b/test_bg49 wrote twice live in tests/redteam/harm.py.
- `_makes_names`'s listers test no longer names `ls` (it never reached it: `ls` makes no name whatever it lists).
- A background call whose process never started (its cwd refused or missing, its runtime or spawn failed) kept its
  Writing marker (`alive` None, "about to start") for the rest of the session: every later listing of the tree
  asked (`rm -f $(find . -name '*.pyc')`: pending approval). The marker is now dropped when the start fails
  (SessionMemory.not_started, from handlers/_runtime); a started process keeps its marker while it runs.

Open: markers are keyed by the command's text: two calls of one command in flight at once share one marker (the
first to start takes it), so a second identical call's writes are not watched, and a failed start of one drops the
marker the other was about to take (pre-existing race, not fixed here).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.argv import parse_argv
from engine.policy.evaluate import _line_ended
from engine.policy.session_memory import SessionMemory, Writing
from engine.policy.shell import _TREE_LISTERS, Analyzer, last_line
from tests.conftest import pure_build_only
from tests.redteam.harm import harm_project, home_intact, policy_project, validated_policy

LISTING = "rm -f $(find . -name '*.pyc')"  # a listing of the tree read from the disk
NEVER_STARTS = [
    pytest.param({"cwd": "nodir"}, id="cwd-missing"),
    pytest.param({"cwd": "/nonexistent/x"}, id="cwd-outside"),
    pytest.param({"cwd": "a.pyc"}, id="cwd-a-file"),
]


def _project(root: Path) -> None:
    """A stale a.pyc (older than the session: not the session's own) and x.sh holding `echo hi`."""
    t = time.time() - 3600
    for name, text in (("a.pyc", "x"), ("x.sh", "echo hi\n")):
        (root / name).write_text(text)
        os.utime(root / name, (t, t))


def _kill(engine: Engine, result: object) -> None:
    output = getattr(result, "output", "")
    if getattr(result, "ok", False) and output:
        engine.call("process", {"action": "kill", "process_id": str(json.loads(output)["process_id"])}, session_id="s")


# -- 4. a background call that never started -------------------------------------------------------------------------
# attacker first: a background process that did start keeps the listing unread while it runs


def test_a_started_background_process_keeps_a_later_listing_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        _project(root)
        started = engine.call("terminal", {"command": "sleep 5; touch made.txt", "background": True}, session_id="s")
        assert started.ok, started.error
        try:
            later = engine.call("terminal", {"command": LISTING}, session_id="s")
            assert not later.ok and (root / "a.pyc").exists(), later
        finally:
            _kill(engine, started)


def test_a_failed_start_does_not_unwatch_the_same_command_started_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer of x.sh whose first call fails to start, then starts: the later `sh x.sh` is not judged by x.sh's
    old text (the live writer's marker is the started call's own)."""
    writer = "for i in $(seq 50); do [ -e go ] && break; sleep 0.1; done; printf 'rm -rf ~/notes.txt\\n' > x.sh"
    with harm_project(tmp_path, monkeypatch) as (engine, home, root):
        _project(root)
        failed = engine.call("terminal", {"command": writer, "background": True, "cwd": "nodir"}, session_id="s")
        assert not failed.ok
        started = engine.call("terminal", {"command": writer, "background": True}, session_id="s")
        assert started.ok, started.error
        try:
            later = engine.call("terminal", {"command": ": > go; sleep 0.5; sh x.sh"}, session_id="s")
            assert not later.ok and home_intact(home), later
        finally:
            (root / "go").touch()
            _kill(engine, started)


@pytest.mark.parametrize("start", NEVER_STARTS)
def test_a_background_call_that_never_started_leaves_later_listings_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: dict[str, str]
) -> None:
    """Before: `Writing(keys={'$background'}, alive=None)` stayed, and the listing was pending approval for the rest
    of the session. Nothing ran (made.txt never appears); the marker is gone and the listing runs."""
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        _project(root)
        failed = engine.call("terminal", {"command": "touch made.txt", "background": True, **start}, session_id="s")
        assert not failed.ok, failed.output
        view = engine.session_memory.view("s", str(root))
        assert not view.files.writing and not view.writes_running()
        later = engine.call("terminal", {"command": LISTING}, session_id="s")
        assert later.ok, later.error
        assert not (root / "a.pyc").exists() and not (root / "made.txt").exists()


def test_a_failed_start_drops_only_a_marker_waiting_for_a_process(tmp_path: Path) -> None:
    """SessionMemory.not_started: a marker with a process handle (started) stays; one without is dropped."""
    memory = SessionMemory()
    files = memory.session("s")
    files.writing["started"] = Writing(frozenset({"x.sh"}), alive=lambda: True)
    files.writing["waiting"] = Writing(frozenset({"y.sh"}))
    memory.not_started("s", "started")
    memory.not_started("s", "waiting")
    assert list(files.writing) == ["started"]
    assert memory.view("s", str(tmp_path)).writes_running()


# -- 1. the merged pieces keep their readings ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    tmp = tmp_path_factory.mktemp("debt50-table")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(tmp))
        mp.setenv("XDG_STATE_HOME", str(tmp / "s"))
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "c"))
        root = tmp / "p"
        root.mkdir()
        (root / "hermes-engine.yaml").write_text("workdir: .\n")
        with Engine.load(root) as engine:
            yield engine._snapshot.policy.programs


@pytest.mark.parametrize(
    ("name", "argv", "options", "operands", "refused"),
    [
        ("tar", ("tar", "cvzf", "A.tar", "DIR"), [("c", None), ("v", None), ("z", None), ("f", "A.tar")], ["DIR"], 0),
        ("tar", ("tar", "cf"), [("c", None)], [], 1),
        ("tree", ("tree", "-oa", "FILE", "DIR"), [("o", "FILE"), ("a", None)], ["DIR"], 0),
        ("tree", ("tree", "-o"), [], [], 1),
    ],
)
def test_letters_in_order_read_tar_and_tree_as_before(
    table: object, name: str, argv: tuple[str, ...], options: list[object], operands: list[str], refused: int
) -> None:
    grammar = table.by_name[name].grammar  # type: ignore[attr-defined]
    parsed = parse_argv(grammar, argv)
    assert [(o[0], o[1]) for o in parsed.options][: len(options)] == options
    assert parsed.operands == operands and parsed.refused == bool(refused)


def test_a_letter_tree_does_not_know_is_read_as_a_flag_and_not_for_certain(table: object) -> None:
    parsed = parse_argv(table.by_name["tree"].grammar, ("tree", "-o\x01", "F"))  # type: ignore[attr-defined]
    assert parsed.unknown and ("\x01", None) in [(o[0], o[1]) for o in parsed.options]


def test_failed_globs_unknown_and_sends_examples_are_each_reported(tmp_path: Path) -> None:
    doc = (
        "kind: Programs\nname: t\nprograms:\n  - program: [mysender]\n    sends: [{verbs: [push]}]\n"
        "    examples:\n      sends: ['mysender pull x']\n      not_sends: ['mysender push x']\n"
        "      globs_unknown: ['ls *.py']\n      not_globs_unknown: ['git checkout B; find . -del*']\n"
    )
    code, printed = validated_policy(tmp_path, "t.yaml", doc)
    assert code == 1 and "4 errors" in printed, printed
    for said in (
        "'mysender pull x' does not send files to another host (its `sends:`)",
        "'mysender push x' sends files to another host (its `sends:`)",
        "'ls *.py' reads no glob of names an earlier command wrote unseen (glob_of_unknown_names)",
        "'git checkout B; find . -del*' reads a glob of names an earlier command wrote unseen",
    ):
        assert said in printed, printed


class _Folder:
    def __init__(self, folder: Path) -> None:
        self._folder = str(folder)

    def folder(self, _cwd: str) -> str:
        return self._folder


@pure_build_only  # (a stand-in View: the compiled _line_ended takes paths.View only)
def test_a_last_line_and_a_line_ended_read_alike(tmp_path: Path) -> None:
    (tmp_path / "ended").write_text("a = 1\n")
    (tmp_path / "open").write_text("a = 1\nscript-shell=")
    (tmp_path / "empty").write_text("")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere" / "x")
    (tmp_path / "long").write_text("x" * 5000)
    view = _Folder(tmp_path)
    wanted = {"ended": ("", True), "open": ("script-shell=", False), "empty": ("", True), "absent": ("", True)}
    wanted |= {"dangling": ("", False), "long": (None, False)}
    for name, (line, ended) in wanted.items():
        assert last_line(str(tmp_path / name)) == line, name
        assert _line_ended(view, None, name) is ended, name  # type: ignore[arg-type]


# -- 3. the listing kept with its word; the listers read by their words ----------------------------------------------
def test_the_listers_read_by_their_words_leave_out_ls() -> None:
    assert "ls" not in _TREE_LISTERS and {"find", "git", "fd"} <= _TREE_LISTERS


@pytest.mark.parametrize(
    ("line", "asked"),
    [
        ("mkdir -p 'x y' && rm -f $(find . -name a.pyc)", True),  # attacker first: a name made before the listing
        ("touch n && ls $(git ls-files)", True),
        ("ls /tmp && rm -f $(find . -name a.pyc)", False),  # ls lists, it makes no name
        ("find . -name b && rm -f $(find . -name a.pyc)", False),
    ],
)
def test_a_listing_is_marked_by_the_word_that_holds_it(table: object, line: str, asked: bool) -> None:
    analyzer = Analyzer(table)  # type: ignore[arg-type]
    analyzer.analyze(line)
    marks = [w for w in analyzer.unread if w.startswith("$unknown_listing:")]
    word = line[line.index("$(") :].split(" && ", maxsplit=1)[0]
    assert marks == ([f"$unknown_listing:{word}"] if asked else []), (line, marks)


# -- 5. the programs that make no name are data ----------------------------------------------------------------------
def test_the_programs_that_make_no_name_are_the_tables(table: object) -> None:
    names = table.makes_no_names  # type: ignore[attr-defined]
    assert {"cd", "echo", "grep", "rm", "xargs", "ls", "["} <= names
    assert not {"mkdir", "touch", "cp", "mv", "tar", "git", "sh", "busybox", "make"} & names  # they make names


def test_a_project_adds_a_program_that_makes_no_name(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A project's `makes_no_names:` adds to the builtin list (its examples run at load): `mytool` makes none."""
    policy = (
        "kind: Programs\nname: mine\nprograms: []\nmakes_no_names:\n  names: [mytool]\n  examples:\n"
        "    not_unknown_listing: ['mytool x && rm -f $(find . -name a.pyc)']\n"
        "    unknown_listing: ['othertool x && rm -f $(find . -name a.pyc)']\n"
    )
    with policy_project(tmp_path_factory, "debt50-names", policy) as (_root, engine):
        assert "mytool" in engine._snapshot.policy.programs.makes_no_names
        assert "cd" in engine._snapshot.policy.programs.makes_no_names
        assert engine.check("mytool x && rm -f $(find . -name a.pyc)").decision == "allow"
        assert engine.check("othertool x && rm -f $(find . -name a.pyc)").decision != "allow"
