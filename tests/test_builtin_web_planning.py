"""web_extract and web_search against servers on loopback; todo and memory per session."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from engine import Engine
from tests.conftest import REPO

PAGE = b"""<!doctype html><html><head><title>Test page</title><style>p{}</style></head>
<body><h1>Heading</h1><script>var secret = 1;</script><p>First paragraph.</p><ul><li>item</li></ul></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    searches: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/page":
            self._send(200, "text/html; charset=utf-8", PAGE)
        elif self.path == "/redirect-local":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:9/private")
            self.end_headers()
        elif self.path == "/big":
            self._send(200, "text/plain", b"z" * 100_000)
        else:
            self._send(404, "text/plain", b"missing")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Handler.searches.append(body)
        answer = {
            "results": [
                {"title": f"Result {i}", "url": f"https://example.com/{i}", "content": "snippet"}
                for i in range(body["max_results"])
            ]
        }
        self._send(200, "application/json", json.dumps(answer).encode())

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def make(tmp_path: Path, **config: Any) -> Engine:
    return Engine.load(REPO, config={"workdir": str(tmp_path), "state_dir": str(tmp_path / "state"), **config})


def test_web_extract_returns_readable_text(server: str, tmp_path: Path) -> None:
    engine = make(tmp_path, web={"allow_private_networks": True})
    result = engine.call("web_extract", {"urls": [f"{server}/page"]})
    assert result.ok, result.output
    assert result.output.startswith("# Test page\n")
    assert "# Heading" in result.output and "First paragraph." in result.output and "- item" in result.output
    assert "secret" not in result.output and "p{}" not in result.output


def test_web_extract_accepts_a_single_url_alias_and_caps_text(server: str, tmp_path: Path) -> None:
    engine = make(tmp_path, web={"allow_private_networks": True})
    result = engine.call("web_extract", {"url": f"{server}/big", "max_chars": 100})
    assert result.ok and "[cut at 100 of 100000 characters]" in result.output


def test_web_extract_reports_http_errors_per_page(server: str, tmp_path: Path) -> None:
    engine = make(tmp_path, web={"allow_private_networks": True})
    result = engine.call("web_extract", {"urls": [f"{server}/page", f"{server}/gone"]})
    assert result.ok and "HTTP 404" in result.output and "First paragraph." in result.output


def test_web_extract_refuses_private_addresses_by_default(server: str, tmp_path: Path) -> None:
    engine = make(tmp_path)
    result = engine.call("web_extract", {"urls": [f"{server}/page"]})
    assert result.error is not None and "private or local address" in result.error.message
    result = engine.call("web_extract", {"urls": ["http://169.254.169.254/latest/meta-data/"]})
    assert result.error is not None and "private or local address" in result.error.message
    result = engine.call("web_extract", {"urls": ["file:///etc/passwd"]})
    assert result.error is not None and result.error.type == "invalid_arguments"


def test_web_search_is_unavailable_without_its_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    engine = make(tmp_path)
    assert "web_search" not in [d["function"]["name"] for d in engine.definitions()]
    result = engine.call("web_search", {"query": "x"})
    assert result.error is not None and result.error.type == "unavailable"
    assert "TAVILY_API_KEY" in result.error.message


def test_web_search_queries_the_provider(server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    monkeypatch.setenv("TAVILY_BASE_URL", server)
    engine = make(tmp_path)
    result = engine.call("web_search", {"query": "hermes", "limit": 2})
    assert result.ok, result.output
    answer = json.loads(result.output)
    assert [r["title"] for r in answer["results"]] == ["Result 0", "Result 1"]
    assert _Handler.searches[-1] == {"api_key": "tvly-test", "query": "hermes", "max_results": 2}


def test_todo_keeps_a_list_per_session(tmp_path: Path) -> None:
    engine = make(tmp_path)
    items = [
        {"id": "1", "content": "write tests", "status": "in_progress"},
        {"id": "2", "content": "ship", "status": "pending"},
    ]
    stored = json.loads(engine.call("todo", {"todos": items}, session_id="a").output)
    assert stored["summary"]["in_progress"] == 1
    merged = json.loads(
        engine.call(
            "todo",
            {"todos": [{"id": "1", "content": "write tests", "status": "completed"}], "merge": True},
            session_id="a",
        ).output
    )
    assert [t["status"] for t in merged["todos"]] == ["completed", "pending"]
    assert json.loads(engine.call("todo", {}, session_id="b").output)["todos"] == []
    again = Engine.load(REPO, config={"workdir": str(tmp_path), "state_dir": str(tmp_path / "state")})
    assert len(json.loads(again.call("todo", {}, session_id="a").output)["todos"]) == 2


def test_memory_adds_replaces_and_removes_entries(tmp_path: Path) -> None:
    engine = make(tmp_path)

    def memory(**args: Any) -> Any:
        result = engine.call("memory", args, session_id="s")
        return json.loads(result.output) if result.ok else result.error

    assert memory(action="add", content="user prefers tabs")["entries"] == ["user prefers tabs"]
    memory(action="add", content="project uses uv")
    assert memory(action="replace", old_text="tabs", content="spaces")["entries"][0] == "user prefers spaces"
    assert "matches 0 entries" in memory(action="remove", old_text="nothing").message
    assert memory(action="remove", old_text="uv")["entries"] == ["user prefers spaces"]


def test_a_host_provider_replaces_the_default_todo(tmp_path: Path) -> None:
    engine = make(tmp_path)
    engine.register_provider("todo", lambda todos=None, merge=False: "host todo")
    assert engine.call("todo", {}).output == "host todo"
