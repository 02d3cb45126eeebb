"""Runtime types by name, and the frozen spec of each declared runtime.

The four builtin types are always known. A plugin adds one with
:meth:`RuntimeTypes.register` before the project is loaded (a ``Runtime`` manifest naming
an unknown type is a located error); its settings are checked against the JSON Schema it
registers, like the builtin types are checked against the published runtime schema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import import_module
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine.errors import ConfigurationError
from engine.registry.specs import Source

if TYPE_CHECKING:
    from engine.runtime.base import Runtime, Session

# The runtime every project has, and the name a manifest uses for "the terminal's runtime".
LOCAL = "local"
DEFAULT = "default"
RESERVED = frozenset({LOCAL, DEFAULT})
_TYPE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
# The builtin types (each class's ``type_name``) and where their classes are: imported when a
# type is first asked for, so a load that declares no runtime imports none of them (nor asyncio).
BUILTIN_TYPES = {
    "local": ("engine.runtime.local", "LocalRuntime"),
    "sandbox": ("engine.runtime.sandbox", "SandboxRuntime"),
    "docker": ("engine.runtime.docker", "DockerRuntime"),
    "ssh": ("engine.runtime.ssh", "SshRuntime"),
}


@dataclass(frozen=True, slots=True)
class RuntimeType:
    name: str
    runtime_class: type[Runtime]
    # JSON Schema of the type's own settings (plugin types); None: the published runtime schema covers it.
    schema: Mapping[str, Any] | None = None

    def create(self, name: str, settings: Mapping[str, Any], session: Session) -> Runtime:
        return self.runtime_class(name, settings, session)

    def check(self, settings: Mapping[str, Any]) -> str | None:
        return self.runtime_class.check(settings)


class RuntimeTypes:
    """The runtime types a loader knows: the builtin ones plus what plugins registered."""

    def __init__(self) -> None:
        # A builtin type is None until it is first asked for (see BUILTIN_TYPES).
        self._types: dict[str, RuntimeType | None] = dict.fromkeys(BUILTIN_TYPES)
        # Types the plugins of the current generation added (replaced whole on each load).
        self._plugin: dict[str, RuntimeType] = {}

    def register(
        self,
        name: str,
        runtime_class: type[Runtime],
        *,
        schema: Mapping[str, Any] | None = None,
    ) -> None:
        """Add a runtime type, e.g. from a plugin: ``types.register("modal", ModalRuntime, schema={...})``.

        ``runtime_class(name, settings, session)`` must implement :class:`Runtime` (its
        ``check`` classmethod answers availability); ``schema``
        (JSON Schema, an object) checks the settings of every manifest of this type at load.

        Raises:
            ConfigurationError: a bad or taken type name, or not a Runtime class.
        """
        self._types[name] = self.make(name, runtime_class, schema)

    def make(self, name: str, runtime_class: type[Runtime], schema: Mapping[str, Any] | None) -> RuntimeType:
        """The type ``register`` would add, checked against the types known here (nothing is added).

        Raises:
            ConfigurationError: a bad or taken type name, or not a Runtime class.
        """
        if not isinstance(name, str) or not _TYPE_NAME.match(name):
            raise ConfigurationError(f"runtime type {name!r}: use a lowercase name of letters, digits, _ and -")
        if name in self._types or name in self._plugin:
            raise ConfigurationError(f"runtime type {name!r} is already registered")
        from engine.runtime.base import Runtime  # noqa: PLC0415

        if not (isinstance(runtime_class, type) and issubclass(runtime_class, Runtime)):
            raise ConfigurationError(f"runtime type {name!r}: {runtime_class!r} is not a subclass of Runtime")
        if schema is not None and not isinstance(schema, Mapping):
            raise ConfigurationError(f"runtime type {name!r}: its schema must be a JSON Schema object")
        return RuntimeType(name, runtime_class, schema)

    def staged(self, plugin_types: Mapping[str, RuntimeType]) -> RuntimeTypes:
        """These types with ``plugin_types`` in place of the plugins' current ones (a load in progress)."""
        view = RuntimeTypes.__new__(RuntimeTypes)
        view._types = self._types
        view._plugin = dict(plugin_types)
        return view

    def set_plugin_types(self, plugin_types: Mapping[str, RuntimeType]) -> None:
        """Replace the types plugins added (a load that succeeded commits its plugins' types)."""
        self._plugin = dict(plugin_types)

    def get(self, name: str) -> RuntimeType | None:
        if name not in self._types:
            return self._plugin.get(name)
        found = self._types[name]
        if found is None:
            module, attr = BUILTIN_TYPES[name]
            found = self._types[name] = RuntimeType(name, getattr(import_module(module), attr))
        return found

    def names(self) -> list[str]:
        return sorted({*self._types, *self._plugin})


@dataclass(frozen=True, slots=True)
class RuntimeSpec:
    """A declared runtime: its name, type and settings (paths already made absolute)."""

    name: str
    type: str
    settings: Mapping[str, Any]
    source: Source
    pack: str = "project"
    description: str = ""
    # Settings that name host paths, as written (for messages).
    written: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def idle_timeout(self) -> float:
        return float(self.settings.get("idle_timeout") or 600)


LOCAL_SPEC = RuntimeSpec(LOCAL, LOCAL, MappingProxyType({}), Source("<builtin>", 1), "builtin", "the host")
