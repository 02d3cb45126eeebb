"""The candidates gate (evaluate._Index._gate): its prefilters joined without enclosing groups find
exactly what the grouped alternation found, on the policy's own prefilters."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.evaluate import _Fragments, _unwrapped
from engine.policy.paths import fewest_fragments, literal_union
from tests.conftest import REPO

SAMPLE = Path(__file__).parent / "data" / "commands-sample.jsonl"


@pytest.mark.parametrize(
    ("pattern", "unwrapped"),
    [
        ("(?:a|b)", "a|b"),
        ("(?:(?:a|b))", "a|b"),
        ("(?:a)|(?:b)", "(?:a)|(?:b)"),  # two groups, not one around the whole
        ("(?:a)b", "(?:a)b"),
        ("(?:[)]|x)", "[)]|x"),  # a `)` in a class closes nothing
        ("(?:[^)]|x)", "[^)]|x"),
        ("(?:[]x)]|y)", "[]x)]|y"),  # a leading `]` is a member
        (r"(?:\)|x)", r"\)|x"),  # nor an escaped one
        ("(?:a|b", "(?:a|b"),  # unbalanced: left as it is
        ("plain", "plain"),
    ],
)
def test_unwrapped_strips_only_a_group_around_the_whole(pattern: str, unwrapped: str) -> None:
    assert _unwrapped(pattern) == unwrapped


def test_the_gate_finds_what_the_grouped_alternation_found() -> None:
    engine = Engine.load(REPO)
    commands = [json.loads(line)["cmd"] for line in SAMPLE.read_text().splitlines() if line.strip()]
    for command in commands:
        engine.check(command)  # builds the terminal index's gate
    evaluator = engine._evaluator(engine._snapshot)
    gates = [index.gate for _, index in evaluator._indexes.values() if index.gate and index.gate[1] is not None]
    assert gates
    for _, index in evaluator._indexes.values():
        if not index.gate or index.gate[1] is None:
            continue
        alternated = list(dict.fromkeys(e[2].prefilter for e in index.generic if e[2].prefilter is not None))
        if index.gate[0] is not None and index.engine:
            alternated.append(index.gate[0])  # type: ignore[arg-type]
        grouped = re.compile("|".join(f"(?:{p.pattern})" for p in alternated))
        gate = index.gate[1]
        assert isinstance(gate, _Fragments) or gate.pattern != grouped.pattern
        # The corpus, and texts made of the alternatives' own fragments (hits, near misses, joins).
        fragments = re.findall(r"[\w./~ -]{3,}", grouped.pattern.replace("\\", ""))
        rng = random.Random(30)
        texts = [c.lower() for c in commands]
        for _ in range(3000):
            picked = [rng.choice(fragments) for _ in range(rng.randint(1, 3))]
            text = rng.choice([" ", "", "/", "x"]).join(picked)
            cut = rng.randint(0, len(text))
            texts += [text, text[:cut], text[cut:], f"cat {text}"]
        differ = [t for t in texts if (gate.search(t) is None) != (grouped.search(t) is None)]
        assert not differ, differ[:5]
        assert any(gate.search(t) for t in texts) and not all(gate.search(t) for t in texts)


def test_a_long_lived_engine_gates_on_the_automaton_a_one_check_evaluator_on_re() -> None:
    """The Engine (many checks: prepare_flat_scan) searches the gate's fragments on an Aho-Corasick automaton;
    an evaluator that judges one check (a guard event's) keeps the `re` trie, read back from the warm start."""
    engine = Engine.load(REPO)
    evaluator = engine._evaluator(engine._snapshot)
    terminal = evaluator._index(evaluator.patterns_for("terminal", "command"))
    assert isinstance(terminal.gate[1], _Fragments)  # type: ignore[index]
    assert engine.check("cat ~/.ssh/id_rsa").decision != "allow"  # found through it
    fresh = type(evaluator)(evaluator.policy, evaluator.classifier.places.cwd, evaluator.classifier.places)  # type: ignore[union-attr]
    index = fresh._index(fresh.patterns_for("terminal", "command"))
    gate = index._gate(fresh._engine_names, fresh._engine_fragments)
    assert isinstance(gate[1], re.Pattern)


def test_the_automaton_finds_exactly_what_the_trie_finds() -> None:
    """Differential: the policy's own gate fragments, on texts made to hit, nearly hit, straddle a join, hold
    non-ASCII letters, lone surrogates (a command's bytes read with surrogateescape) and NULs."""
    engine = Engine.load(REPO)
    evaluator = engine._evaluator(engine._snapshot)
    index = evaluator._index(evaluator.patterns_for("terminal", "command"))
    fragments = [f for e in index.generic if e[2].prefilter is not None for f in e[2].prefilter_fragments]
    fragments += evaluator._engine_fragments or ()
    fewest = fewest_fragments(fragments)
    automaton = _Fragments.of(fewest)
    trie = re.compile(literal_union(fewest))
    assert automaton is not None and len(fewest) > 100
    rng = random.Random(39)
    texts = ["", "git push -f", "diff /etc/nginx/nginx.conf ./nginx.conf", "echo garbage > /dev/mmcblk0"]
    for _ in range(4000):
        picked = [rng.choice(fewest) for _ in range(rng.randint(1, 3))]
        text = rng.choice([" ", "", "/", "\udcff", "\x00", "é"]).join(picked)
        cut = rng.randint(0, len(text))
        near = "".join(c if rng.random() > 0.1 else rng.choice("x/.~é") for c in text)
        texts += [text, text[:cut], text[cut:], f"cat {text}", near, near[1:-1]]
    differ = [t for t in texts if (automaton.search(t) is None) != (trie.search(t) is None)]
    assert not differ, differ[:5]
    found = sum(automaton.search(t) is not None for t in texts)
    assert 0 < found < len(texts)


def test_no_fragment_or_an_empty_one_keeps_re() -> None:
    assert _Fragments.of([]) is None
    assert _Fragments.of(["", ".env"]) is None  # the empty fragment is in every text: `re` answers that
