"""`pnpm NAME`, `yarn NAME`, `bun NAME` run package.json's script NAME (stop 27, issue 8).

Like `npm run NAME`, with no `run`: when NAME is none of the runner's own verbs it is a script's
name, and its pre- and post- scripts run around it. Their install verbs (`pnpm install`, `yarn add
x`, `bun install`) run the package's lifecycle scripts (preinstall, postinstall, prepare ...), not
every script. `corepack PM ARGS` runs that package manager. A package.json the line or the
session wrote is read (executors.yaml: the runners' `files:` entries, executors.npm_scripts).
"""

from __future__ import annotations

import json

import pytest

from engine import Engine
from tests.redteam.conftest import judge

RM = "rm -rf ~"


def _written(scripts: dict[str, str]) -> str:
    return f"echo '{json.dumps({'name': 'p', 'scripts': scripts})}' > package.json; "


# (scripts, the command run after writing them)
RUNS: dict[str, tuple[dict[str, str], str]] = {
    "pnpm NAME": ({"lint": RM}, "pnpm lint"),
    "pnpm's pre- script": ({"prebuild": RM, "build": "tsc"}, "pnpm build"),
    "pnpm with a global flag": ({"b": RM}, "pnpm --silent b"),
    "pnpm --dir": ({"b": RM}, "pnpm --dir . b"),
    "pnpm -C a folder": ({"b": RM}, "mkdir s; mv package.json s/; pnpm -C s b"),
    "yarn NAME with flags after": ({"postlint": RM, "lint": "eslint ."}, "yarn lint --fix"),
    "bun NAME": ({"dev": RM}, "bun dev"),
    "pnpm install's postinstall": ({"postinstall": RM}, "pnpm install"),
    "pnpm i": ({"preinstall": RM}, "pnpm i"),
    "bun install's prepare": ({"prepare": RM}, "bun install"),
    "yarn add runs the root's install scripts": ({"postinstall": RM}, "yarn add left-pad"),
    "pnpm through npx": ({"b": RM}, "npx pnpm b"),
    "pnpm through corepack": ({"b": RM}, "corepack pnpm b"),
    "yarn through corepack": ({"b": RM}, "corepack yarn b"),
}


@pytest.mark.parametrize("name", list(RUNS))
def test_a_runner_name_runs_the_written_script(engine: Engine, name: str) -> None:
    scripts, command = RUNS[name]
    line = _written(scripts) + command
    assert judge(engine, line).decision == "deny", line


NEAR_MISSES: dict[str, tuple[dict[str, str], str]] = {
    "another script is harmful": ({"lint": "eslint .", "clean": RM}, "pnpm lint"),
    "a harmless build": ({"build": "tsc -p ."}, "yarn build"),
    "a harmless dev server": ({"dev": "vite"}, "bun dev"),
    "install with no install scripts": ({"test": "jest", "clean": RM}, "pnpm install"),
    "add with no install scripts": ({"clean": RM}, "pnpm add left-pad"),
    "corepack enable": ({"b": RM}, "corepack enable"),
}


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_scripts_the_command_does_not_run(engine: Engine, name: str) -> None:
    scripts, command = NEAR_MISSES[name]
    line = _written(scripts) + command
    assert judge(engine, line).decision == "allow", line


@pytest.mark.parametrize("command", ["pnpm lint", "yarn build", "bun dev", "pnpm install", "yarn", "corepack pnpm i"])
def test_near_miss_a_runner_where_nothing_was_written(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
