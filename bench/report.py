"""Run every benchmark and rewrite BENCHMARKS.md with their output.

    python -m bench.report

Each benchmark prints its own comparison with its peers; this only collects them,
so the recorded figures always come from one run of the commands shown.
"""

from __future__ import annotations

import datetime
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHES = (
    "load",
    "dispatch",
    "policy",
    "adversarial",
    "reload",
    "audit",
    "mcp",
    "robust",
    "runtimes",
    "toolsearch",
    "guard",
    "adapters",
)


def run(name: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", f"bench.bench_{name}"], cwd=REPO, capture_output=True, text=True, check=True
    )
    return done.stdout.rstrip()


def version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def main() -> None:
    out = {name: run(name) for name in BENCHES}
    versions = ", ".join(
        f"`{p}` {version(p)}"
        for p in ("jsonschema-rs", "PyYAML", "watchfiles", "mcp", "langchain-core", "openai-agents")
    )
    body = TEMPLATE.format(
        machine=f"{platform.machine()} {platform.system()}, Python {platform.python_version()}",
        versions=versions,
        date=datetime.date.today().isoformat(),
        **out,
    )
    (REPO / "BENCHMARKS.md").write_text(body)
    print(body)


TEMPLATE = """# Benchmarks

Every benchmark compares against its named peers or floor **in the same run** and prints ratios.
They are not unit tests (the machines are shared and noisy): run them by hand, read the medians.
`python -m bench.report` runs them all and rewrites this file.

Recorded {date} on a 2-core {machine}; {versions}.

Set-up for all of them:

```bash
pip install -e '.[dev,bench]'
```

## Loading 1,000 tool manifests

```bash
python -m bench.bench_load
```

```
{load}
```

- The floor is `yaml.load(..., Loader=yaml.CSafeLoader)` of the same 1,000 files (~40 lines each).
- `Engine.load` composes with libyaml but builds values itself (duplicate keys, positions, alias-bomb
  guard), resolves tags through a C-level LRU cache, pauses the cyclic GC while building, checks
  structure with pre-built `jsonschema-rs` validators, metaschema-checks and compiles every tool's
  parameters, binds handlers (cached per function) and links everything.
- `import engine` is measured as a subprocess minus a bare interpreter; Jinja, cerberus, watchfiles,
  filelock and the policy compiler are imported on first use.
- The CLI (one process per command) loads with the cyclic GC off and `gc.freeze()`s the result, so the
  first allocation afterwards does not scan the whole loaded heap; embedded use and `dev` keep the
  host's GC settings.

## One call through the pipeline

```bash
python -m bench.bench_dispatch
```

```
{dispatch}
```

- A trivial sync `echo` tool, no hook and no policy match: lookup, availability, validation with a
  pre-built `jsonschema-rs` validator (coercion only runs when validation fails), invocation inline on
  the calling thread, result shaping, size cap and metadata.
- Async peers are measured at their best: many awaits inside one running loop, so loop start-up is not
  charged to them. `hermes Engine.call (async echo)` is the sync API bridging into a per-thread event
  loop; `await Engine.acall` is the async API.
- The peers installed here are slower than the 3.7-15 us the issue quoted for the fastest one; the
  ratio printed is from this run.

## Danger detection

```bash
python -m bench.bench_policy
```

```
{policy}
```

- Corpus: `tests/data/commands-sample.jsonl` (a copy of the labelled sample). The engine is also tested
  on commands written for the tests (`tests/data/commands-extra.yaml`).
- The naive checker is a list of compiled regexes over the raw text, the approach the engine replaces.
- Per command, the median of 31 runs; then the median and p99 over the corpus. The `Engine.check` row
  is cold: the evaluator's parse cache is off, so every check parses and matches again. The row
  "same text again (parse cached)" judges each command again with its parse remembered (no verdict is
  ever cached: matching, symbolic links and the working directory are looked at on every check). Plain lines (words joined by `|`, `&&`, `;` ...) take a regex
  fast path through the tokenizer; quotes, expansions and redirections take the full lexer.
- The naive list is faster per command and misses a quarter of the dangerous commands while flagging
  almost a quarter of the safe ones.

## Danger detection against inputs built to be slow

```bash
python -m bench.bench_adversarial
```

```
{adversarial}
```

- Each shape (flag repetitions for a backtracking regex, a backreference regex, unclosed and huge brace
  groups, deep `eval` and `$(...)` nesting, thousands of commands, escapes and fullwidth text that
  multiply the readings ...) is scaled from 1 KiB to 1 MiB; per input the median of 3 checks.
- Policy regexes run on RE2 (linear); patterns RE2 cannot express run on the `regex` module with a
  2 ms timeout per search. Parsing stops at 4,096 words and operators per check (and at 64 KiB, 8
  levels, 512 commands, 64 brace groups per word); past a limit a flat scan that needs no parse
  decides (hardline → deny, else an ask no grant covers).
- The floor is `str.split()` over the same text: the cost of looking at every byte once.

## Live reload

```bash
python -m bench.bench_reload
```

```
{reload}
```

- "visible" is wall time from writing the file to `Engine.generation` changing, through watchfiles
  (step 10 ms, debounce 250 ms) and the reload.
- "engine work" is `Engine.reload([changed file])`: only that file is parsed again; unchanged documents
  keep their checked state, tool specs, compiled templates and the compiled policy.
- A max far above its median is a cyclic-GC pass over the 1,000-tool heap landing in the timed region.

## Verifying the audit log

```bash
python -m bench.bench_audit
```

```
{audit}
```

- 100,000 records of the engine's shape (~360 bytes each), written with the engine's key and head files.
- `verify()` checks each line's HMAC-SHA256 over the previous MAC and its own bytes (no JSON parsing
  except for break records) and that the chain reaches the head kept outside the state dir; the CLI
  figure is a whole `hermes-engine audit verify` process, which reads only the config, not the manifests.
- The peers are unkeyed SHA-256 chains: one over the raw lines, one parsing and re-serialising every
  line as JSON (the format the engine used before); neither detects a re-chained or truncated log.

## MCP both ways

```bash
python -m bench.bench_mcp
```

```
{mcp}
```

- Round trips go through the official `ClientSession` over stdio to a child process; the peer is the
  same one-line `echo` tool on the SDK's own high-level server (`bench/mcp_peer_server.py`).
- The engine's overhead on an McpServer tool: `Engine.call` (pipeline, then a hand-off to the engine's
  connection loop and back) against `await ClientSession.call_tool` on its own connection to another
  process of the same server; their batches alternate and the figure is the median of the per-round
  differences. The floor row is the hand-off alone (a no-op coroutine run on another thread's loop).
  On a loaded machine every extra thread wake-up waits for a time slice, so read it with the load.
- list_changed: from writing a manifest to the notification arriving at a connected client, through
  the watcher (step 10 ms), the reload and the MCP session.

## Robustness under fuzzing

```bash
python -m bench.bench_robust
```

```
{robust}
```

- Projects: the builtin pack and every test project, one to three YAML files (or the config) mutated
  per run (`bench/fuzz_projects.py`): keys deleted or renamed, values swapped for other types, huge
  numbers, deep nesting, random unicode, extra documents; bytes inserted, cut, repeated or made
  invalid UTF-8, alias chains, tabs. Each is loaded as `validate` does and, when it validates, also
  listed, rendered and used for a check. "Its seed's unmutated load" is the same project unmutated.
- Calls: hypothesis-generated names, argument JSON (deep, huge numbers, lone surrogates, NUL bytes)
  and handler outcomes (any value, 100,000-deep lists, GeneratorExit, SystemExit, exceptions whose
  `__str__` fails...) through each entry point of the chaos test project (`bench/fuzz_calls.py`);
  `check` runs on the builtin policies. "vs plain" compares with a plain call in the same run.

## Runtimes: what running a command elsewhere costs

```bash
python -m bench.bench_runtimes
```

```
{runtimes}
```

- The floor is `/bin/sh -c true` started with `subprocess` on the host; each row alternates one floor
  call with one call of the runtime and reports the median of the per-round differences.
- sandbox: a bubblewrap box per command (read-only root, private /tmp and HOME, new user, pid, ipc,
  uts and net namespaces, every capability dropped). docker: an exec of the wrapper in the session's
  running container through the Engine API (the SDK measured ~10 ms faster than `docker exec`).
  ssh: a warm connection to a loopback sshd; commands go to a reused `/bin/sh` on its own channel,
  since a new channel costs sshd a fork and a login shell (~120 ms).
- The dockerd (private data root and socket, no bridge) and the sshd are started by the benchmark
  as the tests start them, and stopped at its end; it needs root and the packages `.ci/run` installs.

## Framework adapters: LangChain and the OpenAI Agents SDK

```bash
python -m bench.bench_adapters
```

```
{adapters}
```

- The same one-line echo as plain function, engine tool (`Engine.call` / `await Engine.acall`), the
  framework's native tool (LangChain `@tool`, Agents SDK `@function_tool`) and the engine's tool from
  `engine.adapters`, each invoked as the framework invokes tools; batches interleaved round by round.
- "overhead above the engine" = per round (adapter - native) - (engine - plain), median over rounds:
  what the adapter costs beyond the engine call and beyond what the framework costs any tool. A
  negative figure means the framework does less around the adapter than around its native tool
  (LangChain validates a native tool's arguments with pydantic; the adapter leaves that to the engine).
- "glue" is the adapter's own method called directly, minus the engine call.

## Tool search over 1,000 tools

```bash
python -m bench.bench_toolsearch
```

```
{toolsearch}
```

- The catalog is `tests/data/toolsearch/catalog.yaml` expanded by `bench/catalog.py` (40 toolsets of 25
  tools, plus the builtin pack); the requests are `tests/data/toolsearch/queries.yaml`. The held-out
  requests were written after the search was tuned and never used to tune it.
- Peers get the same text per tool with their usual tokenization; their recall is what plain BM25 gives.
- "build" is the index of one generation from scratch; a reload reuses unchanged tools' term counts.
- Budgeted definitions are cached like unbudgeted ones; "a budget not seen before" keeps the token
  counts of the generation and only fits again; "cold" is the first call after a reload (definitions
  rendered, every one counted with tiktoken's cl100k).

## `guard`, `check` and `validate` as processes

```bash
python -m bench.bench_guard
```

```
{guard}
```

- Each command is a whole process, as an agent's hook is: interpreter start, imports, the project, the
  verdict, the audit record. They run in rounds (each once per round) beside `python -c pass`, with
  bytecode caching on and the compiled-project cache warm; "cold" removes the cache before each run.
"""


if __name__ == "__main__":
    main()
