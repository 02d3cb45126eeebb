"""``guard --serve``: the guard as a local HTTP endpoint, for agents whose hooks can POST.

No process starts per tool call: the compiled project stays loaded, and is looked at again
(its input files hashed) on every request, so an edited policy takes effect on the next
call. Abuse cases, and what stops them:

- another user or machine calling it: it binds 127.0.0.1 only;
- another local process calling it (a tool the agent runs, a web page through the browser):
  every request needs ``Authorization: Bearer <HERMES_ENGINE_GUARD_TOKEN>``, compared in
  constant time; the server does not start without a token of at least 16 characters;
  a request with an ``Origin`` header (a browser) is refused;
- a huge or endless body: at most MAX_EVENT_BYTES are read, with a socket timeout;
- an internal failure: answered 200 with a *deny* in the agent's protocol, because agents
  treat an HTTP error status as a non-blocking error (fail closed, not open).
"""

from __future__ import annotations

import hmac
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from engine.errors import UsageError
from engine.guard.hook import AGENTS, MAX_EVENT_BYTES, Decision, GuardError, judge, parse_event, read_event, render

TOKEN_ENV = "HERMES_ENGINE_GUARD_TOKEN"
HOST = "127.0.0.1"


class _Project:
    """The compiled project, rebuilt when any input file changes (checked on every request)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.Lock()
        self.key: str | None = None
        self.project: Any = None

    def current(self) -> Any:
        from engine.guard.cache import load_project, project_key  # noqa: PLC0415

        with self.lock:
            held = self.project
            if held is not None and project_key(held.root, held.packs, held.extra_files) == self.key:
                return held
            project, result = load_project(self.root)
            if project is None:
                errors = [p.format() for p in (result.errors if result is not None else [])][:5]
                raise GuardError("the project does not load: " + ("; ".join(errors) or "unknown error"))
            self.project, self.key = project, project_key(project.root, project.packs, project.extra_files)
            return project


def make_server(root: Path, port: int, token: str) -> ThreadingHTTPServer:
    if len(token) < 16:
        raise UsageError(f"set {TOKEN_ENV} to a secret of at least 16 characters before --serve")
    expected = token.encode("utf-8")
    state = _Project(root)

    class Handler(BaseHTTPRequestHandler):
        timeout = 10
        server_version = "hermes-engine-guard"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the audit log records decisions; request lines would only repeat them

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _authorised(self) -> bool:
            given = self.headers.get("Authorization", "")
            scheme, _, value = given.partition(" ")
            return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode("utf-8"), expected)

        def do_GET(self) -> None:
            self._send(405, {"error": "POST a hook event to /guard/<agent>"})

        def do_POST(self) -> None:
            if self.headers.get("Origin") is not None:
                self._send(403, {"error": "browser requests are refused"})
                return
            if not self._authorised():
                self._send(401, {"error": f"missing or wrong bearer token (see {TOKEN_ENV})"})
                return
            agent = self.path.rstrip("/").rsplit("/", 1)[-1]
            if not self.path.startswith("/guard/") or agent not in AGENTS:
                self._send(404, {"error": f"POST to /guard/<agent>, agent one of {', '.join(AGENTS)}"})
                return
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                length = -1
            if length < 0 or length > MAX_EVENT_BYTES:
                self._send(413, {"error": f"a body of 0..{MAX_EVENT_BYTES} bytes with Content-Length is required"})
                return
            _, out, _ = answer(agent, self.rfile.read(length), state)
            self.send_response(200)
            data = out.encode("utf-8")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return ThreadingHTTPServer((HOST, port), Handler)


def answer(agent: str, data: bytes, state: _Project) -> tuple[int, str, str]:
    """Judge one event; any failure is a deny in the agent's protocol (an HTTP error would not block)."""
    try:
        call = parse_event(agent, read_event(data))
        return render(agent, judge(state.current(), call))
    except GuardError as exc:
        reason = f"hermes-engine guard: {exc}; the call is blocked"
    except Exception as exc:
        reason = f"hermes-engine guard: internal error ({type(exc).__name__}); the call is blocked"
    return render(agent, Decision("deny", reason))


def serve_forever(root: Path, port: int) -> None:
    server = make_server(root, port, os.environ.get(TOKEN_ENV, ""))
    print(f"guard: serving http://{HOST}:{server.server_address[1]}/guard/<agent>", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
