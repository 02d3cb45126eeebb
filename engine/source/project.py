"""Where manifests come from: the project root and the builtin pack.

A *pack* is a directory holding ``manifests/``, ``toolsets/`` and ``policies/``
plus the Python package its handlers live in. The builtin pack ships with the
engine: at the top of a source checkout, under ``engine/_builtin`` in a wheel.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from engine.errors import UsageError
from engine.records import MISSING, Record

MANIFEST_DIRS = ("manifests", "toolsets", "policies")
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
CONFIG_NAMES = ("hermes-engine.yaml", "hermes-engine.yml")

# The builtin pack's handlers are imported under this private name, so a user's
# own package called ``handlers`` can never shadow them, nor be shadowed by them.
BUILTIN_HANDLER_PACKAGE = "engine._pack_handlers"


class Pack(Record, frozen=True):
    """A folder of manifests and handlers loaded as one: the builtin pack or the project."""

    __slots__ = ("name", "root", "handler_roots", "module_alias", "display_prefix", "code_root")  # noqa: RUF023  (the fields' order)

    name: str  # "builtin" or "project"
    root: Path
    handler_roots: tuple[str, ...]
    # Manifest module prefix -> the name it is imported under.
    module_alias: Mapping[str, str]
    display_prefix: str
    # Where the pack's handler packages live when not at its root (a plugin's code); None: the root.
    code_root: Path | None

    def __init__(
        self,
        name: str,
        root: Path,
        handler_roots: tuple[str, ...],
        module_alias: Mapping[str, str] = MISSING,
        display_prefix: str = "",
        code_root: Path | None = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "handler_roots", handler_roots)
        object.__setattr__(self, "module_alias", {} if module_alias is MISSING else module_alias)
        object.__setattr__(self, "display_prefix", display_prefix)
        object.__setattr__(self, "code_root", code_root)

    @property
    def package_root(self) -> Path:
        return self.code_root if self.code_root is not None else self.root

    @property
    def is_plugin(self) -> bool:
        return self.name.startswith("plugin:")

    def display(self, path: Path) -> str:
        # Once per manifest of every load: the text's own prefix when it is one (what relative_to
        # finds for the normalised paths a Path holds, at a fraction of its cost).
        text, base = str(path), str(self.root)
        if os.sep == "/" and text.startswith(base) and text[len(base) : len(base) + 1] == "/" and base != "/":
            return self.display_prefix + text[len(base) + 1 :]
        return self.display_prefix + path.relative_to(self.root).as_posix()


def builtin_pack_dir() -> Path:
    here = Path(__file__).resolve().parent.parent  # engine/
    installed = here / "_builtin"
    if (installed / "manifests").is_dir():
        return installed
    checkout = here.parent
    if (checkout / "manifests").is_dir() and (checkout / "handlers").is_dir():
        return checkout
    raise UsageError(f"the builtin pack is missing: neither {installed} nor {checkout} holds manifests/")


def builtin_pack() -> Pack:
    return Pack(
        name="builtin",
        root=builtin_pack_dir(),
        handler_roots=("handlers",),
        module_alias={"handlers": BUILTIN_HANDLER_PACKAGE},
        display_prefix="<builtin>/",
    )


def check_project_root(root: Path) -> Path:
    """Resolve ``root`` and make sure it looks like a project.

    Raises:
        UsageError: the directory does not exist or holds none of the project folders.
    """
    resolved = root.expanduser().resolve()
    if not resolved.is_dir():
        raise UsageError(f"project root {root} is not a directory")
    markers = [*MANIFEST_DIRS, *CONFIG_NAMES]
    if not any((resolved / m).exists() for m in markers):
        raise UsageError(
            f"{resolved} is not a hermes-engine project: it has none of "
            f"{', '.join(d + '/' for d in MANIFEST_DIRS)} or {CONFIG_NAMES[0]} (use --root PATH)"
        )
    return resolved


def is_builtin_root(root: Path) -> bool:
    try:
        return root.resolve() == builtin_pack_dir().resolve()
    except UsageError:
        return False


def resolved(path: Path | str) -> Path:
    """``path`` made absolute with its links followed; as far as they go when they loop."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return Path(os.path.abspath(path))


def is_ignored_name(name: str) -> bool:
    """Editor temporaries and hidden files are never manifests."""
    return (
        name.startswith(".")
        or name.endswith("~")
        or name.endswith((".swp", ".swx", ".swo", ".tmp", ".part"))
        or name == "4913"  # vim's write-permission probe
    )


def manifest_files(pack: Pack) -> list[Path]:
    """Every manifest file of a pack, in a stable order (``Path`` order)."""
    return [Path(path) for path in manifest_paths(pack)]


def manifest_paths(pack: Pack) -> list[str]:
    """:func:`manifest_files` as strings (what the compiled-project cache hashes on every start)."""
    found: list[tuple[list[str], str]] = []
    for folder in MANIFEST_DIRS:
        base = os.path.join(pack.root, folder)
        if os.path.isdir(base):
            _walk(base, found)
    found.sort(key=lambda item: item[0])
    return [path for _, path in found]


def _walk(folder: str, found: list[tuple[list[str], str]]) -> None:
    """The manifests under ``folder`` (os.scandir: a project of 1,000 tools is listed on every
    load and every warm ``validate``; pathlib's rglob costs several times as much)."""
    try:
        entries = list(os.scandir(folder))
    except (PermissionError, NotADirectoryError, FileNotFoundError):
        return
    for entry in entries:
        if is_ignored_name(entry.name):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                _walk(entry.path, found)
                continue
            # A link that leads nowhere (dangling, or a loop) is listed too: reading it fails
            # with a located error instead of the manifest being skipped in silence.
            wanted = os.path.splitext(entry.name)[1] in MANIFEST_SUFFIXES and (entry.is_symlink() or entry.is_file())
        except OSError:
            continue
        if wanted:
            found.append((entry.path.split(os.sep), entry.path))
