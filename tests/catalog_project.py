"""The generated 1,000-tool catalog (bench/catalog.py) as a project, in a temporary tree."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from bench.catalog import write_catalog
from engine import Engine


def catalog_engine(tmp: Path, config: str = "") -> Engine:
    """An engine over the catalog plus the builtin pack; work tree and state dir under ``tmp``."""
    work = tmp / "work"
    work.mkdir(parents=True, exist_ok=True)
    extra = f"workdir: {work}\nstate_dir: {tmp / 'state'}\n" + textwrap.dedent(config)
    root = write_catalog(tmp / "project", config=extra)
    engine = Engine.load(root)
    # Bound already; forgotten so that another catalog project can load in this process.
    for name in [m for m in sys.modules if m == "catalog_handlers" or m.startswith("catalog_handlers.")]:
        del sys.modules[name]
    return engine
