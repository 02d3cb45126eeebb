"""The engine's two builds: pure Python, or the policy's hot modules compiled with mypyc.

``setup.py`` compiles :data:`COMPILED_MODULES` when it can (docs/compiled.md), and
``bench.bench_compiled`` measures the same list; ``hermes-engine --version`` and
``bench.bench_policy`` name the build that runs (:func:`build_name`). setup.py reads this file
before the package's dependencies are installed: nothing is imported here at module level.
"""

from __future__ import annotations

# The modules that take ~95% of a check's time (cProfile of bench.bench_policy, by file). Each one
# keeps the rules of docs/compiled.md (a compiled build fails to import, or errs, otherwise).
COMPILED_MODULES = tuple(
    f"engine.policy.{name}"
    for name in (
        "shell", "evaluate", "matchers", "paths", "follow", "landing", "lexer", "regexes",
        "commands", "variables", "argv", "model", "programs", "inline", "normalize", "values", "trees",
    )
)  # fmt: skip

COMPILED = "compiled (mypyc)"
PURE = "pure Python"


def build_name() -> str:
    """``compiled (mypyc)`` when every module of :data:`COMPILED_MODULES` that would be imported is
    an extension module, ``pure Python`` when none is, and how many are otherwise."""
    from importlib.util import find_spec  # noqa: PLC0415

    compiled = 0
    for name in COMPILED_MODULES:
        spec = find_spec(name)
        origin = spec.origin if spec is not None else None
        compiled += origin is not None and not origin.endswith(".py")
    if compiled == len(COMPILED_MODULES):
        return COMPILED
    if not compiled:
        return PURE
    return f"partly compiled (mypyc: {compiled} of {len(COMPILED_MODULES)} modules)"
