"""Long inputs of many distinct words: the flat scan classifies plain names in bulk, and must
judge each of them as strictly as the word's own short command would be judged.

The attacker pads past the size limit with thousands of distinct harmless commands, so the
flat scan (no parse) decides, and hides one word that only the file system makes critical:
a symbolic link to home planted earlier, home itself named from its parent, the engine's
own state folder, a key file. A bulk shortcut that treats every plain name as `./NAME`
would let those through.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy import evaluate, paths
from engine.policy.lexer import MAX_LENGTH
from engine.policy.paths import PathClassifier, Places, literal
from tests.conftest import REPO
from tests.redteam.conftest import home_intact, judge, make_home, strictness

PADDING = "".join(f"rm -rf a{i}; " for i in range(MAX_LENGTH // 10))


@pytest.fixture
def parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory: HOME is its child `alice`, `hl` a link planted to HOME."""
    work = tmp_path / "top"
    home = work / "alice"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("secret key\n")
    monkeypatch.setenv("HOME", str(home))
    (work / "hl").symlink_to(home)
    (work / "id_rsa").write_text("key\n")
    return work


def assert_hardline_padded(engine: Engine, command: str, longs: tuple[str, ...]) -> None:
    """``command`` is hardline alone, and in each of ``longs`` (it padded past the size limit)."""
    assert judge(engine, command).hardline
    for long in longs:
        verdict = judge(engine, long)
        assert (verdict.decision, verdict.hardline) == ("deny", True), long[-80:]


def around(command: str, padding: str = "") -> tuple[str, str, str]:
    """``command`` after a long word, after ``padding`` (PADDING) and before it."""
    padding = padding or PADDING
    return ("echo " + "a" * MAX_LENGTH + "; " + command, padding + command, command + "; " + padding)


@pytest.fixture
def engine(parent: Path) -> Iterator[Engine]:
    engine = Engine.load(REPO, config={"workdir": str(parent), "state_dir": str(parent / "state")})
    yield engine
    engine.close()


@pytest.mark.parametrize("word", ["hl", "alice", "state", "id_rsa", "HL", "a7.bak", "hl/", "./hl"])
def test_a_word_in_a_long_line_is_judged_as_strictly_as_alone(engine: Engine, word: str) -> None:
    alone = judge(engine, f"rm -rf {word}")
    for long in (PADDING + f"rm -rf {word}", f"rm -rf {word}; " + PADDING):
        assert len(long) > MAX_LENGTH
        verdict = judge(engine, long)
        assert verdict.decision != "allow" and not verdict.grantable
        assert strictness(verdict) >= strictness(alone)
        assert verdict.hardline == alone.hardline


@pytest.mark.parametrize("word", ["hl", "alice", "state", "id_rsa", "HL", "a7.bak", "hl/", "./hl", "~", ".."])
def test_a_word_after_many_plain_commands_is_judged_as_alone(engine: Engine, word: str) -> None:
    """Below the limits, the plain names of many commands are classified at once (Evaluator._match,
    View.classify_plain): a link, home named from its parent or the engine's state among them is
    still judged as it is alone."""
    alone = judge(engine, f"rm -rf {word}")
    for line in (
        "".join(f"rm -rf b{i}; " for i in range(40)) + f"rm -rf {word}",
        f"rm -rf {word}; " + "".join(f"rm -rf b{i}; " for i in range(40)),
        "".join(f"rm -rf b{i} " for i in range(40)) + word + "; " + "".join(f"ls c{i}; " for i in range(40)),
    ):
        verdict = judge(engine, line)
        assert (verdict.decision, verdict.hardline) == (alone.decision, alone.hardline), line[-60:]


def test_planted_links_are_hardline_in_a_long_line(engine: Engine) -> None:
    """The link to home and home named from its parent: each alone is hardline, and so is the pad."""
    for word in ("hl", "alice"):
        assert judge(engine, f"rm -rf {word}").hardline
        verdict = judge(engine, PADDING + f"rm -rf {word}")
        assert (verdict.decision, verdict.hardline) == ("deny", True)


def test_distinct_harmless_names_stay_an_ask(engine: Engine) -> None:
    verdict = judge(engine, PADDING)
    assert verdict.decision == "ask" and not verdict.grantable and not verdict.hardline


# -- the seam: View.classify_plain must remember exactly what View.classify would say ---------

CLASSES = {
    "keep": ["~/proj/keep", "/srv/data/**"],
    "home_top": ["~", "/home/*"],
    "home_any": ["~/**"],
    "secret": ["**/id_rsa", "**/*.pem"],
    "numbered": ["**/x[0-9]"],
}
WORDS = ["a1", "b.txt", "keep", "KEEP", "id_rsa", "k.pem", "x7", "x77", "hl", "alice", "proj", "state", "_x", "9"]


def _classifier(home: Path, cwd: Path) -> PathClassifier:
    places = Places(
        cwd=str(cwd),
        home=str(home),
        engine_files=(literal(str(cwd / "state")), literal(str(cwd / "state")) + "/**"),
        link_areas=(str(cwd), str(home)),
    )
    return PathClassifier(CLASSES, places=places)


@pytest.mark.parametrize("where", ["home/proj", "top", "home/proj/deep", "home"])
def test_bulk_classes_are_the_classes(tmp_path: Path, where: str) -> None:
    home = tmp_path / "top" / "alice"
    cwd = tmp_path / where.replace("home", "top/alice")
    cwd.mkdir(parents=True, exist_ok=True)
    (cwd / "hl").symlink_to(home)
    classifier = _classifier(home, cwd)
    bulk = classifier.view()
    relative = bulk.classify_plain(WORDS)
    for word in WORDS:
        alone = classifier.view().classify(word)
        assert bulk.classify(word) == alone, word
        assert (word in relative) <= (alone == {"relative"}), word


@pytest.mark.parametrize("where", ["home/proj", "top", "home", "/", "/srv/data", "/etc"])
def test_names_plain_in_another_folder_are_read_alike_there(tmp_path: Path, where: str) -> None:
    """The names classify_plain calls plain in a folder a `cd` names all take the classes a
    name no glob knows takes there: one of them judges for all (the flat scan's fold)."""
    home = tmp_path / "top" / "alice"
    cwd = tmp_path / "top"
    (home / "proj").mkdir(parents=True)
    (cwd / "hl").symlink_to(home)
    folder = where if where.startswith("/") else str(tmp_path / where.replace("home", "top/alice"))
    classifier = _classifier(home, cwd)
    view = classifier.view()
    assert view.folder(folder) == folder
    relative = view.classify_plain([*WORDS, "etc", "usr", "root", "home"], folder)
    reference = classifier.view().classify(folder.rstrip("/") + "/zz-no-glob-knows-me")
    for word in relative:
        assert classifier.view().classify(folder.rstrip("/") + "/" + word) == reference, word
    assert not {"hl", "alice"} & relative or folder != str(cwd)


# -- runs judged once for many: a word a matcher tells apart keeps its run apart ---------------

FOLDED = [
    # parted's words regex (`mklabel`) reads a plain word: not folded with `print`
    ("".join(f"parted a{i} print gpt; " for i in range(MAX_LENGTH // 20)), "parted a1 mklabel gpt"),
    # the same run length and flags, one operand a planted link to home
    (PADDING, "rm -rf hl"),
    # a subcommand is a plain word too: `git checkout` is not `git aN`
    ("".join(f"git a{i} state; " for i in range(MAX_LENGTH // 12)), "git checkout state"),
]


@pytest.mark.parametrize("padding,command", FOLDED, ids=range(len(FOLDED)))
def test_a_run_like_thousands_of_others_is_still_judged(engine: Engine, padding: str, command: str) -> None:
    assert_hardline_padded(engine, command, around(command, padding)[1:])


# -- names given as globs (mkfs.*): the word finder must not stop at the literal name inside -----

GLOBBED = [
    "mkfs.ext4 /dev/sda",
    "mkfs.xfs /dev/sda1",
    "/sbin/mkfs.vfat -F 32 /dev/sdb",
    "sudo mkfs.ext4 /dev/nvme0n1p2",
]


@pytest.mark.parametrize("command", GLOBBED)
def test_a_globbed_hardline_name_is_hardline_in_a_long_line(engine: Engine, command: str) -> None:
    """`mkfs.*` and the name `mkfs` were one alternation, the name first: the flat scan found
    `mkfs` in `mkfs.ext4`, passed it over as the start of a longer word, and the pad was an ask."""
    assert_hardline_padded(engine, command, around(command))


# -- what the flat scan does not read (it is no shell): found by adv4, not fixed -----------------

DEVICES = [
    "echo x > /dev/sda",
    "cat /dev/zero > /dev/sda",
    "cat /dev/urandom >/dev/nvme0n1",
    "head -c 1M /dev/zero >> /dev/sdb1",
]


@pytest.mark.parametrize("command", DEVICES)
def test_a_redirection_to_a_device_is_hardline_in_a_long_line(engine: Engine, command: str) -> None:
    """Found by adv4: the flat scan judged runs of words only, so `> /dev/sda` past 64 KiB was an ask."""
    assert_hardline_padded(engine, command, around(command))


def test_redirections_to_harmless_devices_keep_a_long_line_an_ask(engine: Engine) -> None:
    verdict = judge(engine, PADDING + "echo x > /dev/null 2>/dev/stderr; cat x >/dev/tty")
    assert verdict.decision == "ask" and not verdict.hardline


UNREAD = [
    "{rm,-rf,~}",  # brace expansion makes the command
    "rm${IFS}-rf${IFS}~",  # IFS splits the word
    "a=rm; $a -rf ~",  # a variable holds the name
    "x=~; rm -rf $x",  # a variable holds the target
    "rm -rf ~{/,}",  # brace expansion makes the target
]


# (stop 41, lead41: the flat scan's expanded reading, evaluate._flat_expanded; a non-grantable ask before)
@pytest.mark.parametrize("command", UNREAD)
def test_shell_expansions_stay_hardline_in_a_long_line(engine: Engine, command: str) -> None:
    assert judge(engine, command).hardline
    for padded in ("echo " + "a" * MAX_LENGTH + "; " + command, command + "; " + PADDING):
        verdict = judge(engine, padded)
        assert (verdict.decision, verdict.hardline) == ("deny", True)


EXPANDED_NEAR = [
    "{ls,-la,~}",
    "ls${IFS}-la${IFS}~",
    "a=ls; $a -la ~",
    "x=build; rm -rf $x",
    "rm -rf build/{a,b}",
    "x=~; ls $x",
    "echo ~{/,}",
]


@pytest.mark.parametrize("command", EXPANDED_NEAR)
def test_harmless_expansions_keep_a_long_line_an_ask(engine: Engine, command: str) -> None:
    """The expanded reading finds what its words run, no more: a long line of harmless ones stays an ask."""
    verdict = judge(engine, PADDING + command)
    assert verdict.decision == "ask" and not verdict.hardline, command


# -- an archive extracted in a folder above start-up files: found by adv4, not fixed -------------


@pytest.mark.parametrize(
    "command",
    [
        "cd ~ && tar xf /tmp/a.tar",
        "cd ~ && unzip -o /tmp/a.zip",
        # (adv41) GNU cpio keeps absolute and `../` names unless told not to: plain `cpio -i` asks anywhere
        "cd ~ && cpio -i --no-absolute-filenames < /tmp/a.cpio",
        "cd ~/.ssh && tar xzf /tmp/k.tgz",
        "cd /etc && tar xf /tmp/a.tar",
        "cd ~ && 7z x /tmp/a.7z",
        "cd ~ && bsdtar -xf /tmp/a.tar",
    ],
)
def test_an_archive_extracted_in_home_is_not_allowed(engine: Engine, command: str) -> None:
    """Found by adv4: the members (.bashrc, .ssh/authorized_keys) land where the line never names them."""
    assert judge(engine, command).decision == "ask"
    # in a folder of the work tree (onto the project's top it asks too: engine_files_overwrite_unknown)
    assert judge(engine, "cd build && " + command.split("&& ", 1)[-1]).decision == "allow"


# -- a `cd` in a long line: the runs after it judged where it leads ------------------------------

MOVED = [
    "cd ~; rm -rf *",
    "cd /; rm -rf *",
    "cd; rm -rf *",
    "pushd ~; rm -rf *",
    "cd ~ && find . -delete",
    "cd .. && rm -rf *",
]


@pytest.mark.parametrize("command", MOVED)
def test_a_cd_in_a_long_line_moves_the_runs_after_it(engine: Engine, command: str) -> None:
    """Found by adv4: the flat scan judged `rm -rf *` in the working directory whatever `cd` came
    before it, so `cd ~; rm -rf *` past the size limit was a non-grantable ask, not hardline."""
    assert_hardline_padded(engine, command, around(command)[:2])


def test_a_cd_into_a_work_folder_in_a_long_line_stays_an_ask(engine: Engine, parent: Path) -> None:
    (parent / "build").mkdir()
    verdict = judge(engine, "cd build; " + PADDING)  # `rm -rf aN` in build: no folder above a critical one
    assert verdict.decision == "ask" and not verdict.hardline and not verdict.grantable


def test_a_cd_after_many_decoys_in_a_long_line_still_moves_the_runs(engine: Engine) -> None:
    decoys = "".join(f"cd /srv/d{i}; " for i in range(20))
    verdict = judge(engine, decoys + PADDING + "cd ~; rm -rf *")
    assert (verdict.decision, verdict.hardline) == ("deny", True)


@pytest.mark.parametrize(
    "target",
    ["/dev/sda", "/dev/../dev/sda", "/dev//nvme0n1", "/dev/disk/by-id/ata-x", "/dev/mapper/root", "/dev/sd*"],
)
@pytest.mark.parametrize("decoy", ["/dev/x{}", "/dev/fd/{}", "/dev/a/b{}", "/dev/sdq{}"])
def test_a_device_redirection_after_many_decoys_is_hardline(engine: Engine, target: str, decoy: str) -> None:
    """Judging each device target costs ~0.1 ms, so the flat scan judges 64 of them: past that,
    plain names no hardline redirection test can tell apart are judged once (devices_to_judge)."""
    decoys = "".join(f"echo > {decoy.format(i)}; " for i in range(80))
    verdict = judge(engine, decoys + PADDING + f"cat /dev/zero > {target}")
    assert (verdict.decision, verdict.hardline) == ("deny", True)


def test_many_harmless_device_redirections_stay_an_ask(engine: Engine) -> None:
    """The near miss: thousands of plain /dev names, none a block device, are not hardline."""
    decoys = "".join(f"echo > /dev/x{i}; " for i in range(3000))
    verdict = judge(engine, decoys + PADDING + "echo done > /dev/x1")
    assert (verdict.decision, verdict.hardline) == ("ask", False)


# -- pieces read once for many (the fold): what an attacker hides among thousands of look-alikes --
# Past _FLAT_BULK distinct pieces, the flat scan reads once each group of pieces that differ only
# in plain words that no hardline test tells apart (its first piece). The attacker's way in is a
# word the fold wrongly calls plain: a link, a word a `cd` moves, a word a matcher reads.


def _decoys(template: str, size: int = MAX_LENGTH) -> str:
    return "".join(template.format(i) + "; " for i in range(size // (len(template) + 3)))


FOLD_HIDDEN = [
    # the kill matchers read the command's text and `1` as an operand: never folded
    (_decoys("kill -9 a{}"), "kill -9 -1"),
    (_decoys("kill a{}"), "kill 1"),
    # systemctl's hardline matchers read subcommands: `reboot` is a plain word
    (_decoys("systemctl status a{}"), "systemctl reboot"),
    # a words regex of the engine's own CLI: `trust` is a plain word
    (_decoys("hermes-engine a{}"), "hermes-engine trust"),
    # an option's value in a NAME=VALUE word: `of=/dev/sda` is no plain word (it was, among `of=b`)
    (_decoys("dd if=a{} of=b"), "dd if=/dev/zero of=/dev/sda"),
    (_decoys("dd if=/dev/zero of=a{}"), "dd if=/dev/zero of=/dev/sda"),
    # the engine's own CLI run by python: `engine` is a plain word a words regex reads
    (_decoys("python3 -m a{}"), "python3 -m engine trust"),
    # a hardline name as a later word (after a wrapper): never folded into a plain word
    (_decoys("nice a{} b"), "nice rm -rf /"),
    # the same shape: the root, home, a link planted to home, home named from its parent
    (_decoys("rm -rf a{}"), "rm -rf /"),
    (_decoys("rm a{}"), "rm -r ~"),
    (_decoys("rm -rf a{}"), "rm -rf hl"),
    (_decoys("rm -rf a{}"), "rm -rf alice"),
]


@pytest.mark.parametrize("padding,command", FOLD_HIDDEN, ids=range(len(FOLD_HIDDEN)))
def test_a_hardline_among_thousands_of_look_alikes_is_hardline(engine: Engine, padding: str, command: str) -> None:
    assert_hardline_padded(engine, command, around(command, padding)[1:])


@pytest.mark.parametrize("cd", ["cd /;", "cd / &&", "pushd /;"])
def test_a_cd_before_look_alikes_keeps_each_word_apart(engine: Engine, cd: str) -> None:
    """`etc` is a plain relative name here, as `a1` is: folded together, the run judged would be
    `rm -rf a1` in `/` (harmless) for `rm -rf etc` in `/` (hardline). With a `cd` nothing is folded."""
    command = f"{cd} rm -rf etc".replace(";", "; ")
    assert judge(engine, command).hardline
    for long in (f"{cd} " + _decoys("rm -rf a{}") + "rm -rf etc", _decoys("rm -rf a{}") + command):
        verdict = judge(engine, long)
        assert (verdict.decision, verdict.hardline) == ("deny", True), long[-60:]


def test_a_link_planted_on_the_same_line_is_no_way_past_the_fold(engine: Engine, parent: Path) -> None:
    """The link does not exist when the line is judged: the fold sees a plain name, as a short
    line's judge does. The long line is never allowed and at least as strict as the short one."""
    command = "ln -s ~ zz; rm -rf zz"
    alone = judge(engine, command)
    verdict = judge(engine, _decoys("rm -rf a{}") + command)
    assert verdict.decision != "allow" and not verdict.grantable
    assert verdict.hardline == alone.hardline or verdict.hardline


def test_the_fold_keeps_look_alikes_an_ask(engine: Engine) -> None:
    for padding in (_decoys("rm a{}"), _decoys("rm -rf a{}"), _decoys("kill a{}")):
        verdict = judge(engine, padding)
        assert verdict.decision == "ask" and not verdict.grantable and not verdict.hardline


def test_the_home_survives_a_hardline_behind_look_alikes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The harm: through Engine.call, `rm -rf ~` after 6,000 look-alikes never runs (temp HOME and cwd)."""
    home = make_home(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    try:
        result = engine.call("terminal", {"command": _decoys("rm -rf a{}") + "rm -rf ~"})
    finally:
        engine.close()
    assert not result.ok
    assert result.error is not None and result.error.type == "denied"
    assert home_intact(home)


@pytest.mark.parametrize(
    "cd,command",
    [
        ("cd /usr;", "rm -rf bin"),
        ("cd /usr/;", "rm -rf lib"),
        ("cd ~/.ssh;", "rm -rf ../.."),
        ("cd /etc &&", "rm -rf ."),
    ],
)
def test_in_a_folder_a_cd_names_only_words_no_hardline_class_holds_are_alike(
    engine: Engine, cd: str, command: str
) -> None:
    """In a folder a `cd` names, words are read alike when no glob of a class a hardline matcher
    reads holds them there (`a1`, `a2` in `~/.ssh` are credentials to other matchers: alike to
    these). `bin` in `/usr` is system_top: it must keep its own run."""
    alone = f"{cd} {command}"
    assert judge(engine, alone).hardline
    for long in (f"{cd} " + _decoys("rm -rf a{}") + command, _decoys("rm -rf a{}") + alone):
        verdict = judge(engine, long)
        assert (verdict.decision, verdict.hardline) == ("deny", True), long[-60:]


def test_a_cd_into_the_engines_files_before_look_alikes_is_hardline(engine: Engine, parent: Path) -> None:
    """Every word there is the engine's own state: none is plain, each run is its own (and the
    scan stops after the first matches: the verdict is a hardline deny already)."""
    assert judge(engine, "cd state; rm -rf a1").hardline
    verdict = judge(engine, "cd state; " + _decoys("rm -rf a{}"))
    assert (verdict.decision, verdict.hardline) == ("deny", True)


CONTINUED = [
    "rm -rf \\\n~",
    "r\\\nm -rf ~",
    "rm -rf h\\\nl",
    "cd \\\n/; rm -rf etc",
    "c\\\nd /; rm -rf etc",
    "echo a\\\\\nrm -rf ~",  # an escaped backslash: the line break ends the echo
]


@pytest.mark.parametrize("command", CONTINUED, ids=range(len(CONTINUED)))
def test_a_line_continuation_behind_look_alikes_is_hardline(engine: Engine, command: str) -> None:
    """Found by rt6: bash joins the lines at a backslash before a line break; the flat scan cut
    the text there (a line break ends a piece) and dropped the backslash, so `rm -rf \\<LF>~`
    was `rm -rf` and `~`, and `cd \\<LF>/` a bare `cd` (home), among look-alikes an ask."""
    assert_hardline_padded(engine, command, around(command, _decoys("rm -rf a{}"))[1:])


LINKED_THEN_ENTERED = [
    "ln -s / zz; cd zz; rm -rf etc",
    "ln -s / zz && cd zz && rm -rf usr",
    "ln -sfn / a7; cd a7; rm -rf etc",
    "cp -as / zz; cd zz; rm -rf etc",
    "ln -s / zz; pushd zz; rm -rf etc",
]


@pytest.mark.parametrize("command", LINKED_THEN_ENTERED, ids=range(len(LINKED_THEN_ENTERED)))
def test_a_folder_linked_on_the_line_then_entered_is_no_way_past_the_fold(engine: Engine, command: str) -> None:
    """Found by rt6: `zz` is not on disk when the line is judged, so the fold read `etc` in it
    like `a1` (and the run `rm -rf etc` in `zz` is harmless on disk): among look-alikes an ask."""
    assert_hardline_padded(engine, command, around(command, _decoys("rm -rf a{}"))[1:])


@pytest.mark.parametrize("command", ["cd -P -L -P /; rm -rf etc", "cd -@ -P -L /; rm -rf usr"])
def test_a_cd_behind_options_before_look_alikes_is_hardline(engine: Engine, command: str) -> None:
    """Found by rt6: the flat scan reads three words after a `cd`; all options, it took the `cd`
    for one that names no folder, and `etc` in `/` was read like `a1` here."""
    assert_hardline_padded(engine, command, around(command, _decoys("rm -rf a{}"))[1:])


WRAPPED_MOVES = [
    "builtin cd /; rm -rf etc",
    "command cd /; rm -rf etc",
    "builtin cd / && rm -rf usr",
    "builtin pushd /; rm -rf etc",
    "sudo ln -s / zz; cd zz; rm -rf etc",
    "command ln -s / zz; cd zz; rm -rf etc",
    "env ln -s / zz; cd zz; rm -rf etc",
    "nice ln -s / zz; cd zz; rm -rf etc",
]


@pytest.mark.parametrize("command", WRAPPED_MOVES, ids=range(len(WRAPPED_MOVES)))
def test_a_wrapped_cd_or_link_moves_the_runs_after_it(engine: Engine, command: str) -> None:
    """Found by rt6, in SHORT lines (each was allowed): the parser followed a `cd` or a link only
    when no wrapper ran it; `builtin cd /` moves this shell, `env ln -s / zz` links all the same."""
    assert_hardline_padded(engine, command, around(command, _decoys("rm -rf a{}"))[1:])


def test_a_flat_scan_past_its_cpu_time_fails_closed(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by rt6: `cd hl; rm -rf aN; ...` (hl -> HOME, nothing folds) took 2-4 s at 64 KiB. The flat
    scan now stops after FLAT_SECONDS of CPU, and what it did not judge is a hardline deny, not an ask."""
    text = "cd hl; " + PADDING
    assert judge(engine, text).decision != "allow"
    monkeypatch.setattr(evaluate, "FLAT_SECONDS", 0.0)
    verdict = judge(engine, text + "x")  # another text: no cached parse
    assert (verdict.decision, verdict.hardline, verdict.grantable) == ("deny", True, False)
    assert any(m.key == "unjudged_text" for m in verdict.matches)


# -- forms made in bytes (_forms_by_bytes): a payload among thousands of distinct commands --------
# The fold's forms are made without a step per word when few distinct words are kept: each kept
# word is replaced whole (twice where two share a blank), the rest shrink to one mark. The
# attacker's way in is a word replaced inside another, two pieces the marks make equal, or a
# kept word next to its twin.

FORMS_HIDDEN = [
    # at the end of 64 KiB of distinct commands (the benchmark's shape)
    ("".join(f"rm a{i}; " for i in range(MAX_LENGTH // 7)), "rm -rf /"),
    ("".join(f"rm a{i}; " for i in range(MAX_LENGTH // 7)), "rm -rf hl"),
    # words never seen before, as the 'new words' shape sends them
    ("".join(f"rm n7x{i}; " for i in range(MAX_LENGTH // 9)), "rm -rf alice"),
    # a kept word twice with one blank between them (`rm rm` shares the blank)
    ("".join(f"rm rm a{i}; " for i in range(MAX_LENGTH // 10)), "rm rm -rf /"),
    # a plain name that holds a kept word (`rmx`, `xrm`) is not the kept word
    ("".join(f"rm xrm{i} rmx; " for i in range(MAX_LENGTH // 14)), "rm -rf ~"),
    # an empty word (two blanks) is no folded word: `rm  ` is not `rm a`
    ("".join(f"rm  a{i}; " for i in range(MAX_LENGTH // 8)), "rm  -rf  /"),
    # kept words found where they stand (_FlatFold._kept): each taken out of the text once found, in
    # every place (first, last, twice in a row); words that are no plain name past _UNPLAIN_MANY
    ("".join(f"rm -v a{i} -v -v; " for i in range(MAX_LENGTH // 18)), "rm -v -rf -v /"),
    ("".join(f"rm\ta{i}; " for i in range(MAX_LENGTH // 8)), "rm\t-rf\t/"),
    ("".join(f"rm id_rsa{i}; " for i in range(MAX_LENGTH // 13)), "rm -rf id_rsa ~"),
]


@pytest.mark.parametrize("padding,command", FORMS_HIDDEN, ids=range(len(FORMS_HIDDEN)))
def test_a_hardline_among_distinct_commands_is_hardline(engine: Engine, padding: str, command: str) -> None:
    assert len(padding) > MAX_LENGTH
    assert_hardline_padded(engine, command, around(command, padding)[1:])


@pytest.mark.parametrize("size", [4096, 4096 - 7, 4096 + 7])
def test_a_hardline_at_a_4_kib_boundary_is_hardline(engine: Engine, size: int) -> None:
    """Past the token budget (4 KiB of `rm aN;`), the flat scan reads the whole text: a payload
    where the padding ends, or cut by the 4 KiB mark, is found."""
    padding = "".join(f"rm a{i}; " for i in range(size // 7))
    padding = padding[: padding.rfind("; ", 0, size - 1) + 2].ljust(size)  # the payload starts at `size`
    for command in ("rm -rf /", "rm -rf hl"):
        for text in (padding + command, padding[:-1] + command):
            verdict = judge(engine, text)
            assert (verdict.decision, verdict.hardline) == ("deny", True), text[-40:]


def test_forms_by_bytes_are_the_dict_forms() -> None:
    """The seam: _forms_by_bytes makes the same partition of pieces as mapping each word."""
    pieces = [b"rm a1", b"rm a2", b"rm  a3", b"rm rm a4", b"rm xrm", b"rm -rf a5", b"rm -rf b6", b"ls a1", b"", b"rm"]
    joined = b" \n ".join(pieces)
    words = set(joined.split(b" ")) - {b"", b"\n"}
    kept = {b"rm", b"ls", b"-rf"}
    forms = evaluate._forms_by_bytes(joined, kept)
    mapping = dict.fromkeys(words - kept, b"\xfe")
    reference = [b" ".join(map(mapping.get, p.split(b" "), p.split(b" "))) for p in pieces]
    assert len(forms) == len(pieces)
    for i in range(len(pieces)):
        for j in range(len(pieces)):
            assert (forms[i] == forms[j]) == (reference[i] == reference[j]), (pieces[i], pieces[j])


@pytest.mark.parametrize("padding,command", [*FORMS_HIDDEN, *FOLD_HIDDEN], ids=range(len(FORMS_HIDDEN + FOLD_HIDDEN)))
def test_the_words_the_fold_keeps_where_they_stand_are_the_words_it_keeps(
    engine: Engine, padding: str, command: str
) -> None:
    """The seam: a word _FlatFold._kept folds (found over the text's words in place) is one _boring
    folds when asked of it alone, and the quick way is taken for the benchmark's shapes."""
    evaluator = engine._evaluator(engine._snapshot)
    index = evaluator._index(evaluator.patterns_for("terminal", "command"))
    fold = evaluate._FlatFold.of(index)
    text = (padding[:8000] + command).encode()
    lines = text.translate(evaluate._FLAT_PIECE_BYTES).replace(b" ", b"\n")
    kept = fold._kept(evaluator.classifier.view(), text, lines)
    if padding.startswith("rm a"):
        assert kept is not None and len(kept) < 8
    if kept is None:
        return
    words = set(lines.split(b"\n")) - {b""}
    for word in sorted(words - kept)[:300]:
        assert fold._boring(evaluator.classifier.view(), (), text, {word}) == {word}, word


def test_flat_scan_tables_are_built_with_the_engines_evaluator(work_engine: Engine) -> None:
    """Issue 10: the classifier's plain finders (~1,000 class globs to RE2) and the terminal's flat fold
    are built with the Engine's evaluator, so no check (a 1 KiB text whose pieces the flat scan folds)
    pays them; another evaluator of the same policy shares the finders."""
    # The finders' store is per process and cleared whole when 64 are kept: other tests in this worker may
    # have filled it, and a clear between this test's two builds would give the second evaluator new ones.
    paths._LINES_FINDERS.clear()
    assert work_engine.check("ls").decision == "allow"  # a short text: no flat scan
    first = work_engine._evaluator(work_engine.snapshot)
    assert first.classifier._plain, "the plain finders are left to the first long text"
    terminal = first.patterns_for("terminal", "command")
    built = [index for patterns, index in first._indexes.values() if patterns is terminal]
    assert built and built[0].flat_fold is not None, "the flat fold is left to the first long text"
    places = first.classifier.places
    assert places is not None
    other = evaluate.Evaluator(first.policy, places.cwd, places)
    assert other.classifier._plain is None  # built on demand (a guard event's evaluator judges one call)
    assert other.classifier._plain_finders()[0] is first.classifier._plain_finders()[0]  # type: ignore[index]


@pytest.mark.parametrize(
    "text",
    [
        "a=" + "x" * 128 + "; " + "$a " * 30000,  # one value referred to 30,000 times
        "{" + ",".join(["{a,b,c,d}"] * 12) + "} " * 6000,  # brace words of 48 words each
        "".join(f"v{i}={i}; " for i in range(5000)) + "$v1 " * 20000,  # more names than it takes
    ],
)
def test_the_expanded_reading_of_a_long_text_stays_bounded(text: str) -> None:
    """The flat scan's expanded reading (evaluate._flat_expanded) adds at most _FLAT_ROOM characters, whatever the
    text asks for: a text built to grow it does not make the flat scan read megabytes."""
    from engine.policy.evaluate import _FLAT_ROOM, _flat_expanded

    expanded = _flat_expanded(text)
    assert expanded is not None and expanded != text
    assert len(expanded) <= len(text) + _FLAT_ROOM
    assert _flat_expanded("echo " + "a" * MAX_LENGTH) is None  # nothing to expand: no second reading
