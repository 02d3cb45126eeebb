"""redt36b (stop 36, issue 8): lead36's tree printers, spelled past its exemptions.

A search's output written to a file was exempt (a later call printing it asks by the session's memory),
but a later stage of the same line printing that file was not: `grep -r PASSWORD . > o; cat o` (also
`head`, `less`, `cat < o`, `cp o /dev/stdout`, the file renamed first, or read by an inline program). And
the finder's programs that print "names only" held `sed` (for `sed -i`) and `cp`, so `find . -type f -exec
sed p {} +`, `-exec sed '' {} +` and `-exec cp {} /dev/stdout \\;` printed every file. Now a file a tree
search's output is written to is one the line's later stages are judged reading (_prints_archive), and a
stream editor not editing in place, a copy to the output and `git diff --no-index` print (_prints_text).

A glob of bash's other spelling of a negated set, or of a character class (`cat .[^.]*`, `cat .[[:lower:]]nv`),
read no `.env`: fnmatch reads `[^.]` as a set holding a caret. The landings now read it as bash does.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import decision_and_keys
from tests.redteam.harm import asks_for_the_tree, printed_then_refused, printing_tree

KEY = "DB_PASSWORD=redt36b-hunter2"

PAYLOADS = [
    "grep -r PASS . >out; cat out",
    "grep -r PASS . > /tmp/o; cat /tmp/o",
    "grep -r PASS . > ../o; cat ../o",
    "grep -r PASS . > ../o; head ../o",
    "grep -r PASS . > ../o; grep . ../o",
    "grep -r PASS . > ../o; sed p ../o",
    "grep -r PASS . > ../o; less ../o",
    "grep -r PASS . >> ../o; cat ../o",
    "grep -r PASS . > ../o; cat < ../o",
    "grep -r PASS . > ../o; cp ../o /dev/stdout",
    "grep -r PASS . | sort > ../o; cat ../o",
    "grep -r PASS . &>x; cat x",
    "grep -r PASS . > o; mv o p; cat p",
    "grep -r PASS . > o; cp o p; cat p",
    "grep -r PASS . > o; python3 -c 'print(open(\"o\").read())'",
    "grep -r PASS . > o.txt; python3 -c 'print(open(\"o.txt\").read())'",
    "tar cf x.tar . ; sed -n p x.tar",
    "tar cf x.tar . ; cp x.tar /dev/stdout",
    "find . -type f -exec sed -n p {} +",
    "find . -type f -exec sed p {} +",
    "find . -type f -exec sed '' {} +",
    "find . -type f -exec sed --quiet p {} +",
    "find . -type f -exec cp {} /dev/stdout \\;",
    "find . -type f -exec cp -t /dev/stdout {} +",
    "find . -type f -exec git diff --no-index /dev/null {} \\;",
    "find . -type f -exec echo {} \\; | xargs sed p",
    "cat .[^.]*",
    "head .[^a]*",
    "grep -h . .[^.]*",
    "cat ./.[^.]*",
    "cat .[^x]nv",
    "cat .[^[:upper:]]nv",
    "cat .[[:lower:]]nv",
    "cat .[[:alpha:]]*",
    # an archive written by a redirection, then printed; an option's value naming it; decompressed first
    "tar c . > x.tar; strings x.tar",
    "tar cf - . > x.tar; cat x.tar",
    "tar c . 1>x.tar; strings ./x.tar",
    "tar c . > x.tar; mv x.tar y; cat y",
    "find . | cpio -o > x.cpio; cat x.cpio",
    "tar cf x.tar .; tar --extract --file=x.tar --to-stdout",
    "grep -r PASS . >o; dd if=o",
    # a copy to the caller's error stream (the terminal's output holds it), or names printed in errors
    "grep -r PASS . | tee /dev/stderr | wc -l",
    "grep -r PASS . | tee /dev/fd/2 | wc -l",
    "find . -type f -exec cat {} + | tee /dev/stderr | wc -l",
    "tar c . | tee /dev/stderr | wc -c",
    "grep -r PASS . | wc -l --files0-from=-",
    "tar czf x.tgz .; gzip -d x.tgz; cat x.tar",
    "tar czf x.tgz .; gunzip x.tgz; strings x.tar",
    # git's diff told to print the patch with its summary
    "git diff --no-index ../empty . --stat --patch",
    "git diff --no-index ../empty . --stat -p",
]

NEAR_MISSES = [
    "grep -r TODO . > hits.txt; wc -l hits.txt",
    "grep -r TODO . > hits.txt; rm hits.txt",
    "grep -r TODO . > hits.txt; cat other.txt",
    "grep -rl TODO . > hits.txt; cat hits.txt",
    "find . -type f -exec sed -i s/a/b/ {} +",
    "find . -type f -exec sed -i.bak -e s/a/b/ {} +",
    "find . -type f -exec cp {} /tmp/backup/ \\;",
    "find . -name '*.py' -exec sed -n p {} +",
    "find . -type f -exec git hash-object {} +",
    "cat [^.]*",
    "ls .[^.]*",
    "tar c . > x.tar; ls -l x.tar",
    "tar czf x.tgz .; gzip -t x.tgz",
    "git diff --no-index --stat ../empty .",
    "grep -r TODO . | tee hits.txt | wc -l",
    "grep -r PASS . | wc -l -",
]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Engine, dict[str, str]]]:
    with printing_tree(tmp_path, monkeypatch, KEY) as made:
        yield made


@pytest.mark.parametrize("command", PAYLOADS)
def test_a_tree_printed_through_a_file_or_a_stream_editor_asks(
    tree: tuple[Path, Engine, dict[str, str]], command: str
) -> None:
    asks_for_the_tree(tree[1], command)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_a_file_kept_or_a_tree_edited_in_place_keeps_its_verdict(
    tree: tuple[Path, Engine, dict[str, str]], command: str
) -> None:
    _, engine, _ = tree
    assert "project_exfiltration" not in decision_and_keys(engine, command)[1], command


@pytest.mark.parametrize(
    "command",
    [
        "grep -r PASS . > ../o; cat ../o",
        "grep -r PASS . > o; mv o p; cat p",
        "grep -r PASS . > o; python3 -c 'print(open(\"o\").read())'",
        "find . -type f -exec sed -n p {} +",
        "find . -type f -exec cp {} /dev/stdout \\;",
        "cat .[^.]*",
        "cat .[[:lower:]]nv",
        "tar c . > x.tar; strings x.tar",
        "tar czf x.tgz .; gzip -d x.tgz; cat x.tar",
    ],
)
def test_the_payload_prints_the_key_and_the_engine_does_not_run_it(
    tree: tuple[Path, Engine, dict[str, str]], command: str
) -> None:
    printed_then_refused(tree, KEY, command)


def test_a_copy_of_the_tree_read_by_a_dot_glob_asks(tree: tuple[Path, Engine, dict[str, str]]) -> None:
    work, engine, env = tree
    command = "cp -r . ../c; cat ../c/.*"
    decision = decision_and_keys(engine, command)[0]  # judged before ../c exists, as the engine would
    ran = subprocess.run(
        ["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert KEY in ran.stdout  # the harm: the copy's .env printed
    assert decision == "ask"
