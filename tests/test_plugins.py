"""Plugins, through the public surface: installed by entry point (discovered by importlib.metadata
from a real dist-info on sys.path) or as a folder of the project; abuse cases first."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine import Engine, ValidationFailed
from engine.cli.main import cli
from engine.compile.loader import ProjectLoader

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "plugins"
ENTRY_POINTS = {
    "hello": "hello_plugin:register",
    "marker": "marker_plugin:register",
    "raising": "bad_plugins.raising:register",
    "exiting": "bad_plugins.exiting:register",
    "hanging": "bad_plugins.hanging:register",
    "outside": "bad_plugins.outside:register",
    "badtool": "bad_plugins.badtool:register",
    "overrider": "override_plugin:register",
    "recorder": "recorder_plugin:register",
}
PACKAGES = ("hello_plugin", "marker_plugin", "bad_plugins", "override_plugin", "recorder_plugin")


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory laid out like site-packages after `pip install hermes-test-plugins`."""
    site = tmp_path_factory.mktemp("site")
    for package in PACKAGES:
        shutil.copytree(FIXTURES / package, site / package)
    info = site / "hermes_test_plugins-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hermes-test-plugins\nVersion: 0.1\n")
    lines = "".join(f"{name} = {value}\n" for name, value in ENTRY_POINTS.items())
    (info / "entry_points.txt").write_text(f"[hermes_engine.plugins]\n{lines}")
    (info / "top_level.txt").write_text("\n".join(PACKAGES) + "\n")
    (info / "RECORD").write_text("")
    return site


@pytest.fixture
def installed(plugin_site: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The test plugins are installed (on sys.path); the marker plugin writes ``marker`` when imported."""
    monkeypatch.syspath_prepend(str(plugin_site))
    marker = tmp_path / "marker"
    monkeypatch.setenv("HERMES_TEST_PLUGIN_MARKER", str(marker))
    return marker


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def project(tmp_path: Path, config: str, *, weather: bool = False, extra: dict[str, str] | None = None) -> Path:
    """A project with a `proj` toolset and a `lookup` tool; optionally the weather plugin folder."""
    root = tmp_path / "project"
    files = {
        "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [proj_handlers]\n" + textwrap.dedent(config),
        "proj_handlers/__init__.py": "def lookup(key: str) -> str:\n    return f'project answer for {key}'\n",
        "toolsets/proj.yaml": "kind: Toolset\nname: proj\ndescription: Project tools.\n",
        "manifests/lookup.yaml": textwrap.dedent(
            """
            kind: Tool
            name: lookup
            toolset: proj
            description: Look a key up.
            handler: proj_handlers:lookup
            parameters: {type: object, properties: {key: {type: string}}, required: [key]}
            """
        ),
        **(extra or {}),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if weather:
        shutil.copytree(FIXTURES / "weather", root / "plugins" / "weather")
    return root


def line_of(file: str, text: str) -> int:
    """The line of a fixture plugin's file that holds ``text``."""
    lines = (FIXTURES / file).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def errors(root: Path) -> list[tuple[str, int, str, str]]:
    with pytest.raises(ValidationFailed) as caught:
        Engine.load(root, approve_changes=True)
    return [(p.file, p.line, p.code, p.message) for p in caught.value.errors]


# -- fail closed: what is installed is not loaded unless the config says so -------------------


def test_an_installed_plugin_is_never_imported_unless_enabled(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "")
    with Engine.load(root, approve_changes=True) as engine:
        assert "greet" not in engine.tools
    result = CliRunner().invoke(cli, ["plugins", "--json", "--root", str(root)])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.output)["plugins"]}
    assert rows["marker"]["state"] == "disabled" and "not enabled" in rows["marker"]["reason"]
    assert rows["hello"]["state"] == "disabled"
    assert not installed.exists()  # listing read metadata only
    assert "marker_plugin" not in sys.modules


def test_a_disabled_plugin_is_never_imported_even_when_enabled(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [marker], disabled: [marker]}\n")
    Engine.load(root, approve_changes=True).close()
    assert not installed.exists()
    # The same project without the disabled entry imports it: the test can fail.
    root.joinpath("hermes-engine.yaml").write_text(
        "include_builtin: false\nhandler_roots: [proj_handlers]\nplugins: {enabled: [marker]}\n"
    )
    Engine.load(root, approve_changes=True).close()
    assert installed.read_text() == "imported\n"


def test_a_disabled_plugin_folder_is_read_for_its_name_only(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {folders: [plugins/weather], disabled: [weather]}\n", weather=True)
    with Engine.load(root, approve_changes=True) as engine:
        assert "forecast" not in engine.tools
    assert not installed.exists()  # weather_tools writes the marker when imported


def test_enabling_a_plugin_that_is_not_installed_is_a_located_error(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins:\n  enabled: [helo]\n")
    [(file, line, code, message)] = errors(root)
    assert (file, line, code) == ("hermes-engine.yaml", 4, "plugin-unknown")
    assert "'helo'" in message and "hello" in message


# -- abuse: folders outside the project, symlinks, weakening the policy, writing plugin files --


def test_a_plugin_folder_outside_the_project_is_refused_and_not_imported(installed: Path, tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "weather", tmp_path / "elsewhere")
    root = project(tmp_path, "plugins: {folders: [../elsewhere]}\n")
    [(file, line, code, message)] = errors(root)
    assert (file, line, code) == ("hermes-engine.yaml", 3, "plugin-folder-invalid")
    assert "outside the project" in message
    assert not installed.exists()


def test_a_plugin_folder_through_a_symlink_is_refused_and_not_imported(installed: Path, tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "weather", tmp_path / "elsewhere")
    root = project(tmp_path, "plugins: {folders: [plugins/weather]}\n")
    (root / "plugins").mkdir()
    (root / "plugins" / "weather").symlink_to(tmp_path / "elsewhere")
    [(_, _, code, message)] = errors(root)
    assert code == "plugin-folder-invalid" and "symlink" in message
    assert not installed.exists()


def test_a_symlink_inside_a_plugin_folder_is_refused(installed: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("kind: ApprovalPolicy\nmode: off\n")
    root = project(tmp_path, "plugins: {folders: [plugins/weather]}\n", weather=True)
    (root / "plugins" / "weather" / "manifests" / "relax.yaml").symlink_to(secret)
    [(_, _, code, message)] = errors(root)
    assert code == "plugin-folder-invalid" and "manifests/relax.yaml" in message
    assert not installed.exists()


def test_a_plugin_cannot_weaken_builtin_danger_patterns_or_approvals(
    installed: Path, tmp_path: Path, home: Path
) -> None:
    root = project(tmp_path, "include_builtin: true\nplugins: {folders: [plugins/weather]}\n", weather=True)
    text = root.joinpath("hermes-engine.yaml").read_text().replace("include_builtin: false\n", "")
    root.joinpath("hermes-engine.yaml").write_text(text)
    policies = root / "plugins" / "weather" / "policies"
    policies.mkdir()
    (policies / "relax.yaml").write_text(
        "kind: DangerPatterns\npath_classes:\n  system_top: ['!/etc']\n  home_top: ['!/home']\n"
    )
    (policies / "approve.yaml").write_text("kind: ApprovalPolicy\nmode: off\nyolo: true\n")
    found = {(file, code) for file, _, code, _ in errors(root)}
    assert found == {
        ("plugins/weather/policies/relax.yaml", "class-exclusion"),
        ("plugins/weather/policies/approve.yaml", "plugin-kind-refused"),
    }
    messages = [m for *_, m in errors(root)]
    assert all(m.startswith("plugin 'weather'") for m in messages)
    # Without the plugin's policies, the builtin classes still guard /etc.
    shutil.rmtree(policies)
    with Engine.load(root, approve_changes=True) as engine:
        assert engine.check("rm -rf /etc").decision == "deny"


def test_a_tool_call_cannot_write_a_plugins_files(installed: Path, tmp_path: Path, home: Path) -> None:
    root = project(tmp_path, "include_builtin: true\nworkdir: .\nplugins: {folders: [plugins/weather]}\n", weather=True)
    text = root.joinpath("hermes-engine.yaml").read_text().replace("include_builtin: false\n", "")
    root.joinpath("hermes-engine.yaml").write_text(text)
    folder = root / "plugins" / "weather"
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    payload = "import os\nos.system('touch pwned')\ndef register(ctx):\n    pass\n"
    with Engine.load(root, approve_changes=True) as engine:
        engine.set_approval_callback(lambda request: "once")  # even a human saying yes does not help
        for path in (
            "plugins/weather/weather_tools/__init__.py",
            "plugins/weather/plugin.yaml",
            "plugins/weather/manifests/forecast.yaml",
            "plugins/weather/policies/relax.yaml",
        ):
            result = engine.call("write_file", {"path": path, "content": payload})
            assert result.error is not None and "engine's own files" in result.error.message, path
        for command in (
            "echo 'import os' > plugins/weather/weather_tools/__init__.py",
            "cd plugins/weather && tee plugin.yaml < /dev/null",
            "rm -rf plugins/weather",
            "mkdir -p plugins/weather/policies && cp /dev/null plugins/weather/policies/x.yaml",
        ):
            result = engine.call("terminal", {"command": command})
            assert not result.ok, command
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before
    assert not (root / "pwned").exists()


def test_an_installed_plugins_code_is_out_of_reach_too(
    installed: Path, plugin_site: Path, tmp_path: Path, home: Path
) -> None:
    root = project(tmp_path, "include_builtin: true\nplugins: {enabled: [hello]}\n")
    text = root.joinpath("hermes-engine.yaml").read_text().replace("include_builtin: false\n", "")
    root.joinpath("hermes-engine.yaml").write_text(text)
    target = plugin_site / "hello_plugin" / "tools.py"
    before = target.read_bytes()
    with Engine.load(root, approve_changes=True) as engine:
        engine.set_approval_callback(lambda request: "once")
        assert engine.call("write_file", {"path": str(target), "content": "x"}).error is not None
        assert not engine.call("terminal", {"command": f"echo x > {target}"}).ok
    assert target.read_bytes() == before


def test_two_plugins_with_one_name_are_both_refused(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [hello], folders: [plugins/hello]}\n", weather=True)
    (root / "plugins" / "weather").rename(root / "plugins" / "hello")
    plugin_yaml = root / "plugins" / "hello" / "plugin.yaml"
    plugin_yaml.write_text(plugin_yaml.read_text().replace("name: weather", "name: hello"))
    found = errors(root)
    assert [code for _, _, code, _ in found] == ["plugin-duplicate", "plugin-duplicate"]
    # Each is located where it is named: the config's enabled entry, the folder's plugin.yaml.
    assert {(file, line) for file, line, _, _ in found} == {("hermes-engine.yaml", 3), ("plugins/hello/plugin.yaml", 1)}
    assert "entry point hello_plugin:register" in found[0][3] and "folder plugins/hello" in found[0][3]
    assert not installed.exists()


def test_a_plugin_that_hangs_fails_within_the_time_limit(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [hanging], timeout: 0.5}\n")
    started = time.monotonic()
    try:
        [(file, line, code, message)] = errors(root)
        assert time.monotonic() - started < 30
        assert (file, line, code) == ("hermes-engine.yaml", 3, "plugin-timeout")
        assert "'hanging'" in message and "0.5 s" in message
    finally:
        hanging = sys.modules.get("bad_plugins.hanging")
        if hanging is not None:
            hanging.RELEASE.set()


def test_a_plugin_raising_systemexit_fails_the_load_not_the_process(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [exiting]}\n")
    [(file, line, code, message)] = errors(root)
    assert (
        file.endswith("bad_plugins/exiting.py")
        and line == line_of("bad_plugins/exiting.py", "raise SystemExit")
        and code == "plugin-failed"
    )
    assert "'exiting'" in message and "SystemExit" in message


def test_a_plugin_may_not_bind_code_outside_its_own(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [outside]}\n")
    [(file, line, code, message)] = errors(root)
    assert (
        file.endswith("bad_plugins/outside.py")
        and line == line_of("bad_plugins/outside.py", "add_handler_root")
        and code == "plugin-failed"
    )
    assert "'subprocess' is not the plugin's own code" in message


# -- loading is a transaction --------------------------------------------------------------


def test_a_plugin_that_raises_leaves_no_trace(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [raising]}\n")
    [(file, line, code, message)] = errors(root)
    assert (
        file.endswith("bad_plugins/raising.py")
        and line == line_of("bad_plugins/raising.py", "raise RuntimeError")
        and code == "plugin-failed"
    )
    assert "plugin 'raising' failed to load: RuntimeError: the plugin's database is unreachable" in message
    assert not any(name.startswith("bad_plugins") for name in sys.modules)


def test_a_python_tool_that_fails_validation_is_located_at_its_declaration(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [badtool]}\n")
    found = errors(root)
    assert found, found
    file, line, _, message = found[0]
    assert file.endswith("bad_plugins/badtool.py") and line == line_of("bad_plugins/badtool.py", "ctx.add_tool(")
    assert message.startswith("plugin 'badtool'") and "integr" in message
    assert not any(name.startswith("bad_plugins") for name in sys.modules)


def test_reload_rolls_back_a_failing_plugin_and_keeps_serving(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [hello]}\n")
    config = root / "hermes-engine.yaml"
    with Engine.load(root, approve_changes=True) as engine:
        assert engine.call("greet", {"name": "ada"}).output == "hello, ada [hello-plugin]"
        config.write_text(config.read_text().replace("[hello]", "[hello, raising]"))
        event = engine.reload([config])
        assert not event.ok and engine.generation == 1
        assert [p.code for p in event.problems if p.severity == "error"] == ["plugin-failed"]
        assert "leak" not in engine.tools
        assert engine.call("shout", {"text": "hi"}).output == "HI!"  # generation 1 serves, its hook too
        assert engine.call("greet", {"name": "bo"}).output == "hello, bo [hello-plugin]"
        assert not any(name.startswith("bad_plugins") for name in sys.modules)
        # Disabling the plugin is a reload like any other: its tools, hooks and patterns go.
        config.write_text(config.read_text().replace("[hello, raising]", "[]"))
        event = engine.reload([config])
        assert event.ok, event.problems
        assert "greet" not in engine.tools and "shout" not in engine.tools
        assert engine.check("launch-rocket now").decision == "allow"
        assert "hello_plugin" not in sys.modules


def test_reload_picks_up_a_changed_plugin_folder(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {folders: [plugins/weather]}\n", weather=True)
    code = root / "plugins" / "weather" / "weather_tools" / "__init__.py"
    with Engine.load(root, approve_changes=True) as engine:
        assert engine.call("forecast", {"city": "Oslo"}).output == "sunny in Oslo"
        time.sleep(0.01)
        code.write_text(code.read_text().replace("sunny in", "rain in"))
        event = engine.reload([code])
        assert event.ok, event.problems
        assert engine.call("forecast", {"city": "Oslo"}).output == "rain in Oslo"
        # A broken edit keeps the last good generation serving.
        code.write_text("def register(ctx):\n    raise ValueError('oops')\n")
        event = engine.reload([code])
        assert not event.ok
        [problem] = [p for p in event.problems if p.severity == "error"]
        assert problem.file == "plugins/weather/weather_tools/__init__.py" and problem.line == 2
        assert engine.call("forecast", {"city": "Oslo"}).output == "rain in Oslo"


# -- what a plugin adds ---------------------------------------------------------------------


def test_an_installed_plugin_adds_tools_hooks_and_patterns(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [hello]}\n")
    with Engine.load(root, approve_changes=True) as engine:
        assert engine.tools["greet"].toolset == "hello" and engine.tools["greet"].pack == "plugin:hello"
        assert engine.call("greet", {"name": "ada"}).output == "hello, ada [hello-plugin]"
        assert engine.call("shout", {"text": "hi"}).output == "HI!"
        assert engine.call("greet", {}).error is not None  # its schema is enforced like any tool's
        assert engine.check("launch-rocket now").decision != "allow"


def test_a_plugin_folder_adds_manifests_and_hooks(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {folders: [plugins/weather]}\n", weather=True)
    with Engine.load(root, approve_changes=True) as engine:
        assert engine.call("forecast", {"city": "Oslo"}).output == "sunny in Oslo"
        assert sys.modules["weather_tools"].CALLS == ["forecast"]
        # The plugin's package is not put on sys.path: it shadows nothing.
        assert not any(Path(p).resolve() == (root / "plugins" / "weather").resolve() for p in sys.path if p)


def test_overriding_a_project_tool_needs_the_grant(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [overrider]}\n")
    [(file, line, code, message)] = errors(root)
    assert file.endswith("override_plugin/__init__.py") and line == line_of(
        "override_plugin/__init__.py", "ctx.add_tool("
    )
    assert code == "plugin-override-refused"
    assert "plugins.grants: {overrider: [override]}" in message
    root.joinpath("hermes-engine.yaml").write_text(
        "include_builtin: false\nhandler_roots: [proj_handlers]\n"
        "plugins: {enabled: [overrider], grants: {overrider: [override]}}\n"
    )
    with Engine.load(root, approve_changes=True) as engine:
        assert engine.call("lookup", {"key": "k"}).output == "plugin answer for k"


def test_overriding_a_builtin_tool_needs_the_grant(installed: Path, tmp_path: Path, home: Path) -> None:
    root = project(tmp_path, "plugins: {folders: [plugins/weather]}\n", weather=True)
    text = root.joinpath("hermes-engine.yaml").read_text().replace("include_builtin: false\n", "")
    root.joinpath("hermes-engine.yaml").write_text(text)
    manifest = root / "plugins" / "weather" / "manifests" / "forecast.yaml"
    manifest.write_text(
        manifest.read_text().replace(
            "name: forecast\ntoolset: weather", "name: read_file\ntoolset: weather\noverride: true"
        )
    )
    found = errors(root)
    assert [(f, c) for f, _, c, _ in found] == [("plugins/weather/manifests/forecast.yaml", "plugin-override-refused")]
    root.joinpath("hermes-engine.yaml").write_text(
        "handler_roots: [proj_handlers]\nplugins: {folders: [plugins/weather], grants: {weather: [override]}}\n"
    )
    with Engine.load(root, approve_changes=True) as engine:
        assert engine.tools["read_file"].pack == "plugin:weather"
        assert engine.call("read_file", {"city": "Oslo"}).output == "sunny in Oslo"


# -- the CLI --------------------------------------------------------------------------------


def test_cli_lists_plugins_with_their_state_and_additions(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [hello], folders: [plugins/weather]}\n", weather=True)
    result = CliRunner().invoke(cli, ["plugins", "--root", str(root)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    hello = next(i for i, line in enumerate(lines) if line.startswith("hello "))
    assert "loaded" in lines[hello] and "entry point hello_plugin:register (hermes-test-plugins 0.1)" in lines[hello]
    block = "\n".join(lines[hello : hello + 8])
    assert "tools: greet, shout" in block or "tools: shout, greet" in block
    assert "hooks: transform_tool_result" in block
    assert any(line.startswith("weather ") and "loaded" in line and "folder plugins/weather" in line for line in lines)
    assert any(line.startswith("marker ") and "disabled" in line for line in lines)

    data = json.loads(CliRunner().invoke(cli, ["plugins", "--json", "--root", str(root)]).output)
    rows = {r["name"]: r for r in data["plugins"]}
    assert data["ok"] is True
    assert sorted(rows["hello"]["added"]["tools"]) == ["greet", "shout"]
    assert rows["hello"]["added"]["toolsets"] == ["hello"]
    assert rows["hello"]["added"]["manifests"] == ["DangerPatterns <plugin hello>/hello_plugin/policies/patterns.yaml"]
    assert rows["weather"]["added"]["tools"] == ["forecast"] and rows["weather"]["kind"] == "folder"
    assert rows["marker"]["state"] == "disabled"


def test_cli_shows_a_failed_plugin_and_exits_1(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: [hello, raising]}\n")
    result = CliRunner().invoke(cli, ["plugins", "--json", "--root", str(root)])
    assert result.exit_code == 1
    data = json.loads(result.output)
    rows = {r["name"]: r for r in data["plugins"]}
    assert rows["raising"]["state"] == "failed" and "RuntimeError" in rows["raising"]["reason"]
    assert rows["raising"]["added"] == {}
    assert rows["hello"]["state"] == "loaded"
    assert data["ok"] is False and [e["code"] for e in data["errors"]] == ["plugin-failed"]


def test_cli_in_a_fresh_process_discovers_the_installed_plugin(
    installed: Path, plugin_site: Path, tmp_path: Path
) -> None:
    root = project(tmp_path, "plugins: {enabled: [hello]}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_site), str(HERE.parent)])}
    out = subprocess.run(
        [sys.executable, "-m", "engine", "plugins", "--root", str(root)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert any(line.startswith("hello ") and "loaded" in line for line in out.stdout.splitlines())
    assert not installed.exists()


def test_a_project_without_plugins_lists_none(tmp_path: Path) -> None:
    root = project(tmp_path, "")
    result = CliRunner().invoke(cli, ["plugins", "--root", str(root)])
    assert result.exit_code == 0
    loader = ProjectLoader(root)
    assert loader.load().plugins is not None


@pytest.fixture(autouse=True)
def _no_leftover_plugin_modules() -> Iterator[None]:
    yield
    for name in list(sys.modules):
        if name.split(".", 1)[0] in (*PACKAGES, "weather_tools"):
            del sys.modules[name]


def test_the_watcher_reloads_on_a_plugin_folder_save(installed: Path, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {folders: [plugins/weather]}\n", weather=True)
    manifest = root / "plugins" / "weather" / "manifests" / "forecast.yaml"
    with Engine.load(root, approve_changes=True) as engine:
        events = []
        engine.on_reload(events.append)
        with engine.watch():
            manifest.write_text(manifest.read_text().replace("The forecast for a city.", "Tomorrow's weather."))
            deadline = time.monotonic() + 20
            while not (events and events[-1].ok) and time.monotonic() < deadline:
                time.sleep(0.01)
        assert events and events[-1].ok, events
        assert engine.tools["forecast"].description == "Tomorrow's weather."


def test_a_plugin_adds_a_runtime_type(installed: Path, tmp_path: Path) -> None:
    runtime = "kind: Runtime\nname: box\ntype: recorder\nprefix: 5\n"
    tool = textwrap.dedent(
        """
        kind: Tool
        name: run
        toolset: proj
        description: Run a command in the box.
        handler: proj_handlers:run
        runtime: box
        parameters: {type: object, properties: {command: {type: string}}, required: [command]}
        """
    )
    handler = (
        "def lookup(key: str) -> str:\n    return key\n\n"
        "def run(command, ctx):\n    with ctx.runtime.use() as rt:\n        return rt.exec(command, timeout=5).output\n"
    )
    extra = {"manifests/box.yaml": runtime, "manifests/run.yaml": tool, "proj_handlers/__init__.py": handler}
    root = project(tmp_path, "plugins: {enabled: [recorder]}\n", extra=extra)
    assert [(f, line, c) for f, line, c, _ in errors(root)] == [("manifests/box.yaml", 4, "invalid-value")]
    (root / "manifests" / "box.yaml").write_text(runtime.replace("prefix: 5", "prefix: '>'\nready: true"))
    config = root / "hermes-engine.yaml"
    with Engine.load(root, approve_changes=True) as engine:
        result = engine.call("run", {"command": "echo hi"})
        assert result.ok and result.output == ">echo hi\n"
        assert sys.modules["recorder_plugin"].RUNS == ["echo hi"]
        # Without the plugin, the type is unknown: the reload fails and the box keeps working.
        config.write_text(config.read_text().replace("[recorder]", "[]"))
        event = engine.reload([config])
        assert [p.code for p in event.problems if p.severity == "error"] == ["runtime-type-unknown"]
        assert engine.call("run", {"command": "echo again"}).output == ">echo again\n"
