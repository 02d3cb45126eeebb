"""Third-party MCP software the tests run against, installed by .ci/install-peers.

In CI (``CI`` set) a missing peer fails the test with the reason; elsewhere it is
skipped with the same reason, so a checkout without node still runs the rest.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NPM_BIN = REPO / ".ci" / "npm" / "node_modules" / ".bin"
INSTALL = "run `bash .ci/install-peers` (node, npm and the packages in .ci/npm/package.json)"


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def npm_bin(name: str) -> str:
    """The path of an npm package's executable under .ci/npm."""
    path = NPM_BIN / name
    if shutil.which("node") is None:
        _missing(f"node is not installed: {INSTALL}")
    if not path.exists():
        _missing(f"{name} is not installed in .ci/npm: {INSTALL}")
    return str(path)


def python_bin(name: str) -> str:
    """A console script installed beside this interpreter (the dev extra)."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            _missing(f"{name} is not installed: pip install -e '.[dev]'")
            raise AssertionError  # unreachable: _missing raises
        return found
    return str(path)
