"""Plugins: third-party code that adds manifests, tools, hooks, providers and runtime types.

See docs/plugins.md. A plugin is an installed package exposing an entry point in the group
``hermes_engine.plugins`` (``name = "package.module:register"``) or a folder of the project
holding a ``plugin.yaml`` and a package; either way it loads only when ``hermes-engine.yaml``
lists it, and ``register(ctx)`` receives a :class:`PluginContext`.
"""

from engine.plugins.context import PluginContext
from engine.plugins.manager import GROUP, PluginManager, PluginReport, PluginSet

__all__ = ["GROUP", "PluginContext", "PluginManager", "PluginReport", "PluginSet"]
