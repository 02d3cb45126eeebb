"""debt42 (stop 42, issue 8): stop 41's hand-written option walkers and Python name sets, as grammar and data.

Found and fixed:
1. THE COPY-TARGET WALKER (shell.Analyzer._copies) read cp/mv/install/rsync words by hand: only the exact spellings
   `-t DIR`, `--target-directory[=DIR]` named the folder the copies land in, and a fixed list of valued options.
   `cp --target d x.txt; sh d/x.txt` (getopt_long's abbreviation), `cp -vt d`, `cp -td` (a bundle, an attached
   value), `mv -ft d` and `install -Dvt bin` were allowed with a script the session wrote; rsync's `-t` (--times)
   took the next word as the target and `-e ssh` left `ssh` a source (`rsync -t x.txt y; sh y` allowed). The words
   are now read by the program's grammar (argv.parse_argv over its Programs entry; gcp/gmv/ginstall join cp/mv/
   install's entries).
2. SPLIT'S AND CSPLIT'S PREFIX (trees.split_prefix) was read by another hand walker: `csplit --pre=p x.txt 1; sh
   p00` (an abbreviation of --prefix) was allowed. Now the entry's grammar reads the words, the prefix is where the
   entry's `as: path, prepend: tee` run reads (split's operand 1, csplit's -f), and the default prefixes (`x`,
   `xx`) are the entries' `pieces_prefix:` (a project's splitter gets the same reading).
3. links.UNPACKED_HERE (a Python set) is the entries' `unpacks_here: true` (ProgramTable.unpacks_here): the programs
   judged again where a link made on the line below their folder points (`ln -s ~ b/h; cd b && unrar x a.rar`).
   Programs no other field describes (unrar, lha, pax ...) have an entry with only that, and stay undescribed.
   busybox-cpio, borgbackup and gcc-ar (names of cpio's, borg's and ar's entries) are in it now too.
4. The Matcher's Final and derived fields are two named groups (matchers._MATCHER_FINAL, _MATCHER_DERIVED), checked
   against the class's annotations here.
5. `cd ~ && busybox-cpio -idm < a.cpio` and `cd ~ && borg extract r::a` were allowed (unpack_into_protected_folder
   named cpio and bsdcpio, and no borg): they ask, busybox-cpio -i from any folder as `busybox cpio -i` does.

Open: nothing found here is left open.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy import matchers
from engine.policy.shell import Analyzer, parse
from engine.policy.trees import split_prefix, splits
from tests.redteam.harm import (
    Case,
    allowed_payloads,
    assert_verdict,
    flagged_near_misses,
    policy_project,
    validated_policy,
    verdict_cases,
    written_then_stopped,
)

SCRIPT = "#!/bin/sh\nrm -rf ~\n"
SAFE = "#!/bin/sh\necho hello\n"


# -- 1. copies: the copier's words as its grammar reads them ---------------------------------------------------------
COPIED: dict[str, Case] = {
    "cp --target (abbreviated)": ({"x.txt": SCRIPT}, "cp --target d x.txt; sh d/x.txt"),
    "cp --targ=": ({"x.txt": SCRIPT}, "cp --targ=d x.txt; sh d/x.txt"),
    "cp -vt (a bundle)": ({"x.txt": SCRIPT}, "cp -vt d x.txt; sh d/x.txt"),
    "cp -td (an attached value)": ({"x.txt": SCRIPT}, "cp -td x.txt; sh d/x.txt"),
    "install -Dvt": ({"x.txt": SCRIPT}, "install -Dvt bin x.txt && bash bin/x.txt"),
    "mv -ft": ({"x.txt": SCRIPT}, "mv -ft d x.txt; sh d/x.txt"),
    "gcp --target-directory": ({"x.txt": SCRIPT}, "gcp --target-directory=d x.txt; sh d/x.txt"),
    "ginstall -m": ({"x.txt": SCRIPT}, "ginstall -m 755 x.txt y; ./y"),
    "rsync -t (--times, no target)": ({"x.txt": SCRIPT}, "rsync -t x.txt y; sh y"),
    "rsync -e (a valued option)": ({"x.txt": SCRIPT}, "rsync -e ssh x.txt y; sh y"),
    "cp -S (a valued option, still)": ({"x.txt": SCRIPT}, "cp -S .bak x.txt y; sh y"),
}
COPIED_NEAR: dict[str, Case] = {
    "cp --target, then listed": ({"x.txt": SCRIPT}, "cp --target d x.txt; ls d"),
    "cp -vt, then counted": ({"x.txt": SCRIPT}, "cp -vt d x.txt && wc -l d/x.txt"),
    "rsync -t, then read": ({"x.txt": SCRIPT}, "rsync -t x.txt y; cat y"),
    "install -m, another script run": ({"x.txt": SCRIPT, "run.sh": SAFE}, "install -m 755 x.txt y; sh run.sh"),
    "cp -t of the project's files": ({}, "cp -t build a.txt b.txt && ls build"),
    "mv -t, a safe script run": ({"x.txt": SAFE}, "mv -t d x.txt; sh d/x.txt"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(COPIED, COPIED_NEAR))
def test_a_copy_of_a_written_script_is_found_whatever_the_copier_s_option_spelling(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.parametrize(
    "payload", ["mkdir d; cp -vt d x.sh; sh d/x.sh", "mkdir d; cp --targ=d x.sh; sh d/x.sh"], ids=["-vt", "--targ="]
)
def test_a_copy_into_a_target_folder_then_run_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str
) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"x.sh": SCRIPT}, payload)


def _copies(engine: Engine, line: str) -> list[tuple[str, bool, str | None]]:
    """What Analyzer._copies records for the last command of ``line`` (through the builtin table)."""
    table = engine.snapshot.policy.programs
    command = parse(line, table)[0]  # (the copier: what it runs follows it)
    return Analyzer(table)._copies(command)


@pytest.mark.parametrize(
    ("line", "landed"),
    [
        ("cp --target d a b", ["d/a", "d/b"]),
        ("cp -vtd a", ["d/a"]),
        ("install -m 644 a share/", ["share/a"]),
        ("rsync -t a y", ["y", "y/a"]),  # -t is --times: y is the destination
        ("rsync -e ssh a y", ["y", "y/a"]),  # ssh is -e's value, no source
        ("cp -- -t d", ["d", "d/-t"]),  # after --, -t is a source
        ("link a b", ["b", "b/a"]),  # undescribed: every word an operand
    ],
)
def test_the_copier_seam_reads_the_grammar(engine: Engine, line: str, landed: list[str]) -> None:
    assert [target for target, _, _ in _copies(engine, line)] == landed


# -- 2. splitters: the prefix by the grammar, the default as data ----------------------------------------------------
SPLIT: dict[str, Case] = {
    "csplit --pre (abbreviated)": ({"x.txt": SCRIPT}, "csplit --pre=p x.txt 2; sh p01"),
    "csplit -sfp (a bundle)": ({"x.txt": SCRIPT}, "csplit -sfp x.txt 2; sh p01"),
    "split --lin= (abbreviated valued option)": ({"x.txt": SCRIPT}, "split --lin=1 x.txt p; sh pab"),
    "gsplit, its default prefix": ({"x.txt": SCRIPT}, "gsplit -l 1 x.txt; sh xab"),
    "csplit, its default prefix": ({"x.txt": SCRIPT}, "csplit -s x.txt 2; sh xx01"),
}
SPLIT_NEAR: dict[str, Case] = {
    "csplit --pre, counted": ({"x.txt": SCRIPT}, "csplit --pre=p x.txt 2; wc -l p01"),
    "split of the project's data": ({}, "split -l 100 data.csv chunk_ && wc -l chunk_aa"),
    "split, another script run": ({"x.txt": SCRIPT, "run.sh": SAFE}, "split --lin=1 x.txt p; sh run.sh"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(SPLIT, SPLIT_NEAR))
def test_a_piece_of_a_written_script_is_found_whatever_the_splitter_s_spelling(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_csplit_s_abbreviated_prefix_then_run_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"x.sh": SCRIPT}, "csplit -s --pre=p x.sh 2; sh p01")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("split x.txt", ("x.txt", "x")),
        ("split -a 3 -l5 x.txt p", ("x.txt", "p")),
        ("split --lines 5 -- - p", ("-", "p")),
        ("split --filter='sh' x.txt", ("x.txt", "x")),
        ("csplit -s x.txt 2", ("x.txt", "xx")),
        ("csplit -b %d -fp x.txt 2", ("x.txt", "p")),
        ("csplit --pref p x.txt 2", ("x.txt", "p")),
        ("gcsplit -n 3 x.txt 2", ("x.txt", "xx")),
        ("sort x.txt", ("-", "")),
    ],
)
def test_the_splitter_seam_reads_the_entry(engine: Engine, line: str, expected: tuple[str, str]) -> None:
    command = parse(line, engine.snapshot.policy.programs)[0]  # (the splitter: a filter it runs follows it)
    assert split_prefix(command) == expected
    assert splits(command) == bool(expected[1])


# A project's own splitter and unpacker, described as data only.
MINE = """\
kind: Programs
name: mine
programs:
  - program: [chop]
    getopt: "n:o:"
    pieces_prefix: part
    runs: [{option: [o], as: path, prepend: tee}]
  - program: [myunpack]
    unpacks_here: true
---
kind: DangerPatterns
name: mine-patterns
description: The project's unpacker run in the home.
patterns:
  - key: myunpack_in_home
    description: myunpack writes its members in the folder it runs in
    severity: dangerous
    match:
      - command: [myunpack]
        cwd: {classes: [protected_parent]}
    examples:
      match: ["cd ~ && myunpack a.pkg"]
      not_match: [myunpack a.pkg]
"""


@pytest.fixture(scope="module")
def own_programs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "debt42own", MINE) as loaded:
        yield loaded


OWN: dict[str, Case] = {
    "a project's splitter, its default prefix": ({"x.txt": SCRIPT}, "chop -n 2 x.txt; sh partaa"),
    "a project's splitter, its option": ({"x.txt": SCRIPT}, "chop -o q x.txt; sh qaa"),
    "a project's unpacker through a link": ({}, "mkdir b; ln -s ~ b/h; cd b && myunpack /tmp/a.pkg"),
}
OWN_NEAR: dict[str, Case] = {
    "a project's splitter, another prefix run": ({"x.txt": SCRIPT, "run.sh": SAFE}, "chop -o q x.txt; sh run.sh"),
    "a project's unpacker, no link": ({}, "mkdir b; cd b && myunpack /tmp/a.pkg"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(OWN, OWN_NEAR))
def test_a_project_s_entry_makes_a_splitter_or_an_unpacker(
    own_programs: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(own_programs, case, allowed, session)


# -- 3. unpacks_here as data ------------------------------------------------------------------------------------------
# links.UNPACKED_HERE as stop 41 left it (the entries it named have three more names: busybox-cpio, borgbackup, gcc-ar)
STOP41_UNPACKED_HERE = frozenset(
    {"tar", "bsdtar", "gtar", "unzip", "busybox-unzip", "7z", "7za", "7zr", "7zz", "cpio", "bsdcpio", "pax", "unrar"}
    | {"rar", "lha", "arj", "zpaq", "ar", "jar", "unar", "aunpack", "dtrx", "cabextract", "unsquashfs", "patch"}
    | {"gpatch", "git", "borg", "uudecode", "unshar"}
)


def test_the_table_s_unpackers_are_stop_41_s_and_their_entries_other_names(engine: Engine) -> None:
    table = engine.snapshot.policy.programs
    assert table.unpacks_here - STOP41_UNPACKED_HERE == {"busybox-cpio", "borgbackup", "gcc-ar"}
    assert table.unpacks_here >= STOP41_UNPACKED_HERE
    for name in table.unpacks_here & frozenset(table.by_name):
        assert table.by_name[name].unpacks_here, name
    # an entry with only `unpacks_here` leaves its program undescribed (its words an undescribed program's)
    assert table.get("unrar") is None and table.get("lha") is None
    # the entries split off a shared one keep its grammar and runs (ar's from ld's, jar's from the JDK's, unzip's)
    # (adv57: the linkers left the shared entry for their -o; ar's is nm's)
    assert table.get("ar").grammar == table.get("nm").grammar and not table.get("nm").unpacks_here
    shape = [(r.source, r.kind, r.names, r.language) for r in table.get("javac").runs]  # (its regexes: by identity)
    assert [(r.source, r.kind, r.names, r.language) for r in table.get("jar").runs] == shape
    assert not table.get("javac").unpacks_here
    assert table.get("unzip").prints == "stored" and not table.get("locate").unpacks_here


THROUGH_A_LINK = [
    "mkdir -p b && ln -s ~ b/h && cd b && unrar x /tmp/a.rar",
    "mkdir -p b && ln -s ~ b/h && cd b && ar x /tmp/a.a",
    "mkdir -p b && ln -s ~ b/h && cd b && jar xf /tmp/a.jar",
    "mkdir -p b && ln -s ~ b/h && cd b && unzip -o /tmp/a.zip",
    "mkdir -p b && ln -s ~ b/h && cd b && pax -r -f /tmp/a.pax",
    "mkdir -p b && ln -s ~/.ssh b/k && cd b && busybox-cpio -idm < /tmp/a.cpio",
]
THROUGH_A_LINK_NEAR = [
    "mkdir -p b && ln -s ~ b/h && cd b && nm a.o",  # ld's entry, split from ar's
    "mkdir -p b && ln -s ~ b/h && cd b && locate x",  # unzip's old entry
    "mkdir -p b && ln -s ~ b/h && cd b && javac M.java",  # the JDK's, split from jar's
    "cd build && unrar x /tmp/a.rar",
    "ar rcs libx.a a.o",
]


def test_an_unpacker_named_by_data_is_judged_through_a_link(plain_project: tuple[Path, Engine]) -> None:
    _, engine = plain_project
    assert allowed_payloads(engine, THROUGH_A_LINK) == []
    assert flagged_near_misses(engine, THROUGH_A_LINK_NEAR) == []


# the same programs by another name in the home: the unpack_into_protected_folder rows name them too
IN_THE_HOME = [
    "cd ~ && busybox-cpio -idm < /tmp/a.cpio",
    "cd ~/.ssh && busybox-cpio -i < /tmp/a.cpio",
    "busybox-cpio -i < /tmp/a.cpio",  # busybox keeps `../` in names, from any folder (as `busybox cpio -i`)
    "cd ~ && borg extract /mnt/r::a",
    "cd ~/.config && borgbackup extract /mnt/r::a",
]
IN_THE_HOME_NEAR = [
    "busybox-cpio -t < /tmp/a.cpio",
    "cd build && borg extract /mnt/r::a",
    "cd ~ && borg extract --dry-run /mnt/r::a",
    "cd ~ && borg list /mnt/r",
    "cd ~ && borg extract --stdout /mnt/r::a etc/x",
]


def test_an_unpacker_in_the_home_by_another_name_is_not_allowed(plain_project: tuple[Path, Engine]) -> None:
    _, engine = plain_project
    assert allowed_payloads(engine, IN_THE_HOME) == []
    assert flagged_near_misses(engine, IN_THE_HOME_NEAR) == []


@pytest.mark.parametrize(
    ("entry", "message"),
    [("unpacks_here: maybe", "unpacks_here"), ('pieces_prefix: ""', "pieces_prefix")],
    ids=["unpacks_here not a boolean", "pieces_prefix empty"],
)
def test_a_malformed_field_is_a_located_validate_error(tmp_path: Path, entry: str, message: str) -> None:
    code, out = validated_policy(
        tmp_path, "mine.yaml", f"kind: Programs\nname: mine\nprograms:\n  - program: [z]\n    {entry}\n"
    )
    assert code == 1 and "Traceback" not in out, out
    assert message in out and "mine.yaml" in out, out


# -- 4. the Matcher's field groups ------------------------------------------------------------------------------------
def _group_problems(source: str, final: tuple[str, ...], derived: tuple[str, ...]) -> list[str]:
    """Where class Matcher's annotations in ``source`` disagree with the named groups: a `Final` field must be in
    ``final``, any other in ``derived``, and each group's fields declared."""
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Matcher")
    declared: dict[str, bool] = {}
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            kind = ast.unparse(node.annotation)
            if not kind.startswith("ClassVar"):
                declared[node.target.id] = kind.startswith("Final")
    problems = [
        f"{name}: Final, not in the Final group"
        for name, is_final in declared.items()
        if is_final and name not in final
    ]
    problems += [
        f"{name}: writable, not in the derived group"
        for name, is_final in declared.items()
        if not is_final and name not in derived
    ]
    problems += [f"{name}: in a group, not declared" for name in (*final, *derived) if name not in declared]
    return problems


def test_the_matcher_s_final_and_derived_fields_are_the_named_groups() -> None:
    source = _matchers_source()
    assert (*matchers._MATCHER_FINAL, *matchers._MATCHER_DERIVED) == matchers._MATCHER_FIELDS
    assert _group_problems(source, matchers._MATCHER_FINAL, matchers._MATCHER_DERIVED) == []
    assert set(matchers._MATCHER_INIT) | set(matchers._MATCHER_WORKED_OUT) == set(matchers._MATCHER_FIELDS)
    # a field added to the wrong group is caught: a Final one listed as derived, a writable one listed as Final
    wrong = source.replace(
        "    self_piped: Final[bool | None]\n", "    self_piped: Final[bool | None]\n    extra: Final[int]\n"
    )
    assert _group_problems(wrong, matchers._MATCHER_FINAL, (*matchers._MATCHER_DERIVED, "extra")) == [
        "extra: Final, not in the Final group"
    ]
    wrong = source.replace("    uses_shape: bool\n", "    uses_shape: bool\n    extra: int\n")
    assert _group_problems(wrong, (*matchers._MATCHER_FINAL, "extra"), matchers._MATCHER_DERIVED) == [
        "extra: writable, not in the derived group"
    ]


def _matchers_source() -> str:
    """engine/policy/matchers.py's text (the compiled build's module is a .so beside it)."""
    return (Path(__file__).resolve().parents[2] / "engine" / "policy" / "matchers.py").read_text()
