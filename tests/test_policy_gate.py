"""The candidates gate (evaluate._Index._gate): its prefilters joined without enclosing groups find
exactly what the grouped alternation found, on the policy's own prefilters."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.evaluate import _unwrapped
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
        assert gate.pattern != grouped.pattern
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
