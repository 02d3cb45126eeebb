"""`validate` from the compiled-project cache: the same report as a fresh load, never a stale or forged one.

A valid project's default load is kept (engine.guard.cache, MAC'd under a key in the user's
config dir); `validate` reports from it while every input file is as it was. Here: an edit
is validated again (its error located), and an entry signed by anyone but the engine --
a tool that can write the state dir, say -- is ignored, whatever report it carries.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine import digests
from engine.cli import cli
from engine.guard import cache

GEMINI_ONLY = """kind: Tool
name: f
toolset: t
description: F.
handler: vc_h:f
parameters:
  type: object
  properties:
    n: {type: integer, multipleOf: 2}
"""


@pytest.fixture(autouse=True)
def _homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        path = tmp_path / f"home-{name.lower()}"
        path.mkdir()
        monkeypatch.setenv(name, str(path))


@pytest.fixture
def warned(tool_project: Callable[[str, str, str], Path]) -> Path:
    """A valid project with one warning (Gemini refuses multipleOf; the config targets Gemini)."""
    root = tool_project("vc_h", "def f(n: int = 0) -> str:\n    return ''\n", GEMINI_ONLY)
    config = root / "hermes-engine.yaml"
    config.write_text(config.read_text() + "targets: [openai, gemini]\n")
    return root


def validate(root: Path, fmt: str = "json") -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["validate", "--root", str(root), "--format", fmt])
    return result.exit_code, result.stdout


def test_a_cached_report_is_the_fresh_report(warned: Path) -> None:
    fresh = {fmt: validate(warned, fmt) for fmt in ("json", "text", "github", "sarif")}
    code, out = fresh["json"]
    assert code == 0
    [warning] = json.loads(out)["warnings"]
    assert (warning["code"], warning["file"], warning["line"]) == ("gemini-incompatible", "manifests/m.yaml", 9)
    report, _ = cache.validated(warned)
    assert report is not None  # the entry was written by the first validate, and is read back
    for fmt, expected in fresh.items():
        assert validate(warned, fmt) == expected


def test_a_warm_validate_loads_nothing(warned: Path) -> None:
    """Served from the entry: the loader (and its YAML, schema and template libraries) is never imported."""
    assert validate(warned)[0] == 0
    probe = (
        "import sys\nfrom engine.cli import main\n"
        "try:\n    main(['validate', '--root', sys.argv[1]])\nexcept SystemExit as exc:\n    code = exc.code\n"
        "heavy = ('engine.compile.loader', 'yaml', 'cerberus', 'jinja2', 'jsonschema_rs', 'engine.policy.model')\n"
        "print(code, ' '.join(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(warned)], capture_output=True, env=os.environ, timeout=120, check=False
    )
    assert done.stdout.decode().splitlines()[-1] == "ok: 1 tools, 1 toolsets, 0 patterns in 2 files, 1 warning"
    assert "gemini-incompatible" in done.stdout.decode()
    assert done.stderr.decode().strip() == "0"


def test_an_edited_file_is_validated_again(warned: Path) -> None:
    assert validate(warned)[0] == 0
    manifest = warned / "manifests" / "m.yaml"
    manifest.write_text(GEMINI_ONLY.replace("description: F.\n", "description: F.\nnot_a_field: 1\n"))
    code, out = validate(warned)
    assert code == 1
    [error] = json.loads(out)["errors"]
    assert (error["file"], error["line"]) == ("manifests/m.yaml", 5)
    assert cache.validated(warned)[0] is None  # no entry for an invalid project
    manifest.write_text(GEMINI_ONLY)
    assert validate(warned)[0] == 0
    # A new file is an input too (the file list is recomputed on every run).
    (warned / "manifests" / "g.yaml").write_text(GEMINI_ONLY.replace("name: f", "name: g"))
    code, out = validate(warned)
    assert code == 0 and json.loads(out)["counts"]["tools"] == 2 and len(json.loads(out)["warnings"]) == 2


def test_an_entry_is_keyed_by_what_was_compiled_not_by_what_is_there_when_it_is_written(warned: Path) -> None:
    """A manifest rewritten between the load and the write of its entry (an editor saving, a tool call
    writing it): the entry holds the old compilation, so it must not be taken for the new content's."""
    root = warned.resolve()
    project, result = cache.build(root, pin="report")
    assert project is not None and result.fingerprints  # the digest of each file as parsed
    manifest = root / "manifests" / "m.yaml"
    manifest.write_text(GEMINI_ONLY.replace("handler: vc_h:f", "handler: vc_h:missing"))
    cache.store(project, result, classes=False)
    assert cache.validated(root)[0] is None  # a miss: the file is not what was compiled
    code, out = validate(root)
    assert code == 1 and json.loads(out)["errors"][0]["code"] == "handler-not-found"
    # Put back as it was parsed, the entry is the right one again (keyed by content, not by time).
    manifest.write_text(GEMINI_ONLY)
    cache.store(project, result, classes=False)
    assert cache.validated(root)[0] is not None


def _forge(path: Path, change: Callable[[dict[str, object]], None]) -> None:
    """Rewrite the entry's header, signed with a key of the forger's own (it cannot read ours)."""
    raw = path.read_bytes()
    signed = raw[len(cache._MAGIC) + 32 :]
    newline = signed.index(b"\n")
    header = json.loads(signed[:newline])
    change(header)
    forged = json.dumps(header, sort_keys=True).encode() + b"\n" + signed[newline + 1 :]
    mac = digests.mac(os.urandom(32), forged)  # the engine's MAC, under a key of the forger's own
    path.write_bytes(cache._MAGIC + mac + forged)


def test_a_forged_entry_is_ignored(warned: Path) -> None:
    assert validate(warned)[0] == 0
    path = cache.cache_path(warned.resolve())
    # A report with the warning dropped.
    _forge(path, lambda header: header["report"].update(problems=[]))  # type: ignore[union-attr]
    code, out = validate(warned)
    assert code == 0 and len(json.loads(out)["warnings"]) == 1
    assert cache.validated(warned)[0] is not None  # the fresh load wrote an authentic entry again
    # A project broken since, with an entry claiming it is valid under the key of its current files.
    manifest = warned / "manifests" / "m.yaml"
    manifest.write_text(GEMINI_ONLY.replace("handler: vc_h:f", "handler: vc_h:missing"))
    packs = cache._packs_of(json.loads(path.read_bytes()[len(cache._MAGIC) + 32 :].split(b"\n", 1)[0]))
    assert packs is not None
    key = cache.project_key(warned.resolve(), packs)
    _forge(path, lambda header: header.update(key=key))
    code, out = validate(warned)
    assert code == 1 and json.loads(out)["errors"]
    # Bytes that are not an entry at all: a miss, never a traceback.
    path.write_bytes(b"garbage")
    assert validate(warned)[0] == 1


def test_options_that_change_the_load_are_never_served_from_the_entry(warned: Path) -> None:
    assert validate(warned)[0] == 0
    result = CliRunner().invoke(cli, ["validate", "--root", str(warned), "--format", "json", "--target", "openai"])
    assert result.exit_code == 0 and json.loads(result.stdout)["warnings"] == []


def test_an_unreadable_input_is_a_located_error_not_a_crash(warned: Path) -> None:
    """Every manifest is hashed before the entry is looked up: one that is a folder or a link loop
    is hashed as such, and the load reports it where it is."""
    assert validate(warned)[0] == 0
    (warned / "manifests" / "folder.yaml").symlink_to(warned / "toolsets")
    (warned / "manifests" / "loop.yaml").symlink_to(warned / "manifests" / "loop.yaml")
    result = CliRunner().invoke(cli, ["validate", "--root", str(warned)])
    assert result.exit_code == 1, result.output
    assert "manifests/folder.yaml:1:1: error[file-unreadable]" in result.stdout
    assert "manifests/loop.yaml:1:1: error[file-unreadable]" in result.stdout
    assert "internal error" not in result.output


def test_the_process_ends_with_its_whole_report_and_its_status(warned: Path) -> None:
    """A one-shot process skips the interpreter's teardown: its output is still flushed, its status kept."""
    (warned / "manifests" / "m.yaml").write_text(GEMINI_ONLY.replace("name: f", "name: 'bad name'"))
    for _ in range(2):  # nothing cached for an invalid project: both load it
        done = subprocess.run(
            [sys.executable, "-m", "engine", "validate", "--root", str(warned), "--format", "json"],
            capture_output=True,
            env=os.environ,
            timeout=120,
            check=False,
        )
        assert done.returncode == 1, done.stderr
        assert json.loads(done.stdout)["errors"][0]["file"] == "manifests/m.yaml"
    (warned / "manifests" / "m.yaml").write_text(GEMINI_ONLY)
    for _ in range(2):  # a fresh load, then the entry
        done = subprocess.run(
            [sys.executable, "-m", "engine", "validate", "--root", str(warned), "--format", "sarif"],
            capture_output=True,
            env=os.environ,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert len(json.loads(done.stdout)["runs"][0]["results"]) == 1


def test_an_entry_validate_wrote_serves_check_and_is_completed_once(warned: Path) -> None:
    """validate leaves the compiled path classes out; the first check compiles them and rewrites the
    entry, which still answers validate with the same report."""
    assert validate(warned)[0] == 0
    path = cache.cache_path(warned.resolve())
    assert path.exists()
    result = CliRunner().invoke(cli, ["check", "--root", str(warned), "cat /etc/hostname"])
    assert result.exit_code == 0 and result.stdout.startswith("allow"), result.output
    project, _ = cache.load_project(warned)
    assert project is not None and project.from_cache and project.classes
    report, _ = cache.validated(warned)
    assert report is not None and [w.code for w in report.warnings] == ["gemini-incompatible"]


def test_the_short_exit_still_runs_what_was_registered_to_run_at_exit(
    tool_project: Callable[[str, str, str], Path], tmp_path: Path
) -> None:
    """Only the interpreter's teardown is skipped: an atexit function (here one a handler module
    registers when the load imports it) still runs."""
    marker = tmp_path / "ran-at-exit"
    handlers = (
        f"import atexit\natexit.register(lambda: open({str(marker)!r}, 'w').close())\n"
        "def f(n: int = 0) -> str:\n    return ''\n"
    )
    root = tool_project("vc_h", handlers, GEMINI_ONLY)
    done = subprocess.run(
        [sys.executable, "-m", "engine", "validate", "--root", str(root)],
        capture_output=True,
        env=os.environ,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert marker.exists()


def test_a_module_a_handler_imports_is_an_input_too(tool_project: Callable[[str, str, str], Path]) -> None:
    """A helper module beside the handler package is importable only as a handler root of its own (the
    project root is never on sys.path: a module written there must not shadow anything); then it is an
    input like the others: its edit is a miss."""
    handlers = "import vc_util\n\ndef f(n: int = vc_util.DEFAULT) -> str:\n    return ''\n"
    root = tool_project("vc_h", handlers, GEMINI_ONLY)
    helper = root / "vc_util.py"
    helper.write_text("DEFAULT = 0\n")
    code, out = validate(root)
    assert code == 1
    [error] = json.loads(out)["errors"]
    assert error["code"] == "handler-import-failed" and "vc_util" in error["message"]
    config = root / "hermes-engine.yaml"
    config.write_text(config.read_text().replace("handler_roots: [vc_h]", "handler_roots: [vc_h, vc_util]"))
    assert validate(root)[0] == 0
    assert cache.validated(root)[0] is not None
    helper.write_text("DEFAULT = 2\n")  # an edit: a miss (the load finds nothing wrong with it)
    assert cache.validated(root)[0] is None
    assert validate(root)[0] == 0


def _plain(root: Path, *options: str) -> tuple[int, str, bool]:
    """``validate`` as the program runs it (engine.cli.main): exit code, output, whether click was imported."""
    probe = (
        "import sys\nfrom engine.cli import main\n"
        "try:\n    main(['validate', '--root', *sys.argv[1:]])\nexcept SystemExit as exc:\n    code = exc.code\n"
        "print(code, 'click' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(root), *options], capture_output=True, text=True, timeout=120, check=False
    )
    code, clicked = done.stderr.split()[-2:]
    return int(code), done.stdout, clicked == "True"


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_a_plain_validate_runs_without_click_and_reports_as_the_full_command_line(warned: Path, fmt: str) -> None:
    manifest = warned / "manifests" / "m.yaml"
    manifest.write_text(GEMINI_ONLY.replace("description: F.\n", "description: F.\nnot_a_field: 1\n"))
    for state in ("invalid", "valid, cold", "valid, warm"):
        if state == "valid, cold":
            manifest.write_text(GEMINI_ONLY)
        code, out, clicked = _plain(warned, "--format", fmt)
        assert (code, out, clicked) == (*validate(warned, fmt), False), state
        assert code == (1 if state == "invalid" else 0)
    # Any other shape is the full command line's, as ever.
    assert _plain(warned, "--format", "xml")[0] == 2
    code, out, clicked = _plain(warned, "--target", "gemini")
    assert clicked and code == 0 and "gemini-incompatible" in out


def test_a_package_installed_is_a_miss_a_bytecode_folder_is_not(
    warned: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key holds the names of each site-packages folder: a package added there (which a handler
    may import) is validated again; the first import of a one-file module there, which makes
    ``__pycache__``, and pip's ``~name`` work folders are not a change of what is installed."""
    site = tmp_path / "lib" / "site-packages"
    site.mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))
    assert validate(warned)[0] == 0
    assert cache.validated(warned)[0] is not None
    (site / "__pycache__").mkdir()
    (site / "~ip-0.1.dist-info").mkdir()
    assert cache.validated(warned)[0] is not None  # still the entry
    (site / "vc_extra").mkdir()
    assert cache.validated(warned)[0] is None  # a package installed: the entry no longer holds
    assert validate(warned)[0] == 0
    assert cache.validated(warned)[0] is not None
