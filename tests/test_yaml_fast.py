"""The fast reader (engine.source.plainyaml) against the located one (engine.source.yamlfile).

The fast reader is only a shortcut: on any text it reads, it must give the values, the documents
and the document positions the located reader gives, and it must give up on every text the
located reader reports a problem in. Checked on the engine's own files, on tricky texts, on
generated documents (dumped in every style, and written raw) and on their mutations; then
through a whole load: the same problems, located alike, and the same registry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.common import generate_project
from engine.compile.loader import ProjectLoader
from engine.source import plainyaml, yamlfile
from engine.source.plainyaml import read
from engine.source.project import builtin_pack_dir

REPO = Path(__file__).resolve().parent.parent
OWN_FILES = sorted(
    p
    for folder in ("manifests", "toolsets", "policies", "tests/projects", "tests/plugins", "tests/data")
    for p in (REPO / folder).rglob("*")
    if p.suffix in (".yaml", ".yml", ".json") and p.is_file()
)


def located(data: bytes) -> tuple[list[tuple[Any, int, int]], list[str]]:
    parsed = yamlfile._parse_located(data, "f.yaml")
    return [(d.data, d.line, d.column) for d in parsed.documents], [p.format() for p in parsed.problems]


def agrees(data: bytes) -> bool:
    """The fast reader gave up, or read what the located reader reads (and it found no problem).
    Returns whether it read the text."""
    fast = read(data)
    if fast is None:
        return False
    documents, problems = located(data)
    assert problems == [], data
    assert fast == documents, data
    # Equal as values and as JSON (1 == 1.0 == True in Python: the types must match too).
    assert json.dumps([d[0] for d in fast], sort_keys=True, default=str) == json.dumps(
        [d[0] for d in documents], sort_keys=True, default=str
    ), data
    return True


def test_the_engines_own_files_read_alike_and_most_take_the_fast_path() -> None:
    fast = [path for path in OWN_FILES if agrees(path.read_bytes())]
    assert len(OWN_FILES) > 60
    # Every builtin manifest and toolset is in the subset (the policies with anchors are not).
    for folder in ("manifests", "toolsets"):
        for path in (REPO / folder).glob("*.yaml"):
            assert path in fast, path
    assert len(fast) > len(OWN_FILES) // 2


def test_a_generated_tool_takes_the_fast_path() -> None:
    from bench.common import TOOL

    assert agrees(TOOL.format(i=1, group=2).encode())


TRICKY = [
    "a: 1\nb: yes\nc: 'yes'\nd: ~\ne: 1.5\nf: 2001-12-14\ni: [on, 'off', 0x1F]\n",
    "on: off\nyes: no\n1: x\nnull: ~\n",
    "a: -1\nb: .5\nc: 1e3\nd: 1:30\ne: 0o17\nf: 010\ng: 1_000\nh: +1\ni: 0b101\nj: -.inf\nk: .NaN\n",
    'a: \'it\'\'s\'\nb: "tab\\there \\"q\\" \\u00e9 \\x41 \\U0001F527 \\/"\nc: "\\q"\n',
    "a: b #c\nd: e#f\ng: 'h' # i\nj: [k, l] # m\nn: # only a comment\n",
    "k: a: b\n",
    "k: a:\n",
    "k: a:b\nl: http://x.y/z?q=1\n",
    "- a\n-\n  b: 1\n- - c\n  - d\n-   e: 1\n    f: 2\n",
    "a:\n- 1\n- 2\nb:\n  - 3\nc:\n",
    "a:\n  b:\n    c: 1\n  d: 2\ne: 3\n",
    "a:\n  b: 1\n   c: 2\n",
    "a: 1\n  b: 2\n",
    "a: multi\n  line plain\n",
    "a: 'multi\n  line quoted'\n",
    'a: "multi\n  line"\n',
    "a: |\n  x\n\n  y\n\n\nb: 1\n",
    "a: |\n\n  x\n",
    "a: |\n   \n  x\n",
    "a: |\n  x\n   \n",
    "a: |-\n  x\n  y\n\n",
    "a: |+\n  x\n\n",
    "a: |2\n   x\n",
    "a: >\n  x\n  y\n\n  z\n\n",
    "a: >-\n  x\n   more\n  y\n",
    "a: >\n\n  x\n",
    "a: |\n  x\n  # not a comment\n # a comment\nb: 2\n",
    "a: |\nb: 1\n",
    "a: >\n  x\n  y\n\n  z",
    "a: |\n  x",
    "a: |\n  x\n\n",
    "- |\n  x\n- >-\n  y\n  z\n",
    "a: [1, [2, {b: c}], {d: [e]}]\n",
    "a: [\n  1,\n  # comment\n  \"two\", 'three',\n  [4]\n]\n",
    "a: [1,\n  2]\nb: {x: 1,\n  y: 2}\n",
    "a: [1,\n  2]\nb: {x: 1,\n - y: 2}\n",  # (a `- ` in a flow is a block entry: an error, left to the located reader)
    "a: [-1, -x, a-b, - c]\n",
    "a: [1, 2,]\n",
    "a: [1, , 2]\n",
    "a: {b}\n",
    "a: {b: }\n",
    "a: {b: 1, b: 2}\n",
    "a: {\"k k\": 1, 'q': 2}\n",
    "a: {b:1}\n",
    "a: [b: 1]\n",
    "a: [- 1]\n",
    "a: [-1, -x]\n",
    "a: [a b, c  d ]\n",
    "a: [x]y\n",
    "a: 1\na: 2\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "<<: {a: 1}\n",
    "a: =\n",
    "? a\n: b\n",
    "'a': 1\n",
    '"a": 1\n',
    "a : 1\nb  :  2\n",
    "a b: 1\nc.d/e: 2\n$x: 3\n",
    "kind: A\n---\nkind: B\n--- # c\nkind: C\n",
    "---\nkind: A\n",
    "# head\n---\nkind: A\n",
    "kind: A\n---\n",
    "kind: A\n...\n",
    "%YAML 1.1\n---\nkind: A\n",
    "--- a\n",
    "",
    "# only a comment\n",
    "\n\n",
    "  a: 1\n",
    "plain\n",
    "[1, 2]\n",
    "{a: 1}\n",
    "a: 1\r\nb: 2\r\n",
    "a:\t1\n",
    "a: \x07\n",
    "a: \x85\n",
    "a: x\u2028y\n",
    "\ufeffa: 1\n",
    'a: 🔧\nb: "🔧"\nc: é\n',
    "a: é🔧\u00a0\nb: \u00a0x\nc: \ufffe\nd: \x9f\n",
    "a: -\n",
    "a: - b\n",
    "a: ? b\n",
    "a: : b\n",
    "a: @b\n",
    "a: `b\n",
    "a: %b\n",
    "a: |x\n",
    "a: >x\n",
    "a: 'b' c\n",
    'a: "b": c\n',
    "-a: 1\n",
    "- a\nb: 1\n",
    "a: 1\n- b\n",
    "a:\n  - 1\n  b: 2\n",
    "a:\n- 1\n  - 2\n",
    "a: [" + "[" * 120 + "]" * 121 + "\n",
    "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 120)) + "  " * 120 + "v: 1\n",
    "a: " + "x" * 2000 + "\n",
    "k" * 1100 + ": 1\n",
    "a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\n",
    "a: 0x\nb: 0o\nc: 1__0\nd: 0b2\n",
    "a: ''\nb: \"\"\nc: ' '\n",
]


COMMON = [
    "a: 1\nb: yes\nc: 'yes'\nd: ~\ne: 1.5\nf: -2\ng: x.5\ni: [on, 'off', +3, .5, NULL]\n",
    "a: b #c\nd: e#f\ng: 'h' # i\nj: [k, l] # m\nn: # only a comment\n",
    "- a\n-\n  b: 1\n- - c\n  - d\n-   e: 1\n    f: 2\n",
    "a:\n- 1\n- 2\nb:\n  - 3\nc:\n",
    "a: |\n  x\n\n  y\n\n\nb: 1\n",
    "a: >\n  x\n  y\n\n  z\n\n",
    "a: [1, [2, {b: c}], {d: [e]}]\n",
    "a: [1,\n  2]\nb: {x: 1,\n  y: 2}\n",
    "kind: A\n---\nkind: B\n--- # c\nkind: C\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts_read_alike_or_are_left_to_the_located_reader(text: str) -> None:
    agrees(text.encode("utf-8"))


def test_the_common_shapes_are_read_by_the_fast_reader() -> None:
    """Not only correct when it reads: it does read what manifests are made of."""
    for text in COMMON:
        assert read(text.encode()) is not None, text


SCALARS = [
    "yes", "No", "on", "OFF", "~", "null", "Null", "", "1", "-1", "+1", "0x1F", "010", "1_000", "1:30",
    ".5", "1e3", "1.0e+3", ".inf", "-.Inf", ".nan", "2001-12-14", "2001-12-14 21:59:43.10 -5", "=", "<<",
    "a: b", "a:", "a #b", "a#b", "- a", "-a", "-", "'q'", '"d"', "a, b", "[x]", "{y}", "x]", "é", "🔧",
    "http://x", "a:b", " lead", "trail ", "#c", "&a", "*a", "!t", "%p", "@a", "`b", "|", ">", "?", ":",
    "a'b", 'a"b', "\\n", "back\\slash", "---", "...", "multi\nline", "x\n\ny\n", "x\n", " indented\n",
    "a\n more\nb", "tab\there", "\x07", "\u2028", "snake_case", "kebab-case", "Sentence with words.",
]  # fmt: skip
KEYS = ["a", "b", "kind", "on", "yes", "1", "a b", "x.y", "$k", "-k", "k:", "k k ", "é", "#", "'q'", ""]


def _values(depth: int = 3) -> st.SearchStrategy[Any]:
    scalars = st.sampled_from(SCALARS) | st.integers(-5, 5) | st.booleans() | st.none()
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
        max_leaves=8,
    )


def _raw(value: Any, indent: int, step: int, style: int, out: list[str], prefix: str) -> None:
    """Write ``value`` as block YAML with scalars pasted in raw (valid or not), ``style`` picking
    how each scalar and small collection is written."""
    pad = " " * indent
    if isinstance(value, dict) and value:
        first = True
        for key, item in value.items():
            lead = prefix if first else pad
            first = False
            _entry(f"{lead}{key}:", item, indent, step, style, out)
        return
    if isinstance(value, list) and value:
        first = True
        for item in value:
            lead = prefix if first else pad
            first = False
            _entry(f"{lead}-", item, indent, step, style, out)
        return
    out.append(prefix + _scalar(value, style, indent + step))


def _entry(head: str, item: Any, indent: int, step: int, style: int, out: list[str]) -> None:
    if isinstance(item, (dict, list)) and item:
        if style % 3 == 0 and all(
            not isinstance(v, (dict, list)) for v in (item.values() if isinstance(item, dict) else item)
        ):
            if isinstance(item, dict):
                out.append(f"{head} {{" + ", ".join(f"{k}: {_scalar(v, style, 0)}" for k, v in item.items()) + "}")
            else:
                out.append(f"{head} [" + ", ".join(_scalar(v, style, 0) for v in item) + "]")
            return
        if head.endswith("-") and style % 2:
            _raw(item, indent + step, step, style, out, f"{head} ")  # compact: "- key: value"
            return
        out.append(head + (" # c" if style % 5 == 0 else ""))
        _raw(item, indent + step, step, style, out, " " * (indent + step))
        return
    out.append(f"{head} " + _scalar(item, style, indent + step))


def _scalar(value: Any, style: int, indent: int) -> str:
    if not isinstance(value, str):
        return json.dumps(value)
    choice = (style + len(value)) % 4
    if choice == 1:
        return "'" + value.replace("'", "''") + "'"
    if choice == 2:
        return json.dumps(value, ensure_ascii=style % 2 == 0)
    if choice == 3 and "\n" in value and indent:
        pad = " " * indent
        return ("|" if style % 2 else ">") + "\n" + "\n".join(pad + line if line else "" for line in value.split("\n"))
    return value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_values(), st.integers(0, 29), st.sampled_from([1, 2, 4]))
def test_generated_documents_written_raw_read_alike(value: Any, style: int, step: int) -> None:
    out: list[str] = []
    _raw(value if isinstance(value, (dict, list)) and value else {"k": value}, 0, step, style, out, "")
    agrees(("\n".join(out) + "\n").encode("utf-8"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_values(), st.booleans(), st.sampled_from([2, 4]), st.booleans(), st.integers(20, 120))
def test_generated_documents_dumped_by_pyyaml_read_alike(
    value: Any, flow: bool, indent: int, unicode: bool, width: int
) -> None:
    text = yaml.safe_dump_all(
        [{"kind": "Tool", "v": value}, value],
        default_flow_style=flow,
        indent=indent,
        allow_unicode=unicode,
        width=width,
    )
    agrees(text.encode("utf-8"))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_manifests_read_alike(data: st.DataObject) -> None:
    base = data.draw(st.sampled_from(COMMON))
    chars = list(base)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(chars)))
        if chars and data.draw(st.booleans()):
            del chars[min(at, len(chars) - 1)]
        else:
            chars.insert(at, data.draw(st.sampled_from(list("ab:-[]{}&*!|>'\"#\n ,?<=~0.1yes\\"))))
    agrees("".join(chars).encode("utf-8"))


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=list("0123456789+-._:xobeEinfINFaNulyYsStrTuFOn~<="), max_size=9))
def test_plain_scalars_are_typed_as_pyyaml_types_them(text: str) -> None:
    """YAML 1.1's implicit types (engine.source.plainyaml._construct, which does not import PyYAML):
    the same value and type as PyYAML's resolver and constructor, or left to the located reader."""
    value = plainyaml._construct(text)
    if value is plainyaml._UNREADABLE:
        return
    documents, problems = located(f"k: {text}\n".encode())
    if problems or not isinstance(documents[0][0], dict) or list(documents[0][0]) != ["k"]:
        return  # not a plain scalar on its own (':', 'a: b'): the reader never asks for its type
    data = documents[0][0]
    assert (type(value), value) == (type(data["k"]), data["k"]), text


def test_a_cold_validate_of_files_read_fast_imports_no_yaml_parser() -> None:
    """PyYAML (~8% of a cold validate of 1,000 tools) is imported only to compose nodes."""
    import subprocess
    import sys

    code = (
        "import sys; from engine.source.yamlfile import parse_bytes; "
        "parse_bytes(b'kind: Tool\\nname: x\\ntags: [a, b]\\n', 'f.yaml'); "
        "assert 'yaml' not in sys.modules, 'read fast'; "
        "parse_bytes(b'a: &x 1\\n', 'f.yaml'); assert 'yaml' in sys.modules, 'anchors are located'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_a_flow_that_fools_the_bracket_count_is_read_again_a_few_times_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Brackets inside quotes make the multi-line flow reader guess "closed" on every line: it
    tries a few times, then leaves the file to the located reader (never quadratic in its size)."""
    calls: list[int] = []
    real = plainyaml._flow

    def counted(text: str, at: int, depth: int) -> Any:
        calls.append(len(text))
        return real(text, at, depth)

    monkeypatch.setattr(plainyaml, "_flow", counted)
    text = "a: [\n" + '  "]",\n' * 20_000 + "  x]\n"
    assert read(text.encode()) is None
    assert len(calls) <= 6
    assert agrees(b'a: [\n  "]",\n  "[", x]\n')


def test_a_document_read_fast_locates_like_a_located_one() -> None:
    text = b"kind: Tool\nparameters:\n  properties:\n    path: {type: string}\n---\n- a\n- b: [1, 2]\n"
    fast, slow = yamlfile.parse_bytes(text, "f.yaml"), yamlfile._parse_located(text, "f.yaml")
    assert all(d._node is None for d in fast.documents)  # nothing composed until asked
    pointers: list[list[str | int]] = [
        ["parameters", "properties", "path", "type"],
        ["parameters", "missing", "deeper"],
        [1, "b", 1],
        [],
    ]
    for a, b in zip(fast.documents, slow.documents, strict=True):
        assert (a.data, a.line, a.column, a.index) == (b.data, b.line, b.column, b.index)
        for pointer in pointers:
            assert a.locate(pointer) == b.locate(pointer)
            assert a.locate(pointer, key=True) == b.locate(pointer, key=True)


def _load(root: Path, fast: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(yamlfile, "read_plain", lambda data: None)
        return ProjectLoader(root, pin="off").load()


PROJECTS = sorted(p.parent for p in (REPO / "tests" / "projects").glob("*/*/manifests"))


@pytest.mark.parametrize("root", [builtin_pack_dir(), *PROJECTS], ids=lambda p: p.name)
def test_a_load_finds_the_same_problems_and_registry_either_way(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _load(root, True, monkeypatch), _load(root, False, monkeypatch)
    assert [p.format() for p in fast.problems] == [p.format() for p in slow.problems]
    assert fast.counts == slow.counts
    assert fast.ok == slow.ok
    if fast.ok:
        a, b = fast.snapshot, slow.snapshot
        assert dict(a.tools) == dict(b.tools)
        assert dict(a.toolsets) == dict(b.toolsets)
        assert a.manifests == b.manifests
        assert [(p.key, p.source) for p in a.policy.patterns] == [(p.key, p.source) for p in b.policy.patterns]


def test_errors_in_files_read_fast_are_located_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A generated project with a mistake in every kind of place: each file is in the fast
    reader's subset, so each problem is placed through a document's lazily composed nodes."""
    root = generate_project(tmp_path / "p", 30)
    manifests = root / "manifests"
    edits = {
        "tool_0001.yaml": ("max_result_size_chars: 20000", "max_result_size_chars: lots"),
        "tool_0003.yaml": ("toolset: bench_3", "toolset: nowhere"),
        "tool_0004.yaml": ("handler: bench_handlers:echo", "handler: bench_handlers:missing"),
        "tool_0005.yaml": ("  required: [path]", "  required: [path, nope]"),
        "tool_0006.yaml": ("  read_only: true", "  read_only: maybe"),
        "tool_0008.yaml": ("tags: [bench, generated]", "tags: {bench: 1}"),
    }
    for name, (old, new) in edits.items():
        path = manifests / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))
        assert read(path.read_bytes()) is not None, name
    fast, slow = _load(root, True, monkeypatch), _load(root, False, monkeypatch)
    assert not fast.ok
    assert [p.format() for p in fast.problems] == [p.format() for p in slow.problems]
    assert [(p.file, p.line, p.column, p.code) for p in fast.problems] == [
        ("manifests/tool_0001.yaml", 8, 24, "wrong-type"),
        ("manifests/tool_0003.yaml", 3, 10, "toolset-unknown"),
        ("manifests/tool_0004.yaml", 6, 10, "handler-not-found"),
        ("manifests/tool_0005.yaml", 39, 20, "parameters-required-unknown"),
        ("manifests/tool_0006.yaml", 10, 14, "wrong-type"),
        ("manifests/tool_0008.yaml", 14, 7, "wrong-type"),
    ]
