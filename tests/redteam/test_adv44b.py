"""adv44b (stop 44, issue 8): the adversary on this stop's own changes, fp44's relaxations first.

Found and fixed (each was allowed before):

1. fp44 left `git -c alias.NAME=…` unjudged when NAME is one of git's own verbs and nothing on the line spells it
   otherwise. But every program git starts inherits the -c (GIT_CONFIG_PARAMETERS): `git -c alias.status='!rm -rf ~'
   difftool -y -x ./t.sh` (likewise `bisect run ./t.sh`, `submodule foreach ./t.sh`, `bisect run make`) with a
   written t.sh (or Makefile) holding only `git Status` ran `rm -rf ~` (shown live below). Now such an alias is left
   unjudged only while the command runs nothing else: follow_program judges the held aliases once the command's
   other runs found any program (follow.Follower.hidden_runs).
2. The verbs taken as git's own were every verb of git 2.39: an older git (Ubuntu 22.04's 2.34 has no `diagnose`
   or `hook`; 2.17-2.22 no `switch`, `restore`, `bugreport`, `maintenance` …) or git 3.0 (drops `whatchanged`,
   `pack-redundant`) runs the alias: `git -c alias.diagnose='!rm -rf ~' diagnose` was allowed. The -c rows now hold
   `git_lasting_verbs` (policies/executors.yaml): the verbs every git in use has as its own.

3. fp44's literal reading of a quoted name (`'$HOME/.bashrc'` is a folder named `$HOME`) did not look where that
   name lands: with a link `$HOME -> ~` on disk (made by an allowed `ln -s ~ '$HOME'` in an earlier call, or
   unpacked from an archive or clone), `rm -rf '$HOME'/*` and `echo CMD >> '$HOME/.bashrc'` were allowed (`h -> ~`,
   `rm -rf h/*` is hardline). A name whose `$`/backquote entry exists keeps the expansion's reading (one lstat,
   matchers._spelled_entry): hardline / ask. Limit: the entry is looked up from the engine's folder (not after a
   `cd` on the line).

Open: none as strict xfails.

Noticed, not fixed: the stored-alias row (`git config alias.diagnose '!CMD'` then `git diagnose`) keeps the full
verb list (git_own_verbs), so the older-git case above holds there too (debt43's reading, not this stop's).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    Case,
    assert_verdict,
    harm_project,
    policy_project,
    run_confined,
    verdict_cases,
    written_then_allowed,
    written_then_stopped,
)

WHO = "-c user.name=t -c user.email=t@t"
STATUS = "#!/bin/sh\ngit Status\n"  # alone harmless: no alias named `status` anywhere
HELD = "git -c alias.status='!rm -rf ~'"  # an alias git ignores for `git status`, run by `git Status`
CHANGED = f"git init -q && git add f && git {WHO} commit -qm a && echo b >> f && "
TWO_COMMITS = f"git init -q && git {WHO} commit -qm a --allow-empty && git {WHO} commit -qm b --allow-empty && "

HARM = {
    "difftool-x": ({"f": "a\n", "t.sh": STATUS}, CHANGED + f"{HELD} difftool -y -x ./t.sh"),
    "bisect-run": ({"t.sh": STATUS}, TWO_COMMITS + f"git bisect start HEAD HEAD~1 && {HELD} bisect run ./t.sh"),
    "bisect-run-sh": ({"t.sh": STATUS}, TWO_COMMITS + f"git bisect start HEAD HEAD~1 && {HELD} bisect run sh t.sh"),
}


@pytest.mark.parametrize(("files", "payload"), list(HARM.values()), ids=list(HARM))
def test_harm_inherited_alias(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], files: dict[str, str], payload: str
) -> None:
    """Live the written script's `git Status` runs the held alias (the home is deleted); through the engine the
    line is refused and the home kept."""
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, files, payload, mode=0o755)


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"f": "a\n", "t.sh": "#!/bin/sh\ntrue\n"}, CHANGED + "git difftool -y -x ./t.sh"),
        ({}, f"git init -q && {HELD} status"),
        ({}, "git init -q && git -c alias.log='!rm -rf ~' log --oneline -1 || true"),
    ],
    ids=["difftool-plain", "held-status", "held-log"],
)
def test_near_miss_runs(plain_harm: tuple[Engine, Path, Path], files: dict[str, str], command: str) -> None:
    engine, home, _ = plain_harm
    written_then_allowed(engine, files, command)
    assert home_intact(home), command


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "adv44b", "kind: ApprovalPolicy\n") as project:
        yield project


PAYLOADS: dict[str, Case] = {
    "submodule-foreach": ({"t.sh": STATUS}, f"{HELD} submodule foreach ./t.sh"),
    "bisect-make": ({"Makefile": "all:\n\tgit Status\n"}, f"{HELD} bisect run make"),
    "difftool-extcmd": ({"t.sh": STATUS}, f"{HELD} difftool -y --extcmd=./t.sh"),
    # verbs an older git lacks, or git 3.0 drops: the alias runs there
    "diagnose": ({}, "git -c alias.diagnose='!rm -rf ~' diagnose"),
    "hook": ({}, "git -c alias.hook='!rm -rf ~' hook run pre-commit"),
    "bugreport": ({}, "git -c alias.bugreport='!rm -rf ~' bugreport"),
    "maintenance": ({}, "git -c alias.maintenance='!rm -rf ~' maintenance run"),
    "switch": ({}, "git -c alias.switch='!rm -rf ~' switch main"),
    "restore": ({}, "git -c alias.restore='!rm -rf ~' restore --staged x"),
    "sparse-checkout": ({}, "git -c alias.sparse-checkout='!rm -rf ~' sparse-checkout list"),
    "whatchanged": ({}, "git -c alias.whatchanged='!rm -rf ~' whatchanged"),
    "pack-redundant": ({}, "git -c alias.pack-redundant='!rm -rf ~' pack-redundant --all"),
}
NEAR_MISSES: dict[str, Case] = {
    "held-status": ({}, f"{HELD} status"),
    "held-commit": ({}, "git -c alias.commit='!rm -rf ~' commit -m x"),
    "held-log": ({}, "git -c alias.log='!rm -rf ~' log"),
    "difftool-plain": ({"t.sh": STATUS}, "git difftool -y -x ./t.sh"),
    "bisect-plain": ({"t.sh": STATUS}, "git bisect run ./t.sh"),
    "switch": ({}, "git switch main"),
    "alias-used-plain": ({}, "git -c alias.co=checkout co main"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_verdicts(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- a quoted `$HOME` name read literally, where a link of that name leads home -----------------------


LINKED = {"rm-glob": "rm -rf '$HOME'/*", "append-bashrc": "echo 'rm -rf ~' >> '$HOME/.bashrc'"}


def test_linked_literal_name_live(tmp_path: Path) -> None:
    """Under bash a folder literally named `$HOME` linked to the home: `rm -rf '$HOME'/*` empties the home."""
    home, cwd, _ = run_confined(tmp_path, "ln -s ~ '$HOME' && rm -rf '$HOME'/*")
    assert (cwd / "$HOME").is_symlink() and not (home / "notes.txt").exists()


@pytest.mark.parametrize("command", list(LINKED.values()), ids=list(LINKED))
def test_linked_literal_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    with harm_project(tmp_path, monkeypatch) as (engine, home, root):
        os.symlink(home, root / "$HOME")  # (an allowed `ln -s ~ '$HOME'` in an earlier call)
        (root / "h").symlink_to(home)
        assert engine.check("rm -rf h/*").decision != "allow"  # the same link under a plain name is read
        assert engine.check(command).decision != "allow"
        # near miss: a name given as written with no entry of that name stays the folder it spells (fp44)
        assert engine.check(command.replace("$HOME", "$NONE")).decision == "allow"
