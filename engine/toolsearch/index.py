"""A BM25 index over the tools of one generation, built once, read by every search.

Each tool is one document whose fields are weighted (BM25F-style: weighted term
counts, one length normalisation): its name counts most, then its title, toolset
and tags, then its description and parameter names, then its parameter
descriptions, its toolset's description and its annotations. The score of every
(term, tool) pair is computed at build time, so a search only adds up posting
lists.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.registry.specs import ToolsetSpec, ToolSpec
from engine.toolsearch.text import terms

K1 = 1.2
B = 0.75
MAX_QUERY_TERMS = 64
SUMMARY_CHARS = 160
# A query naming a tool outright (its full name) puts that tool first.
_NAME_BONUS = 1000.0

_WEIGHTS = {
    "name": 3.0,
    "title": 2.0,
    "toolset": 2.0,
    "tags": 1.5,
    "description": 1.0,
    "parameter": 1.0,
    "parameter_text": 0.5,
    "toolset_text": 0.5,
    "annotations": 0.5,
}
_ANNOTATION_WORDS = {
    "read_only": "read-only reads",
    "destructive": "destructive deletes",
    "idempotent": "idempotent",
    "open_world": "external online internet",
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_PROPERTY_LIMIT = 64  # parameters read per tool (a schema may declare thousands)


@dataclass(frozen=True, slots=True)
class Hit:
    name: str
    score: float


def summary(description: str) -> str:
    """The first sentence of a description, on one line, at most 160 characters."""
    text = " ".join(description.split())
    first = _SENTENCE_END.split(text, maxsplit=1)[0]
    return first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 1].rstrip() + "…"


def _fields(spec: ToolSpec, toolset: ToolsetSpec | None) -> Iterable[tuple[str, str]]:
    yield "name", spec.name
    if spec.title:
        yield "title", spec.title
    if spec.annotations.title:
        yield "title", spec.annotations.title
    yield "toolset", spec.toolset
    if spec.tags:
        yield "tags", " ".join(spec.tags)
    yield "description", spec.description
    if toolset is not None:
        yield "toolset_text", toolset.description
    for flag, words in _ANNOTATION_WORDS.items():
        if getattr(spec.annotations, flag):
            yield "annotations", words
    properties = spec.parameters.get("properties")
    if isinstance(properties, Mapping):
        for i, (name, schema) in enumerate(properties.items()):
            if i >= _PROPERTY_LIMIT:
                break
            yield "parameter", str(name)
            if isinstance(schema, Mapping):
                text = schema.get("description")
                if isinstance(text, str):
                    yield "parameter_text", text


DocVector = dict[str, float]


def vector(spec: ToolSpec, toolset: ToolsetSpec | None, analysed: dict[str, list[str]]) -> DocVector:
    """A tool's weighted term counts; ``analysed`` memoises the terms of texts seen before."""
    counts: DocVector = {}
    for field, text in _fields(spec, toolset):
        weight = _WEIGHTS[field]
        found = analysed.get(text)
        if found is None:
            found = analysed[text] = terms(text)
        for t in found:
            counts[t] = counts.get(t, 0.0) + weight
    return counts


class SearchIndex:
    """BM25 over a generation's tools. Read-only once built; safe to share between threads.

    ``previous`` is the index of the generation before: the term counts of tools whose spec
    and toolset are the very same objects (a reload keeps unchanged ones) are reused, so a
    reload pays only for what changed, plus the scores.
    """

    def __init__(
        self,
        tools: Mapping[str, ToolSpec],
        toolsets: Mapping[str, ToolsetSpec],
        previous: SearchIndex | None = None,
    ) -> None:
        weighted: list[DocVector] = []
        self.names: list[str] = []
        self.summaries: dict[str, str] = {}
        self.toolsets: dict[str, str] = {}
        # Keyed by the spec objects themselves (kept alive here), compared by identity.
        self.vectors: dict[tuple[int, int], tuple[ToolSpec, ToolsetSpec | None, DocVector]] = {}
        reused = previous.vectors if previous is not None else {}
        # The same text recurs across a catalog (parameter and toolset descriptions): analyse it once.
        analysed: dict[str, list[str]] = {}
        for name in sorted(tools):
            spec = tools[name]
            toolset = toolsets.get(spec.toolset)
            key = (id(spec), id(toolset))
            entry = reused.get(key)
            if entry is None or entry[0] is not spec or entry[1] is not toolset:
                entry = (spec, toolset, vector(spec, toolset, analysed))
            self.vectors[key] = entry
            weighted.append(entry[2])
            self.names.append(name)
            self.summaries[name] = summary(spec.description)
            self.toolsets[name] = spec.toolset
        n = len(weighted)
        lengths = [sum(c.values()) for c in weighted]
        average = (sum(lengths) / n) if n else 1.0
        frequency: Counter[str] = Counter()
        for counts in weighted:
            frequency.update(counts.keys())
        idf = {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in frequency.items()}
        postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        k1_plus = K1 + 1
        for doc, counts in enumerate(weighted):
            norm = K1 * (1 - B + B * lengths[doc] / average)
            for t, tf in counts.items():
                postings[t].append((doc, idf[t] * tf * k1_plus / (tf + norm)))
        self.postings: dict[str, list[tuple[int, float]]] = dict(postings)
        self._by_name = {name.lower(): i for i, name in enumerate(self.names)}

    def __len__(self) -> int:
        return len(self.names)

    def search(self, query: str, limit: int, allowed: Callable[[str], bool]) -> list[Hit]:
        """The best ``limit`` tools for ``query`` among those ``allowed`` accepts, best first.

        Ties are broken by name, so the same query always gives the same answer.
        """
        wanted = list(dict.fromkeys(terms(query)))[:MAX_QUERY_TERMS]
        scores: dict[int, float] = {}
        get = scores.get
        for t in wanted:
            for doc, score in self.postings.get(t, ()):
                scores[doc] = get(doc, 0.0) + score
        for word in query.lower().replace("`", " ").replace('"', " ").replace("'", " ").split():
            named = self._by_name.get(word.strip(".,;:()[]{}<>!?"))
            if named is not None:
                scores[named] = get(named, 0.0) + _NAME_BONUS
        hits: list[Hit] = []
        if not scores:
            return hits
        # Documents are numbered in name order and the selection is stable: ties go by name.
        docs = sorted(scores)
        # Most searches are answered from the best few; rank everything only when the filter
        # turned too many of them away.
        score_of = scores.__getitem__
        for ranked in (heapq.nlargest(limit * 4, docs, key=score_of), sorted(docs, key=score_of, reverse=True)):
            hits.clear()
            for doc in ranked:
                name = self.names[doc]
                if allowed(name):
                    hits.append(Hit(name, round(scores[doc], 4)))
                    if len(hits) >= limit:
                        return hits
            if len(ranked) == len(docs):
                break
        return hits

    def describe(self) -> dict[str, Any]:
        return {"tools": len(self.names), "terms": len(self.postings)}
