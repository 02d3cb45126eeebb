"""A generated differential of paths._relative_glob (flat29): what a class glob asks of NAME once
the working directory FOLDER has matched its start must hold every NAME the whole glob holds as
FOLDER/NAME. A name it wrongly leaves out is read as only `relative` by the flat scan's fold, which
fails open. The reference is the engine's own reading of the whole path (the class glob's regex,
case ignored, as the finders search it) and, for globs fnmatch reads the same way (no `**`, braces
or escapes), fnmatch itself.

Globs are random segments of literals, wildcards, classes, escapes and braces, or built from the
folder's own segments (most random globs spell another folder): each kept, made a wildcard, capitals
or braces, or a run of them read by `**`. Cheap: pure functions on Python's re, no engine."""

from __future__ import annotations

import fnmatch
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.policy.paths import GlobError, _relative_glob, glob_to_regex

SEGMENT_PIECES = [
    "a", "b", "x", ".git", "tmp", "A", "-", ".", "*", "?", "**", "[ab]", "[!a]", "[a-c]", "[.]",
    "{a,b}", "{x,}", "{a/b,x}", "{**/,}", "\\*", "\\?", "\\a", "{a,{b,x}}", "{*",
]  # fmt: skip
FOLDER_SEGMENTS = ["a", "b", "x", "ab", "xa", ".git", "tmp", "A", "a.b", "a-b", "*", "?", "[a]", "{a}", "a,b"]
NAMES = ["a", "b", "x", "ab", "xa", "A", "c", "zz", "tmp", "git", "a.b", "x-1"]
NAME_CHARS = "abxAB.-_+1"
ENDS = ["*", "**", "a", "x*", "*b", "?", "{a,b}", "a**", "**/x", ".git", "[ab]", "\\*"]


def _random_glob(rng: random.Random) -> str:
    segments = ["".join(rng.choices(SEGMENT_PIECES, k=rng.randint(1, 3))) for _ in range(rng.randint(1, 5))]
    return rng.choice(["/", "~/", "", "!/"]) + "/".join(segments)


def _near_glob(rng: random.Random, folder: str) -> str:
    out: list[str] = []
    segments = folder[:-1].split("/")
    i = 0
    while i < len(segments):
        segment = segments[i]
        how = rng.choice(["keep", "keep", "keep", "star", "q", "prefix", "upper", "brace", "deep", "deep", "other"])
        if how == "deep":
            i += rng.randint(0, len(segments) - i)
            out.append("**")
            continue
        out.append(
            {
                "keep": segment,
                "star": "*",
                "q": "?" * len(segment),
                "prefix": segment[:1] + "*",
                "upper": segment.upper(),
                "brace": "{" + segment + ",zz}",
                "other": "zz",
            }[how]
        )
        i += 1
    out.append(rng.choice(ENDS))
    out += rng.choices(["**", "*", "x", ".git"], k=rng.choice([0, 0, 1, 2]))
    return "/".join(out)


def _case(rng: random.Random) -> tuple[str, str, list[str]]:
    folder = rng.choice(["/", "~/"]) + "".join(s + "/" for s in rng.choices(FOLDER_SEGMENTS, k=rng.randint(0, 5)))
    glob = _near_glob(rng, folder) if rng.random() < 0.7 else _random_glob(rng)
    names = [
        rng.choice(NAMES) if rng.random() < 0.6 else rng.choice("abxAB1_") + "".join(rng.choices(NAME_CHARS, k=4))
        for _ in range(4)
    ]
    return glob, folder, names


def _held(globs: list[str], text: str) -> bool:
    """Whether one of ``globs`` holds ``text`` whole, as the finders read it (glob_to_regex, case
    ignored, an exclusion left out)."""
    return any(re.fullmatch(glob_to_regex(g), text, re.IGNORECASE) for g in globs if not g.startswith("!"))


def _fnmatch_reads_it_the_same(glob: str, path: str) -> bool:
    # No `**`, braces, escapes or classes (fnmatch's `*` and classes cross `/`: only globs whose
    # segments pair off with the path's).
    return not re.search(r"\*\*|[{}\\\[]", glob) and not glob.startswith("!") and glob.count("/") == path.count("/")


def _left_out(glob: str, folder: str, names: list[str], seen: list[int] | None = None) -> list[str]:
    """The names the whole glob holds in ``folder`` and what it asks of a name alone does not
    (``seen``: counts the names held where a name is read alone)."""
    try:
        asked = _relative_glob(glob, folder)
        glob_to_regex(glob)
    except (GlobError, re.error):  # a glob the engine cannot compile: no finder is made of it
        return []
    if asked is None:
        return []  # read with the folder before each name: the whole glob itself
    out = []
    for name in names:
        path = folder + name
        held = _held([glob], path) or (
            _fnmatch_reads_it_the_same(glob, path) and fnmatch.fnmatchcase(path.lower(), glob.lower())
        )
        if held and seen is not None:
            seen.append(1)
        if held and not _held(asked, name):
            out.append(name)
    return out


def test_a_seeded_sweep_leaves_no_held_name_out() -> None:
    rng = random.Random(30)
    held: list[int] = []
    for _ in range(4_000):  # ~1,000 names held where they are read alone; 120,000 cases found nothing
        glob, folder, names = _case(rng)
        assert _left_out(glob, folder, names, held) == [], (glob, folder, names, _relative_glob(glob, folder))
    assert len(held) > 500  # the sweep reaches globs that hold its names (not only other folders)


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False))
def test_generated_globs_leave_no_held_name_out(rng: random.Random) -> None:
    glob, folder, names = _case(rng)
    assert _left_out(glob, folder, names) == [], (glob, folder, names, _relative_glob(glob, folder))


@pytest.mark.parametrize(
    ("glob", "folder", "name"),
    [
        ("/a/**/b/c", "/a/x/b/", "c"),
        ("**/.git/**", "/a/.git/", "x"),
        ("/a**/b", "/", "ab"),
        ("{**/,}x", "/a/", "x"),
        ("/tmp/**", "/tmp/a/b/", "x"),
        ("~/**/x", "~/", "x"),
    ],
)
def test_shapes_read_alone(glob: str, folder: str, name: str) -> None:
    assert _held([glob], folder + name)
    assert _left_out(glob, folder, [name]) == []
