"""Tool search over the generated 1,000-tool catalog, against BM25 peers in the same run.

    pip install -e '.[dev,bench]' && python -m bench.bench_toolsearch

Peers (bench-only extras): rank_bm25's BM25Okapi and bm25s, each given the same text per
tool (name, description, parameter names and descriptions, toolset description) with
its usual tokenization. A peer whose package is missing is reported as such.
Definitions under a budget are compared with the unbudgeted (cached) path and with a
hand-written budget (JSON length / 4, greedy) redone on every call.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from bench.catalog import QUERIES, load_queries, write_catalog
from bench.common import per_call, table

TOP = 5


def recall(search: Callable[[str], list[str]], queries: list[dict[str, str]]) -> float:
    return sum(q["expect"] in search(q["query"])[:TOP] for q in queries) / len(queries)


def median_per_query(search: Callable[[str], Any], queries: list[dict[str, str]], rounds: int = 15) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        for q in queries:
            search(q["query"])
        samples.append((time.perf_counter() - started) / len(queries))
    return statistics.median(samples)


def documents(engine: Any) -> tuple[list[str], list[str]]:
    names, texts = [], []
    for name in sorted(engine.tools):
        spec = engine.tools[name]
        parts = [name.replace("_", " "), spec.description, engine.toolsets[spec.toolset].description]
        for param, schema in (spec.parameters.get("properties") or {}).items():
            parts += [param.replace("_", " "), str(schema.get("description", ""))]
        names.append(name)
        texts.append(" ".join(parts))
    return names, texts


def peers(
    names: list[str], texts: list[str], queries: list[dict[str, str]], heldout: list[dict[str, str]]
) -> list[Any]:
    rows: list[Any] = []
    words = re.compile(r"\w+")
    try:
        from rank_bm25 import BM25Okapi

        corpus = [words.findall(t.lower()) for t in texts]
        build = per_call(lambda: BM25Okapi(corpus), number=1, repeat=5)[0]
        okapi = BM25Okapi(corpus)

        def okapi_search(query: str) -> list[str]:
            return okapi.get_top_n(words.findall(query.lower()), names, n=TOP)

        rows.append(("rank_bm25 BM25Okapi", build, median_per_query(okapi_search, queries, 3), okapi_search))
    except ImportError as exc:
        rows.append(("rank_bm25 BM25Okapi", f"not installed ({exc.name})"))
    try:
        import bm25s

        def bm25s_index() -> Any:
            retriever = bm25s.BM25()
            retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
            return retriever

        build = per_call(bm25s_index, number=1, repeat=5)[0]
        retriever = bm25s_index()

        def bm25s_search(query: str) -> list[str]:
            tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
            found, _ = retriever.retrieve(tokens, k=TOP, show_progress=False)
            return [names[int(i)] for i in found[0]]

        rows.append(("bm25s", build, median_per_query(bm25s_search, queries, 5), bm25s_search))
    except ImportError as exc:
        rows.append(("bm25s", f"not installed ({exc.name})"))
    return [r if len(r) == 2 else (r[0], r[1], r[2], recall(r[3], queries), recall(r[3], heldout)) for r in rows]


def naive_budget(full: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    out, used = [], 0
    for definition in full:
        cost = len(json.dumps(definition)) // 4
        if used + cost <= budget:
            out.append(definition)
            used += cost
    return out


def main() -> None:
    from engine import Engine
    from engine.definitions.tokens import counter_for
    from engine.toolsearch.index import SearchIndex

    root = write_catalog(Path(tempfile.mkdtemp(prefix="hermes-bench-")) / "catalog")
    engine = Engine.load(root)
    queries = load_queries()
    heldout = yaml.safe_load(QUERIES.read_text(encoding="utf-8"))["heldout"]
    snap = engine.snapshot

    build = per_call(lambda: SearchIndex(snap.tools, snap.toolsets), number=1, repeat=15)[0]
    index = engine.tool_search.index(snap)

    def ours(query: str) -> list[str]:
        return [h.name for h in index.search(query, TOP, lambda n: True)]

    def through_call(query: str) -> list[str]:
        result = engine.call("tool_search", {"query": query, "limit": TOP}, session_id="bench")
        return [t["name"] for t in json.loads(result.output)["tools"]]

    search_raw = median_per_query(ours, queries)
    search_call = median_per_query(through_call, queries)
    names, texts = documents(engine)
    rows = [
        (
            "hermes SearchIndex",
            f"{build * 1e3:.1f}",
            f"{search_raw * 1e6:.0f}",
            f"{recall(ours, queries):.0%}",
            f"{recall(ours, heldout):.0%}",
            "1.0x",
        ),
        (
            "hermes Engine.call('tool_search')",
            "",
            f"{search_call * 1e6:.0f}",
            f"{recall(through_call, queries):.0%}",
            "",
            "",
        ),
    ]
    for row in peers(names, texts, queries, heldout):
        if isinstance(row[1], str):
            rows.append((row[0], row[1], "", "", "", ""))
        else:
            name, peer_build, peer_search, peer_recall, peer_heldout = row
            rows.append(
                (
                    name,
                    f"{peer_build * 1e3:.1f}",
                    f"{peer_search * 1e6:.0f}",
                    f"{peer_recall:.0%}",
                    f"{peer_heldout:.0%}",
                    f"{peer_search / search_raw:.1f}x",
                )
            )
    print(
        table(
            f"tool_search over {len(engine.tools)} tools: {len(queries)} labelled requests (+{len(heldout)} held out)",
            rows,
            ("search", "build ms", "median us/query", f"recall@{TOP}", "held-out", "query time vs hermes"),
        )
    )
    print("targets: build <= 50 ms per generation; search <= 1 ms median; recall@5 >= 90%")
    print()

    fmt = "openai"
    engine.definitions(fmt)
    engine.definitions(fmt, budget_tokens=8000)
    budgets = iter(range(8000, 10**9))

    def new_budget() -> Any:
        return engine.definitions(fmt, budget_tokens=next(budgets))

    def cold() -> Any:
        engine.reload()  # nothing changed on disk: a new generation, every cache empty
        return engine.definitions(fmt, budget_tokens=8000)

    full = engine.full_definitions(fmt)
    unbudgeted = per_call(lambda: engine.definitions(fmt), number=20000)[0]
    rows = [
        ("definitions(openai), no budget (cached)", unbudgeted, ""),
        (
            "definitions(openai, budget_tokens=8000), warm",
            per_call(lambda: engine.definitions(fmt, budget_tokens=8000), number=20000)[0],
            "<= 2 ms",
        ),
        ("  same, a budget not seen before (token counts warm)", per_call(new_budget, number=20, repeat=15)[0], ""),
        ("  same, first call of a new generation (cold)", per_call(cold, number=1, repeat=7)[0], ""),
        ("hand-written: len(json)/4, greedy, every call", per_call(lambda: naive_budget(full, 8000), number=5)[0], ""),
    ]
    print(
        table(
            f"definitions of {len(full)} tools under a budget (tokenizer: {counter_for(fmt)[0]})",
            [(n, f"{t * 1e6:.2f}", f"{t / unbudgeted:.0f}x", target) for n, t, target in rows],
            ("path", "median us", "vs unbudgeted", "target"),
        )
    )


if __name__ == "__main__":
    main()
