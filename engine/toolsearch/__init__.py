"""Tool search: large catalogs under a context budget, reached through three meta-tools."""

from engine.toolsearch.meta import CALL, DESCRIBE, META_NAMES, SEARCH

__all__ = ["CALL", "DESCRIBE", "META_NAMES", "SEARCH"]
