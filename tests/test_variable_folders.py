"""`variable_folders:` in DangerPatterns manifests: the usual folder of a variable a line writes
under without setting it (`tee $HERMES_HOME/config.yaml`; engine.policy.paths.View._under_unknown).

The builtin pack's table is data (policies/paths.yaml); a bad entry is a located error; a project
adds folders, never takes the builtin ones away.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from engine import Engine
from engine.cli import cli


def _validate(root: Path) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["--root", str(root), "validate", "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    errors: list[dict[str, object]] = json.loads(result.stdout)["errors"]
    return errors


def _project(write_project: Callable[..., Path], folders: str) -> Path:
    return write_project(
        {
            "hermes-engine.yaml": "workdir: .\n",
            "policies/mine.yaml": f"kind: DangerPatterns\nname: mine\nvariable_folders:\n{folders}",
        }
    )


def test_a_bad_entry_is_a_located_error(write_project: Callable[..., Path]) -> None:
    entries = (
        "  MY_CONFIG: ~/.config\n  lower: ~/.x\n  REL: etc\n  GLOB: ~/.c*\n  LIST: [~/.y]\n  RUN: /run/user/1000\n"
    )
    root = _project(write_project, entries)
    found = {(e["pointer"], e["line"], e["code"]) for e in _validate(root)}
    assert found == {
        ("/variable_folders/lower", 5, "invalid-name"),  # at the name, not at the mapping
        ("/variable_folders/REL", 6, "invalid-value"),  # neither under the home nor absolute (xfail39: /run/user/N is)
        ("/variable_folders/GLOB", 7, "invalid-value"),  # a glob is no folder
        ("/variable_folders/LIST", 8, "wrong-type"),
    }


def test_the_builtin_folders_are_data_and_a_project_only_adds(write_project: Callable[..., Path]) -> None:
    # HERMES_HOME pointed elsewhere by a project: its builtin folder still counts.
    root = _project(write_project, "  HERMES_HOME: ~/elsewhere\n  MY_CONFIG: ~/.config\n")
    assert _validate(root) == []
    with Engine.load(root) as engine:
        assert engine.snapshot.policy.folders["HERMES_HOME"] == ("~/.hermes", "~/elsewhere")
        assert engine.check("tee $HERMES_HOME/config.yaml").decision == "ask"
        # The project's own variable: `$MY_CONFIG/git/config` is ~/.config/git/config by default.
        assert engine.check("echo x > $MY_CONFIG/git/config").decision == "ask"
        # Near misses: a variable nobody described, a name no usual folder protects.
        assert engine.check("echo x > $OTHER/git/config").decision == "allow"
        # (cfg49) every file of ~/.config is home_config (a write there asks): `$MY_CONFIG/log.txt` is ~/.config's too
        assert engine.check("echo x > $MY_CONFIG/log.txt").decision == "ask"
