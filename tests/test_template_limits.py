"""A template that loops forever or renders gigabytes is a located error at load, a fallback at run time.

The process's memory is the harm here: each case would take minutes or gigabytes
without the limits; with them each stops within the render budget.
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine import Engine
from engine.cli import cli
from engine.sandbox import RENDER_SECONDS
from tests.test_templates import BASE, HELPER, project

PARAMS = "parameters: {type: object, properties: {text: {type: string}}}\n"


def _peak_mib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


@pytest.mark.parametrize(
    "template",
    [
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
        "{{ 'x' * 10**10 }}",
        "{{ 'x' | center(10**10) }}",
        "{{ 'x'.rjust(10**10) }}",
        "{{ '%999999999d' % 1 }}",
        "{{ '{0:>{1}}'.format(1, 10**9) }}",
        "{{ 7 ** 1000000000 }}",
        "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
        "{% set ns = namespace(s=[1]) %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
        "{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}",
        "{{ [1] | batch(10**10, 0) | list }}",
        "{{ ('ab' * 400000).replace('a', 'b' * 400000) }}",
    ],
)
def test_a_runaway_template_is_a_located_error_at_load(
    write_project: Callable[..., Path], runner: CliRunner, template: str
) -> None:
    before = _peak_mib()
    tool = BASE + f"description: {json.dumps(template)}\n" + PARAMS
    started = time.monotonic()
    result = runner.invoke(cli, ["validate", "--root", str(project(write_project, tool)), "--format", "json"])
    assert time.monotonic() - started < RENDER_SECONDS + 10
    assert result.exit_code == 1
    [error] = json.loads(result.stdout)["errors"]
    assert (error["code"], error["file"], error["line"]) == ("template-render", "manifests/m.yaml", 5)
    assert _peak_mib() - before < 400


def test_a_template_nested_too_deep_to_compile_is_a_located_error(
    write_project: Callable[..., Path], runner: CliRunner
) -> None:
    tool = BASE + "description: '{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}'\n" + PARAMS
    result = runner.invoke(cli, ["validate", "--root", str(project(write_project, tool)), "--format", "json"])
    assert result.exit_code == 1
    [error] = json.loads(result.stdout)["errors"]
    assert (error["code"], error["line"]) == ("template-syntax", 5)


def test_a_template_that_runs_away_only_at_run_time_falls_back_to_its_load_time_text(
    write_project: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    loop = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    description = f"{{% if 'helper' in available_tools %}}With helper.{{% else %}}{loop}{{% endif %}}"
    engine = Engine.load(project(write_project, BASE + f"description: {json.dumps(description)}\n" + PARAMS, HELPER))
    started = time.monotonic()
    [lead] = engine.definitions("openai", enabled=["t"])
    assert time.monotonic() - started < RENDER_SECONDS + 10
    assert lead["function"]["description"] == "With helper."
    assert "took more than" in caplog.text


def test_ordinary_templates_render_as_before(write_project: Callable[..., Path]) -> None:
    description = (
        "{{ available_tools | join(', ') | center(30) }} {{ '%5d' % 3 }} {{ '{:>4}'.format('a') }}"
        " {{ 'a' ~ 'b' }} {{ [1, 2] + [3] }} {{ 2 ** 10 }} {{ [1, 2, 3] | batch(2) | list | length }}"
    )
    engine = Engine.load(project(write_project, BASE + f"description: {json.dumps(description)}\n" + PARAMS))
    [lead] = engine.definitions("openai")
    expected = "lead".center(30) + "     3    a ab [1, 2, 3] 1024 2"
    assert lead["function"]["description"] == expected


def test_the_render_limit_counts_steps_not_the_clock(
    write_project: Callable[..., Path], runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A machine so busy that every look at the wall clock finds a second gone, and a CPU clock
    # that never moves: an ordinary template still renders, a runaway loop is still stopped (by
    # its step count), so what validate says does not depend on what else the machine runs.
    from engine import sandbox

    wall = iter(range(0, 10**9))
    monkeypatch.setattr(time, "monotonic", lambda: float(next(wall)))
    monkeypatch.setattr(sandbox.time, "thread_time", lambda: 0.0)
    ordinary = "{% for i in range(2000) %}{{ i }}{% endfor %}"
    tool = BASE + f"description: {json.dumps(ordinary)}\n" + PARAMS
    result = runner.invoke(cli, ["validate", "--root", str(project(write_project, tool)), "--format", "json"])
    assert result.exit_code == 0, result.output
    loop = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    tool = BASE + f"description: {json.dumps(loop)}\n" + PARAMS
    result = runner.invoke(cli, ["validate", "--root", str(project(write_project, tool)), "--format", "json"])
    assert result.exit_code == 1
    [error] = json.loads(result.stdout)["errors"]
    assert error["code"] == "template-render" and "steps" in error["message"]
