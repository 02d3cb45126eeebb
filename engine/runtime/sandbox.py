"""``sandbox``: each command in a bubblewrap box on the host.

The box sees the host read-only, its own /tmp, the working directory read-write and
nothing of the engine: the engine's own files stay read-only even inside the working
directory, its state is hidden, HOME is an empty tmpfs, and the command lives in new
user, pid, ipc and uts namespaces (so ``/proc/$PPID`` is the box's init, not the engine)
with every capability dropped. The network is off unless the manifest says ``network: true``.
When the command ends, or its time is up, the pid namespace goes and every process in
it, ``setsid`` children included.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any

from engine.runtime.base import RuntimeUnavailable, host_shell
from engine.runtime.local import HostRuntime

_NAMESPACES = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]


@functools.cache
def _bwrap_works(bwrap: str, network: bool) -> str | None:
    """Why bwrap cannot make a box here (None: it can). Cached for the process: it does not change."""
    argv = [bwrap, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--cap-drop", "ALL", *_NAMESPACES]
    if not network:
        argv.append("--unshare-net")
    argv += ["--die-with-parent", "--", "/bin/sh", "-c", "exit 0"]
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=20, check=False, env={"PATH": os.defpath})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not be run: {exc}"
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        return f"bwrap cannot create a sandbox here: {detail[-1] if detail else f'exit {proc.returncode}'}"
    return None


class SandboxRuntime(HostRuntime):
    type_name = "sandbox"

    @classmethod
    def check(cls, settings: Mapping[str, Any]) -> str | None:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            return "bwrap (bubblewrap) is not installed; install the bubblewrap package"
        return _bwrap_works(bwrap, bool(settings.get("network")))

    def start(self) -> None:
        reason = self.check(self.settings)
        if reason:
            raise RuntimeUnavailable(reason)

    def argv(self, command: str, cwd: str) -> list[str]:
        workdir = str(self.session.workdir)
        out = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        out += ["--tmpfs", "/tmp"]
        if self.settings.get("hide_home", True):
            home = os.path.realpath(os.path.expanduser("~"))
            if home not in ("/", workdir):
                out += ["--tmpfs", home]
        for hidden in self.settings.get("hide") or ():
            out += ["--tmpfs", str(hidden)]
        out += ["--bind", workdir, workdir]
        for bind in self.settings.get("binds") or ():
            source = str(bind["source"])
            target = str(bind.get("target") or source)
            out += ["--bind" if bind.get("writable") else "--ro-bind", source, target]
        for path in self.session.protected:
            if path.exists():
                out += ["--ro-bind", str(path), str(path)]
        for path in self.session.hidden:
            if path.is_dir():
                out += ["--tmpfs", str(path)]
            elif path.exists():
                out += ["--ro-bind", "/dev/null", str(path)]
        out += ["--cap-drop", "ALL", *_NAMESPACES]
        if not self.settings.get("network"):
            out.append("--unshare-net")
        out += ["--new-session", "--die-with-parent", "--chdir", cwd, "--"]
        return [*out, host_shell(self.settings), "-c", command]
