"""web_extract connects to exactly the address it checked, and only to public ones.

A local HTTP(S) server stands for the internal service an attacker wants to reach; the
resolver is the test's (it rebinds: a public address when checked, 127.0.0.1 after). The
harm asserted is that the local server never saw a request and its page was not returned.
"""

from __future__ import annotations

import datetime
import http.server
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from tests.conftest import REPO

PAGE = b"<html><title>internal</title><body>INTERNAL-SECRET-PAGE</body></html>"
PUBLIC = "93.184.216.34"


class _Server(http.server.ThreadingHTTPServer):
    requests: list[dict[str, str]]


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.requests.append({"path": self.path, "host": self.headers.get("Host", "")})  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: Any) -> None:
        pass


def _serve(context: ssl.SSLContext | None = None) -> Iterator[_Server]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.requests = []
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def server() -> Iterator[_Server]:
    yield from _serve()


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Where the engine opens TCP connections; the public address is unreachable here."""
    seen: list[tuple[str, int]] = []
    real = socket.create_connection

    def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        seen.append((str(address[0]), int(address[1])))
        if address[0] == PUBLIC:
            raise ConnectionRefusedError(111, "Connection refused")
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)
    return seen


def resolver(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> list[str]:
    """A resolver for test names: each lookup of a name takes its next answer (the last repeats)."""
    asked: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in answers:
            asked.append(host)
            queue = answers[host]
            address = queue.pop(0) if len(queue) > 1 else queue[0]
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, int(port or 0), 0, 0) if family == socket.AF_INET6 else (address, int(port or 0))
            return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr)]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def load(tmp_path: Path, *, private: bool = False) -> Engine:
    config = {
        "workdir": str(tmp_path),
        "state_dir": str(tmp_path / "state"),
        "web": {"timeout": 5, "allow_private_networks": private},
    }
    return Engine.load(REPO, config=config)


def test_a_rebinding_name_never_reaches_the_local_server(
    tmp_path: Path, server: _Server, connects: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = server.server_address[1]
    asked = resolver(monkeypatch, {"rebind.example": [PUBLIC, "127.0.0.1"]})
    engine = load(tmp_path)
    result = engine.call("web_extract", {"urls": [f"http://rebind.example:{port}/"]})
    assert "INTERNAL-SECRET" not in result.output
    assert server.requests == []  # the harm: the internal service was never asked
    assert connects == [(PUBLIC, port)]  # the address checked is the address connected to
    assert asked == ["rebind.example"]  # looked up once
    engine.close()


@pytest.mark.parametrize(
    "address",
    [
        "100.100.100.200",  # Alibaba cloud metadata (shared address space)
        "100.64.0.1",
        "192.88.99.1",  # 6to4 relay anycast
        "127.0.0.1",
        "169.254.169.254",
        "10.0.0.1",
        "::ffff:127.0.0.1",  # IPv4-mapped
        "::ffff:169.254.169.254",
        "2002:7f00:1::1",  # 6to4 carrying 127.0.0.1
        "2002:a9fe:a9fe::1",  # 6to4 carrying 169.254.169.254
        "64:ff9b::7f00:1",  # NAT64 carrying 127.0.0.1
        "64:ff9b::a9fe:a9fe",  # NAT64 carrying 169.254.169.254
        "64:ff9b:1::a00:1",  # local-use NAT64 carrying 10.0.0.1
        "::1",
        "fd00::1",
    ],
)
def test_only_public_addresses_are_fetched(
    tmp_path: Path, connects: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    resolver(monkeypatch, {"inside.example": [address]})
    engine = load(tmp_path)
    result = engine.call("web_extract", {"urls": ["http://inside.example/latest/meta-data/"]})
    assert result.error is not None and "refusing to fetch" in result.error.message, result.output
    assert connects == []
    engine.close()


def test_the_host_header_keeps_the_name_on_a_pinned_connection(
    tmp_path: Path, server: _Server, connects: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = server.server_address[1]
    resolver(monkeypatch, {"pinned.example": ["127.0.0.1"]})
    engine = load(tmp_path, private=True)
    result = engine.call("web_extract", {"urls": [f"http://pinned.example:{port}/page?q=1"]})
    assert "INTERNAL-SECRET-PAGE" in result.output, result.output
    assert server.requests == [{"path": "/page?q=1", "host": f"pinned.example:{port}"}]
    assert connects == [("127.0.0.1", port)]
    engine.close()


def test_https_sends_the_name_as_sni_and_checks_the_certificate_for_it(
    tmp_path: Path, connects: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pinned.example")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("pinned.example")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    names: list[str | None] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    context.sni_callback = lambda sock, server_name, ctx: names.append(server_name)  # type: ignore[assignment,misc,func-returns-value]
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))  # the engine trusts this certificate only
    for server in _serve(context):
        port = server.server_address[1]
        resolver(monkeypatch, {"pinned.example": ["127.0.0.1"], "other.example": ["127.0.0.1"]})
        engine = load(tmp_path, private=True)
        result = engine.call("web_extract", {"urls": [f"https://pinned.example:{port}/"]})
        assert "INTERNAL-SECRET-PAGE" in result.output, result.output
        assert names == ["pinned.example"]
        assert server.requests == [{"path": "/", "host": f"pinned.example:{port}"}]
        # A name the certificate does not cover fails verification on the same address.
        wrong = engine.call("web_extract", {"urls": [f"https://other.example:{port}/"]})
        assert wrong.error is not None and "INTERNAL-SECRET" not in wrong.output
        assert len(server.requests) == 1
        engine.close()
