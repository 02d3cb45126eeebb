"""YAML → located documents: what PyYAML lets through silently is caught here."""

from __future__ import annotations

import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.source.yamlfile import MAX_FILE_BYTES, parse_bytes, parse_file


def test_duplicate_key_is_reported_at_the_second_key_with_the_first_line() -> None:
    parsed = parse_bytes(b"a: 1\nb: 2\na: 3\n", "f.yaml")
    [problem] = parsed.problems
    assert (problem.code, problem.line, problem.column, problem.pointer) == ("yaml-duplicate-key", 3, 1, "/a")
    assert "line 1" in problem.message
    assert parsed.documents[0].data == {"a": 1, "b": 2}


def test_nested_duplicate_key_has_its_json_pointer() -> None:
    parsed = parse_bytes(b"outer:\n  list:\n    - {k: 1, k: 2}\n", "f.yaml")
    [problem] = parsed.problems
    assert problem.pointer == "/outer/list/0/k"
    assert (problem.line, problem.column) == (3, 14)


def test_locate_maps_a_pointer_to_the_value_and_the_key() -> None:
    doc = parse_bytes(b"kind: Tool\nparameters:\n  properties:\n    path: {type: string}\n", "f.yaml").documents[0]
    assert doc.locate(["parameters", "properties", "path", "type"]) == (4, 18)
    assert doc.locate(["parameters", "properties", "path"], key=True) == (4, 5)
    # A pointer that leaves the document stops at the deepest node that exists.
    assert doc.locate(["parameters", "missing", "deeper"]) == (3, 3)


def test_yaml11_words_are_booleans_as_values_but_strings_as_keys() -> None:
    doc = parse_bytes(b"on: off\nyes: no\n1: x\n", "f.yaml").documents[0]
    assert doc.data == {"on": False, "yes": False, "1": "x"}


def test_merge_keys_are_supported_and_local_keys_win() -> None:
    doc = parse_bytes(b"base: &b {x: 1, y: 2}\nchild:\n  <<: *b\n  y: 3\n", "f.yaml").documents[0]
    assert doc.data["child"] == {"x": 1, "y": 3}


def test_several_documents_per_file_keep_their_own_positions() -> None:
    parsed = parse_bytes(b"kind: A\n---\nkind: B\n---\nkind: C\n", "f.yaml")
    assert [(d.index, d.line, d.data["kind"]) for d in parsed.documents] == [(0, 1, "A"), (1, 3, "B"), (2, 5, "C")]


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghij":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = name
    started = time.thread_time()  # CPU time: a loaded machine stretches the wall
    parsed = parse_bytes("\n".join(lines).encode(), "bomb.yaml")
    assert time.thread_time() - started < 1.0
    assert [p.code for p in parsed.problems] == ["yaml-too-complex"]
    assert parsed.documents == []


def test_recursive_alias_is_an_error_not_a_hang() -> None:
    parsed = parse_bytes(b"a: &x\n  - *x\n", "f.yaml")
    assert [p.code for p in parsed.problems] == ["yaml-recursive-alias"]


def test_foreign_tags_are_refused() -> None:
    parsed = parse_bytes(b"x: !!python/object:os.system {}\ny: !custom 1\n", "f.yaml")
    assert [p.code for p in parsed.problems] == ["yaml-unsupported-tag", "yaml-unsupported-tag"]


def test_non_finite_numbers_are_not_json() -> None:
    parsed = parse_bytes(b"x: .inf\ny: .nan\n", "f.yaml")
    assert [p.code for p in parsed.problems] == ["yaml-not-json", "yaml-not-json"]


def test_deep_nesting_is_refused_with_a_location() -> None:
    text = "x: " + "[" * 150 + "]" * 150
    parsed = parse_bytes(text.encode(), "f.yaml")
    assert [p.code for p in parsed.problems] == ["yaml-too-deep"]


def test_syntax_error_is_located_and_names_where_the_construct_started() -> None:
    parsed = parse_bytes(b"a: 1\nb: [1, 2\nc: 3\n", "f.yaml")
    [problem] = parsed.problems
    assert problem.code == "yaml-syntax"
    assert problem.line == 3
    assert "line 2" in problem.message


def test_oversized_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"kind: Tool\n# " + b"x" * (MAX_FILE_BYTES + 10) + b"\n")
    started = time.thread_time()  # CPU time: a loaded machine stretches the wall
    parsed = parse_file(big, "big.yaml")
    assert time.thread_time() - started < 1.0
    assert [(p.code, p.line) for p in parsed.problems] == [("file-too-large", 1)]


def test_control_characters_are_a_located_syntax_error() -> None:
    parsed = parse_bytes(b"a: ok\nb: \x07\n", "f.yaml")
    [problem] = parsed.problems
    assert (problem.code, problem.line) == ("yaml-syntax", 2)
    assert "\n" not in problem.message


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!|>'\"#\n ,?<=~0.1yes\t")), max_size=80))
def test_any_text_parses_to_documents_or_problems_and_never_raises(text: str) -> None:
    parsed = parse_bytes(text.encode(), "f.yaml")
    for problem in parsed.problems:
        assert problem.line >= 1 and problem.column >= 1
    for document in parsed.documents:
        document.locate(["a", 0, "b"])


_TRICKY = [
    b"a: 1\nb: yes\nc: 'yes'\nd: ~\ne: 1.5\nf: 2001-12-14\ng: !!str 3\nh: ! 4\ni: [on, 'off', 0x1F]\n",
    b"a: 1\na: {x: [1, {y: yes}], z: null}\n",  # a repeated key's value: never built
    b"? [complex, key]\n: {value: [yes, 1]}\nb: 2\n",  # a complex key and its value: never built
    b"base: &b {k: 1, n: no}\n<<: [*b, [1, 2], plain]\n'<<': quoted\nc: *b\n",  # merges, a refused source
    b"- &x {a: [1, true]}\n- *x\n- !!map {b: 2}\n- !custom {c: 3}\n- ! [yes]\n",
    b"a: {b: {c: {d: [1, [2, [3, {e: null}]]]}}}\n---\n- 1\n--- plain\n...\n",
]


def _nodes(node, seen=None):  # type: ignore[no-untyped-def]
    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    yield node
    if isinstance(node.value, list):
        for item in node.value:
            for child in item if isinstance(item, tuple) else (item,):
                yield from _nodes(child, seen)


def test_every_node_has_the_tag_pyyaml_resolves() -> None:
    """The composer's cheaper resolver (engine.source.yamlfile._Loader): every node of a parsed
    document, the ones the builder does not build too, has the tag and position PyYAML's own
    composer gives it."""
    import yaml

    for text in _TRICKY:
        parsed = parse_bytes(text, "f.yaml")
        expected = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
        assert len(parsed.documents) == len(expected), text
        for doc, reference in zip(parsed.documents, expected, strict=True):
            ours, theirs = list(_nodes(doc.node)), list(_nodes(reference))
            assert len(ours) == len(theirs), text
            for a, b in zip(ours, theirs, strict=True):
                assert type(a.tag) is str and (a.tag, type(a).__name__) == (b.tag, type(b).__name__), text
                assert (a.start_mark.line, a.start_mark.column) == (b.start_mark.line, b.start_mark.column)
                if isinstance(a.value, str):
                    assert a.value == b.value
