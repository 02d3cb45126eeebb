"""Runtime manifests at load: located errors for what is wrong, and availability for what cannot work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from engine import Engine, ValidationFailed
from engine.runtime import DirEntry, ExecResult, ProcessHandle, Runtime, RuntimeTypes
from engine.schemas import load_schema

HANDLERS = """
def echo(text, ctx):
    with ctx.runtime.use() as runtime:
        return runtime.exec("echo " + text, timeout=90).output
"""
TOOLSET = "kind: Toolset\nname: t\ndescription: T.\n"


def _project(
    write_project: Callable[..., Path],
    runtimes: str,
    *,
    tool_runtime: str = "box",
    config: str = "",
    root: Path | None = None,
) -> Path:
    return write_project(
        {
            "hermes-engine.yaml": f"include_builtin: false\nhandler_roots: [rt_handlers]\n{config}",
            "rt_handlers/__init__.py": HANDLERS,
            "toolsets/t.yaml": TOOLSET,
            "manifests/runtimes.yaml": runtimes,
            "manifests/echo.yaml": f"""
                kind: Tool
                name: echo
                toolset: t
                description: Echo.
                handler: rt_handlers:echo
                runtime: {tool_runtime}
                parameters:
                  type: object
                  properties: {{text: {{type: string}}}}
                  required: [text]
                """,
        },
        root,
    )


def _errors(root: Path, **kwargs: Any) -> list[tuple[str, int, str]]:
    with pytest.raises(ValidationFailed) as caught:
        Engine.load(root, **kwargs, approve_changes=True)
    return [(p.file, p.line, p.code) for p in caught.value.errors]


def test_valid_runtimes_load_with_their_host_paths_made_absolute(
    write_project: Callable[..., Path], tmp_path: Path
) -> None:
    key = tmp_path / "id_test"
    key.write_text("key\n")
    root = _project(
        write_project,
        f"""
        kind: Runtime
        name: box
        type: sandbox
        binds: [{{source: rt_handlers}}]
        ---
        kind: Runtime
        name: remote
        type: ssh
        host: "${{HERMES_TEST_HOST}}"
        key: {key}
        ---
        kind: Runtime
        name: container
        type: docker
        image: busybox:latest
        mounts: [{{source: ., target: /src}}]
        memory: 512m
        """,
    )
    with Engine.load(root, approve_changes=True) as engine:
        runtimes = engine.snapshot.runtimes
        assert sorted(runtimes) == ["box", "container", "local", "remote"]
        assert runtimes["box"].settings["binds"][0]["source"] == str(root / "rt_handlers")
        assert runtimes["container"].settings["mounts"][0]["source"] == str(root)
        assert engine.tools["echo"].runtime == "box"


def test_an_unknown_type_is_located_with_a_suggestion(write_project: Callable[..., Path]) -> None:
    root = _project(write_project, "kind: Runtime\nname: box\ntype: dockr\nimage: x\n")
    with pytest.raises(ValidationFailed) as caught:
        Engine.load(root, approve_changes=True)
    problem = next(p for p in caught.value.errors if p.code == "runtime-type-unknown")
    assert (problem.file, problem.line, problem.pointer) == ("manifests/runtimes.yaml", 3, "/type")
    assert "'docker'" in problem.message
    # the tool naming it gets no second error
    assert [p.code for p in caught.value.errors] == ["runtime-type-unknown"]


def test_a_docker_runtime_without_an_image_is_located(write_project: Callable[..., Path]) -> None:
    root = _project(write_project, "kind: Runtime\nname: box\ntype: docker\nnetwork: true\n")
    assert _errors(root) == [("manifests/runtimes.yaml", 1, "missing-field")]


def test_a_field_of_another_type_is_an_unknown_field(write_project: Callable[..., Path]) -> None:
    root = _project(write_project, "kind: Runtime\nname: box\ntype: sandbox\nimage: x\n")
    assert _errors(root) == [("manifests/runtimes.yaml", 4, "unknown-field")]


def test_a_missing_key_file_or_bind_source_is_located(write_project: Callable[..., Path]) -> None:
    root = _project(
        write_project,
        "kind: Runtime\nname: box\ntype: ssh\nhost: h\nkey: keys/absent\n---\n"
        "kind: Runtime\nname: other\ntype: sandbox\nbinds:\n  - source: nowhere\n",
    )
    assert _errors(root) == [
        ("manifests/runtimes.yaml", 5, "runtime-path-missing"),
        ("manifests/runtimes.yaml", 11, "runtime-path-missing"),
    ]


def test_reserved_and_repeated_names_are_errors(write_project: Callable[..., Path]) -> None:
    root = _project(
        write_project,
        "kind: Runtime\nname: local\ntype: sandbox\n---\n"
        "kind: Runtime\nname: box\ntype: sandbox\n---\n"
        "kind: Runtime\nname: box\ntype: sandbox\n",
    )
    assert _errors(root) == [
        ("manifests/runtimes.yaml", 2, "runtime-reserved"),
        ("manifests/runtimes.yaml", 10, "runtime-duplicate"),
    ]


def test_a_tool_or_the_terminal_naming_no_runtime_is_located(write_project: Callable[..., Path]) -> None:
    root = _project(
        write_project,
        "kind: Runtime\nname: box\ntype: sandbox\n",
        tool_runtime="bx",
        config="terminal: {runtime: nope}\n",
    )
    with pytest.raises(ValidationFailed) as caught:
        Engine.load(root, approve_changes=True)
    found = {(p.file, p.line, p.code, p.pointer) for p in caught.value.errors}
    assert found == {
        ("manifests/echo.yaml", 6, "runtime-unknown", "/runtime"),
        ("hermes-engine.yaml", 3, "runtime-unknown", "/terminal/runtime"),
    }
    assert "did you mean 'box'" in next(p.message for p in caught.value.errors if p.file.endswith("echo.yaml"))


def test_a_runtime_that_cannot_work_makes_its_tools_unavailable_with_the_reason(
    write_project: Callable[..., Path], tmp_path: Path
) -> None:
    root = _project(
        write_project, f"kind: Runtime\nname: box\ntype: docker\nimage: x\nhost: unix://{tmp_path}/absent.sock\n"
    )
    with Engine.load(root, approve_changes=True) as engine:
        avail = engine.availability("echo")
        assert not avail.available and "runtime 'box' (docker)" in (avail.reason or "")
        assert "cannot reach the Docker daemon" in (avail.reason or "")
        assert engine.definitions() == []
        result = engine.call("echo", {"text": "hi"})
        assert result.error is not None and result.error.type == "unavailable"
        assert "Docker daemon" in result.error.message


class _Recorder(Runtime):
    """A plugin's runtime: records what it was asked to run."""

    type_name = "recorder"
    runs: list[str] = []  # noqa: RUF012 - shared with the test on purpose

    @classmethod
    def check(cls, settings: Mapping[str, Any]) -> str | None:
        return None if settings.get("ready") else "not ready"

    def start(self) -> None:
        return None

    def exec(self, command: str, **kwargs: Any) -> ExecResult:
        self.runs.append(command)
        return ExecResult(0, f"{self.settings['prefix']}{command}\n")

    def spawn(self, command: str, **kwargs: Any) -> ProcessHandle:
        raise NotImplementedError

    def read_file(self, path: str, max_bytes: int) -> bytes:
        return b""

    def write_file(self, path: str, data: bytes) -> None:
        return None

    def list_dir(self, path: str) -> list[DirEntry]:
        return []

    def close(self) -> None:
        return None


def _types() -> RuntimeTypes:
    types = RuntimeTypes()
    schema = {
        "type": "object",
        "properties": {"prefix": {"type": "string"}, "ready": {"type": "boolean"}},
        "required": ["prefix"],
        "additionalProperties": False,
    }
    types.register("recorder", _Recorder, schema=schema)
    return types


def test_a_plugin_runtime_type_is_validated_checked_and_used(write_project: Callable[..., Path]) -> None:
    bad = _project(write_project, "kind: Runtime\nname: box\ntype: recorder\nprefix: 5\n")
    assert _errors(bad, runtime_types=_types()) == [("manifests/runtimes.yaml", 4, "invalid-value")]
    assert _errors(bad) == [("manifests/runtimes.yaml", 3, "runtime-type-unknown")]  # not registered here
    (bad / "manifests" / "runtimes.yaml").write_text("kind: Runtime\nname: box\ntype: recorder\nprefix: '>'\n")
    with Engine.load(bad, runtime_types=_types(), approve_changes=True) as engine:
        assert engine.availability("echo").reason == "runtime 'box' (recorder) is unavailable: not ready"
    (bad / "manifests" / "runtimes.yaml").write_text(
        "kind: Runtime\nname: box\ntype: recorder\nprefix: '>'\nready: true\n"
    )
    with Engine.load(bad, runtime_types=_types(), approve_changes=True) as engine:
        result = engine.call("echo", {"text": "hi"})
        assert result.ok and result.output == ">echo hi\n"
    assert _Recorder.runs[-1] == "echo hi"


def test_the_runtime_schema_is_published(runner: Any) -> None:
    from engine.cli import cli

    result = runner.invoke(cli, ["json-schema", "runtime"])
    assert result.exit_code == 0
    assert json.loads(result.output)["properties"]["kind"] == {"const": "Runtime"}
    assert load_schema("runtime")["definitions"]["docker"]["required"] == ["image"]


def test_the_builtin_types_are_imported_only_when_a_load_names_one(
    write_project: Callable[..., Path], tmp_path: Path
) -> None:
    """`validate` of a project that declares no runtime imports no runtime (their event loop thread
    imports asyncio); one that declares a docker runtime gets the docker class, as before."""
    from engine.runtime.registry import BUILTIN_TYPES

    types = RuntimeTypes()
    assert types.names() == sorted(BUILTIN_TYPES)
    for name in BUILTIN_TYPES:
        kind = types.get(name)
        assert kind is not None and issubclass(kind.runtime_class, Runtime) and kind.runtime_class.type_name == name
    plain = _project(write_project, "kind: Toolset\nname: t2\ndescription: T2.\n", tool_runtime="default")
    boxed = _project(write_project, "kind: Runtime\nname: box\ntype: docker\nimage: alpine\n", root=tmp_path / "boxed")
    env = {**os.environ, **{n: str(tmp_path / n.lower()) for n in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")}}
    probe = (
        "import sys\nfrom engine.cli import main\n"
        "try:\n    main(['validate', '--root', sys.argv[1]])\nexcept SystemExit as exc:\n    code = exc.code\n"
        "heavy = ('asyncio', 'engine.runtime.base', 'engine.runtime.docker', 'engine.runtime.manager')\n"
        "print(code, *(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    imported = {}
    for root in (plain, boxed):
        done = subprocess.run(
            [sys.executable, "-c", probe, str(root)], env=env, capture_output=True, text=True, cwd=tmp_path, check=False
        )
        imported[root.name] = done.stderr.strip().splitlines()[-1].split()
    assert imported == {"project": ["0"], "boxed": ["0", "asyncio", "engine.runtime.base", "engine.runtime.docker"]}
