"""debt43 (stop 43, issue 8): two pieces of debt on the check path.

Fixed:
1. GIT'S OWN VERBS AS DATA: git's `as: alias` row told a verb that may be an alias from one of git's own by a lookahead
   over its 130 verbs, run on the bounded `regex` engine for every git verb (`git status` too). The row now lists
   them in `not_words:` (a general run field, validated by the schema: the values a run does not read, a frozenset
   built at load, one lookup a value); the row's regex is `^[^-]`, reached only by a verb none of git's own. Held:
   git ignores an alias named like its own verb (`git status` with `alias.status = !CMD`: allowed, git runs
   nothing), and the set is exact as git is (`git Status ~` runs `alias.status`: the hardline, as before).
2. FLAT SCAN, A COMMAND WORD NOBODY EXPANDS (adv42's strict xfails): past 64 KiB, `a=rm; b=a; ${!b} -rf ~`,
   `a=xm; ${a/x/r} -rf ~`, `printf -v a rm; $a -rf ~`, `read a <<< rm; $a -rf ~`, a 65th name and a name past the
   reading's room were a non-grantable ask where the parsed reading of the same line is the hardline. A piece of
   the flat text whose command word (after `NAME=VALUE` words and reserved words) is still an expansion once the
   expanded reading is made is now judged as the parser judges a command whose name is known only at run time: the
   hardline matchers such a name meets, but those that test the name alone (`$EDITOR f` stays an ask), many such
   runs folded as named runs are (_unnamed_representatives). `IFS=,` (a plain value the text assigns IFS) splits the
   values the expanded reading puts in (`IFS=,; a=rm,-rf,~; $a`: the hardline).

Open: none as strict xfails here. Noticed, not changed: the parsed reading judges `$CC -o out x.c` as the hardline
(wipe_block_device: a name known only at run time meets a block-device wiper's `-o`), and the flat scan now reads
such a command word the same way; `sudo $a -rf ~` and `$(cat f) -rf ~` past 64 KiB stay a non-grantable ask.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import make_home
from tests.redteam.harm import blocked, flagged_near_misses, run_confined, validated_policy

GIT = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
_PAD = "echo " + "a" * 70_000 + "; "  # past the 64 KiB the parser reads: the flat scan judges the text


def _git(cwd: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT, **({"HOME": str(home)} if home is not None else {})}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=60)


def _repository(folder: Path, home: Path | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    assert _git(folder, "init", "-q", home=home).returncode == 0
    return folder


# -- 1. git's own verbs: a set, not a lookahead -----------------------------------------------------------------------
OWN_VERBS = ["git status", "git log --oneline", "git diff --stat", "git show HEAD", "git branch -a", "git stash list"]


def test_git_runs_no_alias_named_like_its_own_verb_and_the_engine_reads_none(
    tmp_path: Path, session: Engine, work: Path, fake_home: Path
) -> None:
    # unguarded: git itself ignores `alias.status` and `alias.log` for its own verbs (nothing is touched)
    live = _repository(tmp_path / "live")
    for verb in ("status", "log", "diff", "show", "branch", "stash"):
        assert _git(live, "config", f"alias.{verb}", f"!touch {live}/ran-{verb}").returncode == 0
    for command in OWN_VERBS:
        _git(live, *command.split()[1:])
    assert sorted(p.name for p in live.iterdir() if p.name.startswith("ran-")) == []
    # the engine reads no alias for them either: they stay allowed with the same aliases in the repository
    _repository(work)
    for verb in ("status", "log", "diff", "show", "branch", "stash"):
        assert _git(work, "config", f"alias.{verb}", "!rm -rf ~").returncode == 0
    assert flagged_near_misses(session, OWN_VERBS) == []


@pytest.mark.parametrize("verb", ["Status", "frob", "status2", "lg"])
def test_a_verb_none_of_gits_own_runs_its_alias_unguarded_and_the_engine_refuses(
    tmp_path: Path, session: Engine, work: Path, fake_home: Path, verb: str
) -> None:
    # (`Status` is none of git's verbs, which are spelled exactly: git finds `alias.status` for it, case-blind)
    text = f"[alias]\n\t{verb.lower()} = !rm -rf\n"
    live_home = make_home(tmp_path / "unguarded")
    (live_home / ".gitconfig").write_text(text)
    _git(tmp_path, verb, str(live_home), home=live_home)
    assert not (live_home / "notes.txt").exists(), f"git {verb} ~ runs rm -rf ~"
    (fake_home / ".gitconfig").write_text(text)
    _repository(work)
    blocked(session, fake_home, f"git {verb} ~")


def test_not_words_is_a_list_of_names_the_schema_checks(tmp_path: Path) -> None:
    row = (
        "kind: Programs\nname: mine\nprograms:\n  - program: [z]\n    runs: [{operand: 0, as: shell, not_words: %s}]\n"
    )
    code, out = validated_policy(tmp_path / "bad", "mine.yaml", row % "status" + "\n")
    assert code == 1 and "Traceback" not in out, out
    assert "not_words" in out and "mine.yaml" in out, out
    code, out = validated_policy(tmp_path / "good", "mine.yaml", row % "[status, log]" + "\n")
    assert code == 0, out


# -- 2. the flat scan: a command word the expanded reading leaves an expansion ----------------------------------------
UNNAMED = [
    _PAD + "a=rm; b=a; ${!b} -rf ~",
    _PAD + "a=xm; ${a/x/r} -rf ~",
    _PAD + "printf -v a rm; $a -rf ~",
    _PAD + "read a <<< rm; $a -rf ~",
    _PAD + "read k <<< kill; $k -9 -1",
    _PAD + "a=rm; b=a; X=1 ${!b} -rf /",
    _PAD + "a=rm; b=a; if ${!b} -rf ~; then :; fi",
    _PAD + 'read c; "$c" -rf ~',
    _PAD + "IFS=,; a=rm,-rf,~; $a",
    _PAD + "IFS=,; a=rm,-rf,$HOME; $a",
    _PAD + "IFS=:; a=dd:if=/dev/zero:of=/dev/sda; $a",
    " ".join(f"v{i}=x;" for i in range(70)) + _PAD + "a=rm; $a -rf ~",
    _PAD + "a=" + "q" * 128 + "; " + "$a" * 200 + "; b=rm; $b -rf ~",
    # among thousands of plain unnamed commands (folded as one form): the one that is not plain
    "; ".join(f"$c{i} x{i}" for i in range(8000)) + "; read a <<< rm; $a -rf ~",
]
# never allowed past the limit (the text is not read in full), and not the hardline
UNNAMED_NEAR = [
    _PAD + "$EDITOR notes.txt",
    _PAD + "echo $a -rf ~",
    _PAD + "read p; $p README.md",
    _PAD + "IFS=,; a=ls,-la,~; $a",
    _PAD + "${!a} --version",
    "; ".join(f"$c{i} x{i}" for i in range(8000)),
]


@pytest.mark.parametrize("index", range(len(UNNAMED)))
def test_an_unexpanded_command_word_past_the_limit_is_the_hardline(engine: Engine, index: int) -> None:
    verdict = engine.check(UNNAMED[index])
    assert verdict.hardline and not verdict.grantable, UNNAMED[index][-60:]


@pytest.mark.parametrize("index", range(len(UNNAMED_NEAR)))
def test_an_unexpanded_command_word_without_a_hardline_command_is_no_hardline(engine: Engine, index: int) -> None:
    verdict = engine.check(UNNAMED_NEAR[index])
    assert verdict.decision == "ask" and not verdict.hardline, (UNNAMED_NEAR[index][-60:], verdict.decision)


@pytest.mark.parametrize("payload", [UNNAMED[3], UNNAMED[9]], ids=["read", "IFS"])
def test_an_unexpanded_command_word_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    home, _, said = run_confined(tmp_path / "unguarded", payload)
    assert not (home / "notes.txt").exists(), said[-200:]
    blocked(work_engine, fake_home, payload)
