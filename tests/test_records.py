"""engine.records: the value classes a judging start imports behave as the dataclasses they replace."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import pickle
from collections.abc import Mapping
from typing import Any

import pytest

from engine.errors import Problem
from engine.guard.hook import Decision
from engine.policy.model import ApprovalSettings, Match, Verdict
from engine.records import Record, field_setters, replace
from engine.registry.specs import Annotations


def test_frozen_records_compare_hash_and_refuse_changes() -> None:
    a = Match("k", "d", "hardline", "rm -rf /", ("sudo",))
    b = Match("k", "d", "hardline", "rm -rf /", ("sudo",))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Match("k", "d", "hardline", "rm -rf /", ("sudo",), grantable=False)
    assert a != ("k", "d", "hardline", "rm -rf /", ("sudo",), True)  # another class: never equal
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.key = "other"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del a.key
    assert a.key == "k"
    assert (
        repr(a)
        == "Match(key='k', description='d', severity='hardline', command='rm -rf /', via=('sudo',), grantable=True)"
    )


def test_field_setters_fill_a_frozen_record_as_its_init_does() -> None:
    # Match and Verdict set their fields through them (made on every check): every field, in order,
    # past the frozen record's __setattr__, which still refuses a change afterwards.
    match = Match("k", "d", "dangerous", "rm x", ("sudo",), grantable=False)
    assert (match.key, match.description, match.severity, match.command, match.via, match.grantable) == (
        "k",
        "d",
        "dangerous",
        "rm x",
        ("sudo",),
        False,
    )
    verdict = Verdict("ask", False, (match,), "why", ("rm x",))
    assert verdict == Verdict("ask", False, (match,), "why", ("rm x",))
    assert pickle.loads(pickle.dumps(verdict)) == verdict
    assert len(field_setters(Match)) == len(Match.__slots__)
    blank = Match.__new__(Match)
    for setter, value in zip(field_setters(Match), ("a", "b", "c", "d", (), True), strict=True):
        setter(blank, value)
    assert blank == Match("a", "b", "c", "d")
    with pytest.raises(dataclasses.FrozenInstanceError):
        match.key = "other"


def test_mutable_records_are_unhashable_and_defaults_are_per_instance() -> None:
    decision = Decision("allow", "")
    with pytest.raises(TypeError):
        hash(decision)
    decision.reason = "changed"
    assert decision == Decision("allow", "changed") and decision.keys == ()
    first, second = ApprovalSettings(), ApprovalSettings()
    assert first.rules == {} and first.rules is not second.rules  # a default_factory's fresh value


def test_fields_left_out_of_comparison_and_order() -> None:
    error = Problem("a.yaml", 3, 1, "code", "message")
    warning = Problem("a.yaml", 3, 1, "code", "message", severity="warning")
    assert error == warning and hash(error) == hash(warning)  # severity is not compared
    later = Problem("a.yaml", 10, 1, "code", "message")
    assert sorted([later, error]) == [error, later] and error < later and later >= error
    with pytest.raises(TypeError):
        _ = error < Match("k", "d", "s", "c")


def test_copies_and_pickles_keep_every_field() -> None:
    verdict = Verdict("deny", True, (Match("k", "d", "hardline", "c"),), "why", ("c",))
    for again in (copy.copy(verdict), copy.deepcopy(verdict), pickle.loads(pickle.dumps(verdict))):
        assert again == verdict and again.reason == "why"
        with pytest.raises(dataclasses.FrozenInstanceError):
            again.reason = None
    annotations = Annotations()
    assert pickle.loads(pickle.dumps(annotations)) == annotations


def test_replace_makes_a_new_record_through_its_init() -> None:
    match = Match("k", "d", "hardline", "c")
    other = replace(match, grantable=False)
    assert (other.grantable, match.grantable, other.key) == (False, True, "k")
    with pytest.raises(TypeError):
        replace(match, nonsense=1)


def test_a_record_names_its_fields_in_its_own_slots() -> None:
    with pytest.raises(TypeError):

        class _NoSlots(Record):
            pass

    class Point(Record, frozen=True):
        __slots__ = ("x", "y")

        def __init__(self, x: int, y: int) -> None:
            object.__setattr__(self, "x", x)
            object.__setattr__(self, "y", y)

    with pytest.raises(TypeError):

        class _Deeper(Point):
            __slots__ = ("z",)

    assert getattr(Point, "__match_args__", None) == ("x", "y")  # positional `case Point(x, y)`, as a dataclass


def test_uncompared_must_name_a_field() -> None:
    from engine.records import Record

    with pytest.raises(TypeError, match="uncompared names no field: handlr"):

        class _Typo(Record, uncompared=("handlr",)):
            __slots__ = ("handler", "name")


def test_the_native_value_classes_of_a_check_behave_as_records() -> None:
    """Command, Token, Seg, Shape... are plain (mypyc-native) classes written to behave as
    non-frozen records: equal by their fields, never equal to another class, unhashable, and
    shown with every field (also on a compiled build, where they are C structs)."""
    from engine.policy.lexer import LIT, Seg, Token
    from engine.policy.matchers import Shape
    from engine.policy.shell import Command

    a = Command("rm", ("rm", "-rf", "x"), (False, False, False))
    b = Command("rm", ("rm", "-rf", "x"), (False, False, False))
    assert a == b and (a != b) is False
    assert a != Command("rm", ("rm", "-rf", "y"), (False, False, False))
    assert a != ("rm", ("rm", "-rf", "x"))  # another class: never equal
    b.shape = Shape({"r", "f"}, set(), ["x"], ["-rf", "x"])
    assert a != b  # every field counts, as in a record
    with pytest.raises(TypeError):
        hash(a)
    assert repr(a).startswith("Command(name='rm', argv=('rm', '-rf', 'x'), dynamic=(False, False, False), ")
    assert not hasattr(a, "__dict__")  # slotted: a misspelt field is an error, not a new attribute
    with pytest.raises(AttributeError):
        a.nmae = "x"  # type: ignore[attr-defined]
    token = Token("word", "'a'b", [Seg(LIT, "a", True), Seg(LIT, "b")], literal="ab", quoted=True)
    assert token == Token("word", "'a'b", [Seg(LIT, "a", True), Seg(LIT, "b")], literal="ab", quoted=True)
    assert token != Token("word", "'a'b", [Seg(LIT, "a"), Seg(LIT, "b")], literal="ab", quoted=True)
    assert repr(Seg(LIT, "a")) == "Seg(kind=0, text='a', quoted=False)"
    with pytest.raises(TypeError):
        {token}  # noqa: B018


def test_matchers_read_back_from_the_guard_cache_field_by_field() -> None:
    """Matcher and ArgSpec are native classes on the compiled build, written as records: the guard's
    cache pickles them field by field, their tests are numbers (no bound methods), and they compare
    and show as records (a regex reads back as an equal pattern, compiled again)."""
    from engine.guard.cache import _dumps
    from engine.policy.matchers import _MATCHER_FIELDS, ArgSpec, Matcher, compile_matcher

    data = {
        "command": ["rm", "sh*"],
        "flags": ["-r"],
        "args": {"classes": ["home"]},
        "redirects": {"glob": ["*.rc"]},
        "text": "x+y",
        "via": ["sudo"],
        "fed_by": ["curl"],
        "cwd": {"regex": "^/"},
    }
    matcher = compile_matcher(data, frozenset({"home"}), [])
    assert all(isinstance(check, int) for check in matcher._checks) and len(matcher._checks) >= 6
    plain = compile_matcher({"command": ["rm"]}, frozenset(), [])
    assert plain == compile_matcher({"command": ["rm"]}, frozenset(), []) and matcher != plain
    spec = ArgSpec(classes=frozenset({"home"}))
    assert spec == ArgSpec(classes=frozenset({"home"})) and hash(spec) == hash(ArgSpec(classes=frozenset({"home"})))
    assert repr(spec).startswith("ArgSpec(globs=(), regex=None, classes=frozenset({'home'})")
    back = pickle.loads(_dumps(matcher))
    assert type(back) is Matcher and type(back.args) is ArgSpec
    for name in _MATCHER_FIELDS:
        value, read = getattr(matcher, name), getattr(back, name)
        assert value == read or repr(value) == repr(read), name


@pytest.mark.parametrize("pattern", [r"rm\s+-rf", r"(a|b)*c$", r"(?i)^git\s+push.*--force", r"(\w+)\s+\1"])
def test_a_regex_read_back_from_the_guard_cache_searches_like_the_original(pattern: str) -> None:
    """A cached policy's regexes compile their engines on first use, on both builds (a native
    class never reaches ``__getattr__``: the read-back failed on the compiled build before)."""
    from engine.guard.cache import _dumps
    from engine.policy.regexes import compile_linear

    regex = compile_linear(pattern)
    texts = ["rm  -rf x", "ababc", "GIT push origin --force", "word word", "", "x" * 300 + "c", "git push"]
    back = pickle.loads(_dumps(regex))
    again = pickle.loads(_dumps(back))  # written again before its first use (the cache rewrites entries)
    for text in texts:
        expected = bool(regex.search(text)), bool(regex.match(text)), bool(regex.search_text(text))
        assert (bool(back.search(text)), bool(back.match(text)), bool(back.search_text(text))) == expected, text
        assert (bool(again.search_text(text)), bool(again.search(text)), bool(again.match(text))) == (
            expected[2],
            expected[0],
            expected[1],
        ), text
    assert back.linear == regex.linear and back.pattern == regex.pattern and repr(back) == repr(regex)


def test_every_native_record_of_the_policy_reads_back_with_every_field_and_refuses_a_new_value() -> None:
    """The policy's native records (engine.records.native_record) read back from a pickle and from the guard's
    cache with every field as it was (through ``__init__`` on the compiled build, where their fields are
    read-only: an ``__init__`` parameter left out of ``_init_fields`` came back as its default), and refuse
    a new value for a `Final` field on both builds."""
    from engine import Engine
    from engine.guard.cache import _dumps
    from engine.policy.matchers import _MATCHER_FINAL
    from engine.records import NATIVE_RECORDS
    from tests.conftest import REPO

    with Engine.load(REPO) as engine:
        policy = engine.snapshot.policy
        found: dict[type, list[Any]] = {}
        seen: set[int] = set()

        def walk(value: Any) -> None:
            if id(value) in seen:
                return
            seen.add(id(value))
            if type(value) in NATIVE_RECORDS:
                found.setdefault(type(value), []).append(value)
                for name in type(value)._fields:
                    walk(getattr(value, name))
            elif isinstance(value, (tuple, list, frozenset)):
                for item in value:
                    walk(item)
            elif isinstance(value, Mapping):
                for item in value.values():
                    walk(item)

        walk(policy)
        for program in dict(policy.programs.by_name).values():
            walk(program)
        assert set(found) == NATIVE_RECORDS, NATIVE_RECORDS - set(found)
        for cls, values in found.items():
            for value in values:
                backs = [pickle.loads(_dumps(value))]
                with contextlib.suppress(TypeError):  # (a plain pickle takes no mapping proxy: a Grammar's, a table's)
                    backs.append(pickle.loads(pickle.dumps(value)))
                for back in backs:
                    assert type(back) is cls
                    for name in cls._fields:
                        before = getattr(value, name)
                        if _plain(before):  # (the records it holds are compared on their own; regexes by identity)
                            assert getattr(back, name) == before, (cls.__name__, name)
            sample = values[0]
            # (a Matcher's derived fields are worked out by __init__ and set again: not Final; matchers._MATCHER_FINAL)
            final = _MATCHER_FINAL if cls.__name__ == "Matcher" else cls._fields
            for name in final:
                with pytest.raises(AttributeError):
                    setattr(sample, name, getattr(sample, name))


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, (str, int, float)):
        return True
    return isinstance(value, (tuple, frozenset)) and all(_plain(item) for item in value)
