"""xf47 (stop 47, issue 8): strict xfails stop 46 left open, closed (each was allowed, or asked wrongly, before).

Found and fixed:

1. A repository's visibility changed through the API: `gh api -X PATCH repos/o/r -f private=false` (also `-F
   visibility=public`, `--method PATCH`, `--field=`, `--raw-field`, `glab api -X PUT projects/7 -f
   visibility=public`, a GraphQL mutation naming a visibility, `-F archived=true`, a body from `--input` sent to
   the repository's own endpoint) was allowed while `gh repo edit --visibility public` asked. policies/vcs.yaml
   remote_repo_destructive reads those fields; a GET (fields as a query: `gh api -X GET user/repos -f
   visibility=public` lists) stays allowed. (test_unseen46's strict xfail passes.)
2. A remote's URL set on the line by `git config remote.x.url ../r` then `git push x`: r's session-written
   hooks/pre-receive ran, allowed. git config's operands are read as `git remote add`'s URL is (policies/executors.yaml
   git config `runs:`): a value naming a written repository's receiving hooks asks. (test_xf46's strict xfail passes.)
3. A false alarm: `grep -qF "${V}" install.ps1` asked (read_computed_path): a variable where grep reads its pattern
   may be an option (`-Rv` reads the tree, links followed). With -q grep writes nothing, whatever option it is: a
   grammar field (Grammar.quiet_with, grep's row in policies/printers.yaml: `quiet_with: [q]`) lets such a pattern
   through; without -q, or a computed FILE operand, it still asks. (test_fp46's strict xfail passes.)
4. A false alarm: `find . -name '*.tmp' | grep -v keep | while read f; do rm "$f"; done` asked while `rm $(find .
   -name '*.tmp' | grep -v keep)` was allowed (lead46): a loop after a pipe read only the stage just before it
   (`$(grep -v keep)`). A compound command piped into now reads the pipeline's stages so far (shell._piped_source):
   the listing with its selecting stages, as the substitution. `find ~ … | grep -v keep | while read`, a `sed`
   stage, `cat list.txt | grep … | while read f; do rm -rf "$f"` still ask.

Not fixed (strict xfails kept where they were): test_comp46's `find . -name '*.log' | zip -m logs.zip -@` (read as
`rm -r -- $(find …)`: dropping the listing's "variable" reading once walked let `mkdir -p "x $HOME/.ssh" && rm -rf
$(find . -name .ssh)` through, a name the line makes split by the shell: reverted; that payload is guarded below);
test_adv45's `ls ~/.ssh/* | cpio -o > x.cpio` without a session (not reached).

Open: see the strict xfails at the end of this module (each with its payload).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    Case,
    allowed_payloads,
    assert_verdict,
    bare_repository,
    flagged_near_misses,
    harm_project,
    policy_project,
    run_confined,
    verdict_cases,
)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "xf47", "kind: ApprovalPolicy\n") as project:
        yield project


# -- 1. a repository published (or archived) through the forge's API ---------------------------------------------
VISIBILITY_PAYLOADS = [
    "gh api -X PATCH repos/o/r -f private=false",
    "gh api -X PATCH repos/o/r -F visibility=public",
    "gh api --method PATCH repos/o/r -f private=false",
    "gh api --method=PATCH repos/o/r --field=visibility=public",
    "gh api repos/o/r --raw-field private=false -X PATCH",
    "gh api -XPATCH repos/o/r -fprivate=false",
    "gh api -X PATCH repos/o/r -F archived=true",
    "gh api -X PATCH repos/o/r --input body.json",
    "echo '{\"private\": false}' | gh api -X PATCH /repos/o/r --input -",
    "glab api -X PUT projects/7 -f visibility=public",
    "glab api --method PUT projects/o%2Fr --field visibility=public",
    'gh api graphql -f query=\'mutation { updateRepository(input: {repositoryId: "R_1", visibility: PUBLIC})'
    " { clientMutationId } }'",
    "GH_TOKEN=x gh api -X PATCH repos/o/r -f private=false",
]
VISIBILITY_NEAR_MISSES = [
    "gh api repos/o/r",
    "gh api -X GET user/repos -f visibility=public",
    "gh api --method=GET user/repos -F visibility=all",
    "gh api -X 'GET' search/repositories -f q=x -f visibility=public",
    "gh api -X PATCH repos/o/r -f description='a tool'",
    "gh api -X PATCH repos/o/r -F has_wiki=false",
    "gh api repos/o/r/issues -f title=bug --input issue.json",
    "gh api repos/o/r/issues -f title='private=false is the default'",
    'gh api graphql -f query=\'query { repository(owner: "o", name: "r") { visibility isPrivate } }\'',
    "gh repo view o/r --json visibility",
    "glab api projects/7",
]


def test_visibility_through_the_api_asks(engine: Engine) -> None:
    assert allowed_payloads(engine, VISIBILITY_PAYLOADS) == []
    verdict = engine.check(VISIBILITY_PAYLOADS[0])
    assert [m.key for m in verdict.matches] == ["remote_repo_destructive"], verdict.matches


def test_visibility_through_the_api_near_misses(engine: Engine) -> None:
    assert flagged_near_misses(engine, VISIBILITY_NEAR_MISSES) == []


def test_the_api_form_is_judged_as_repo_edit(engine: Engine) -> None:
    """The same harm, the same verdict and rule as the verb gh describes for it."""
    edit = engine.check("gh repo edit o/r --visibility public --accept-visibility-change-consequences")
    api = engine.check("gh api -X PATCH repos/o/r -f visibility=public")
    assert (api.decision, [m.key for m in api.matches]) == (edit.decision, [m.key for m in edit.matches])


# -- 2. a remote's URL set by `git config` on the line, then pushed to -------------------------------------------
REMOTE_PAYLOADS: dict[str, Case] = {
    "config-url": (
        {**bare_repository(), "r/hooks/pre-receive": "rm -rf ~"},
        "git init -q s && cd s && git config remote.x.url ../r && git push x HEAD:refs/heads/y",
    ),
    "config-set-url": (
        {**bare_repository(), "r/hooks/update": "rm -rf ~"},
        "cd s && git config set remote.x.url ../r && git push x",
    ),
    "config-pushurl-file": (
        {**bare_repository(), "r/hooks/post-receive": "rm -rf ~"},
        "cd s && git config --local remote.origin.pushurl file://ROOT/r; git push",
    ),
    "config-add-url": (
        {**bare_repository(folder="up"), "up/hooks/pre-receive": "rm -rf ~"},
        "git config --add remote.up.url ./up && git push up main",
    ),
}
REMOTE_NEAR_MISSES: dict[str, Case] = {
    # the same lines with no hook written: nothing of the session's runs
    "no-hook": (bare_repository(), "git init -q s && cd s && git config remote.x.url ../r && git push x HEAD:y"),
    # a hook written, the configuration naming something else (a value naming the written repository itself asks,
    # whatever its key: `git config user.name r` with r/hooks/pre-receive written, fail closed)
    "user-name": ({**bare_repository(), "r/hooks/pre-receive": "rm -rf ~"}, "git config user.name Alice && git log -1"),
    "other-remote": (
        {**bare_repository(), "r/hooks/pre-receive": "rm -rf ~"},
        "git config remote.origin.url https://example.org/o/r.git && git fetch origin",
    ),
    "other-url": ({}, "git config remote.origin.url https://example.org/o/r.git && git push origin main"),
    "read-url": ({}, "git config --get remote.origin.url"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(REMOTE_PAYLOADS, REMOTE_NEAR_MISSES))
def test_remote_url_set_on_the_line(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_remote_url_set_on_the_line_live(tmp_path: Path) -> None:
    """The ground: the pushed-to repository on this machine runs its own pre-receive hook (the fake home emptied)."""
    setup = (
        "git init -q --bare r && printf '#!/bin/sh\\nrm -rf \"$HOME\"/.ssh\\n' > r/hooks/pre-receive && "
        "chmod +x r/hooks/pre-receive && git init -q s && cd s && "
        "git -c user.name=a -c user.email=a@b commit -q --allow-empty -m 1 && "
        "git config remote.x.url ../r && git push -q x HEAD:refs/heads/y"
    )
    home, _, printed = run_confined(tmp_path, setup)
    assert not home_intact(home), printed


# -- 3. a pattern known only at run time, given a grep that prints nothing ---------------------------------------
GREP_ALLOWED = [
    'grep -qF "${V}" install.ps1',
    'grep -q "$V" README.md',
    'grep --quiet -F "$V" README.md',
    'grep --silent "$PATTERN" setup.cfg',
    'if grep -qxF "$line" .gitignore; then :; else echo "$line" >> .gitignore; fi',
    'grep -qE "^${KEY}=" .env.example || echo missing',
]
GREP_ASKS = [
    'grep -F "${V}" install.ps1',  # V=-Rv: every line of the tree, links followed, printed
    'grep -c "$V" install.ps1',
    'grep -q x "$F"',  # a file known only at run time (not the pattern)
    'grep -q -e x "$V"',
    'grep -q "$V" ~/.ssh/id_rsa',
    'grep -q "$V" $(cat cfg.txt)',
]


def test_grep_quiet_pattern_from_a_variable_allowed(engine: Engine) -> None:
    assert flagged_near_misses(engine, GREP_ALLOWED) == []


def test_grep_pattern_from_a_variable_still_asks(engine: Engine) -> None:
    assert allowed_payloads(engine, GREP_ASKS) == []


def test_grep_pattern_as_an_option_live(tmp_path: Path) -> None:
    """The ground: V=-Rv makes `grep -F "$V" f` print every line of the tree, a linked home's key too; with -q the
    same read prints nothing."""
    link = "ln -s ~/.ssh keys && printf 'x\\n' > install.ps1 && V=-Rv && "
    _, _, loud = run_confined(tmp_path / "loud", link + 'grep -F "$V" install.ps1')
    assert "secret key" in loud
    _, _, quiet = run_confined(tmp_path / "quiet", link + 'grep -qF "$V" install.ps1')
    assert "secret key" not in quiet and quiet.strip() == "", quiet


# -- 4. a loop after a pipe reads the whole pipe before it ------------------------------------------------------
LOOP_ALLOWED = [
    "find . -name '*.tmp' | grep -v keep | while read f; do rm \"$f\"; done",
    "find . -name '*.tmp' | grep -v keep | while IFS= read -r f; do rm -f -- \"$f\"; done",
    "find . -name '*.pyc' | head -5 | while read f; do rm \"$f\"; done",
    "git ls-files | grep '\\.py$' | while read f; do wc -l \"$f\"; done",
    "find . -name '*.tmp' | while read f; do rm \"$f\"; done",
]
LOOP_ASKS = [
    'find ~ -type f | grep -v keep | while read f; do rm "$f"; done',
    "find . -name '*.tmp' | sed s/x/y/ | while read f; do rm \"$f\"; done",
    "find . -name '*.tmp' | grep -o '/.*' | while read f; do rm \"$f\"; done",
    "cat list.txt | grep -v '^#' | while read f; do rm -rf \"$f\"; done",
    "ls ~/.ssh | grep id | while read f; do cat ~/.ssh/$f; done",
    "echo safe | sed 's/safe/rm -rf ~/' | while read l; do $l; done",
]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """A project of its own holding the files the loops list (never the engine's own repository: a clone's .git)."""
    with harm_project(tmp_path, monkeypatch) as (engine, _, root):
        for name in ("a.tmp", "keep.tmp", "b.pyc", "c.py"):
            (root / name).write_text("x\n")
        yield engine


def test_loop_over_a_selected_listing_allowed(tree: Engine) -> None:
    assert flagged_near_misses(tree, LOOP_ALLOWED) == []
    # the same as the substitution the loop stands for
    assert tree.check("rm $(find . -name '*.tmp' | grep -v keep)").decision == "allow"


def test_loop_over_a_selected_listing_still_asks(tree: Engine) -> None:
    assert allowed_payloads(tree, LOOP_ASKS) == []


def test_loop_over_the_homes_listing_live_and_stopped(tmp_path: Path) -> None:
    """The ground: the loop deletes what the whole pipe lists (the home's key); the selected tree listing only its
    own files."""
    home, _, printed = run_confined(tmp_path, LOOP_ASKS[0])
    assert not home_intact(home), printed


# -- guarded: a name the line makes, split by the shell, names a path outside the tree ---------------------------
def test_a_listing_split_into_the_home_still_asks(tree: Engine, tmp_path: Path) -> None:
    payload = 'mkdir -p "x $HOME/.ssh" && rm -rf $(find . -name .ssh)'
    home, _, printed = run_confined(tmp_path / "live", payload)
    assert not (home / ".ssh").exists(), printed  # the ground: `./x /home/me/.ssh` split: ~/.ssh deleted
    assert tree.check(payload).decision != "allow"
