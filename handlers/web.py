"""web_search (Tavily) and web_extract (fetch and reduce a page to text)."""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
import re
import socket
import ssl
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from typing import Any

from engine.dispatch.context import CallContext, ToolFailure

_USER_AGENT = "hermes-engine/0.1 (+web_extract)"
# Ranges `is_global` lets through that no fetch should reach: the shared address space
# (carrier NAT, 100.100.100.200 metadata) and the deprecated 6to4 relay anycast.
_Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_NEVER = (ipaddress.ip_network("100.64.0.0/10"), ipaddress.ip_network("192.88.99.0/24"))
# NAT64 prefixes (well-known and local-use): the last 32 bits are the IPv4 address reached.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_SKIP_TAGS = {"script", "style", "noscript", "template", "svg", "head", "iframe"}
_BLOCK_TAGS = {
    "p",
    "div",
    "br",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "header",
    "footer",
    "pre",
    "blockquote",
    "table",
    "ul",
    "ol",
    "hr",
}


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in _SKIP_TAGS:
            self._skip += 1
        if tag == "title":
            self._in_title = True
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")
        if tag in {"h1", "h2", "h3"}:
            self.parts.append("#" * int(tag[1]) + " ")
        if tag == "li":
            self.parts.append("- ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS and self._skip:
            self._skip -= 1
        if tag == "title":
            self._in_title = False
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return parser.title.strip(), text


def _unwrap(
    address: _Address,
) -> list[_Address]:
    """The address and every IPv4 address it carries (IPv4-mapped, 6to4, NAT64, Teredo)."""
    out: list[_Address] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            out.append(address.ipv4_mapped)
        if address.sixtofour is not None:
            out.append(address.sixtofour)
        if address.teredo is not None:
            out.extend(address.teredo)
        if any(address in net for net in _NAT64):
            out.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return out


def _refusal(address: _Address) -> str | None:
    """Why ``address`` must not be fetched from (None: a public address)."""
    for carried in _unwrap(address):
        if any(carried in net for net in _NEVER):
            return f"{carried} is in a special-purpose range"
        if not carried.is_global:
            return f"{carried} is not a public address"
    return None


def _addresses(host: str, port: int, url: str, allow_private: bool) -> list[str]:
    """The addresses ``host`` resolves to, every one checked; the connection uses these only.

    Raises:
        ToolFailure: the name does not resolve, or an address is private, local or special.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as exc:
        raise ToolFailure(f"cannot resolve {host!r}: {getattr(exc, 'strerror', None) or exc}") from None
    found: list[str] = []
    for info in infos:
        text = str(info[4][0]).split("%", 1)[0]
        if text in found:
            continue
        if not allow_private:
            reason = _refusal(ipaddress.ip_address(text))
            if reason is not None:
                raise ToolFailure(
                    f"refusing to fetch {url!r}: {host} is a private or local address ({reason}; "
                    "web.allow_private_networks allows it)",
                    recoverable=False,
                )
        found.append(text)
    if not found:
        raise ToolFailure(f"cannot resolve {host!r}: no addresses")
    return found


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to the address that was checked; the Host header keeps the name."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """Connects to the checked address; SNI and the certificate check use the name."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address
        self._tls = ssl.create_default_context()

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        try:
            self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


_MAX_REDIRECTS = 5


def _fetch(url: str, timeout: float, max_bytes: int, allow_private: bool) -> tuple[str, bytes, str]:
    """GET ``url`` (following up to five redirects), each hop pinned to the addresses it checked.

    Raises:
        ToolFailure: a refused address, a network error, an HTTP error or too many redirects.
    """
    current = url
    for _ in range(_MAX_REDIRECTS + 1):
        parsed = urllib.parse.urlsplit(current)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ToolFailure(f"only http and https URLs can be fetched, not {current!r}")
        try:
            port = parsed.port or (443 if parsed.scheme == "https" else 80)
        except ValueError:
            raise ToolFailure(f"invalid port in {current!r}") from None
        host = parsed.hostname
        addresses = _addresses(host, port, current, allow_private)
        target = urllib.parse.urlunsplit(("", "", parsed.path or "/", parsed.query, ""))
        response, body = _get(parsed.scheme, host, port, addresses, target, timeout, max_bytes, current)
        if response.status in (301, 302, 303, 307, 308) and response.getheader("Location"):
            current = urllib.parse.urljoin(current, response.getheader("Location", ""))
            continue
        if response.status >= 400:
            raise ToolFailure(f"{url}: HTTP {response.status} {response.reason}")
        return current, body, response.getheader("Content-Type", "") or ""
    raise ToolFailure(f"{url}: more than {_MAX_REDIRECTS} redirects")


def _get(
    scheme: str, host: str, port: int, addresses: list[str], target: str, timeout: float, max_bytes: int, url: str
) -> tuple[http.client.HTTPResponse, bytes]:
    last: BaseException | None = None
    for address in addresses:
        kind = _PinnedHTTPS if scheme == "https" else _PinnedHTTP
        connection = kind(host, port, address, timeout)
        try:
            connection.request("GET", target, headers={"User-Agent": _USER_AGENT, "Accept": "text/html,text/plain,*/*"})
            response = connection.getresponse()
            body = response.read(max_bytes + 1)
            return response, body
        except (OSError, http.client.HTTPException) as exc:
            last = exc
        finally:
            connection.close()
    reason = getattr(last, "reason", None) or last
    raise ToolFailure(f"{url}: {reason}")


def web_extract(urls: list[str], ctx: CallContext, max_chars: int = 20000) -> str:
    settings = ctx.config["web"]
    pages: list[str] = []
    for url in urls:
        try:
            final_url, body, content_type = _fetch(
                url, float(settings["timeout"]), int(settings["max_bytes"]), bool(settings["allow_private_networks"])
            )
        except ToolFailure as exc:
            if len(urls) == 1:
                raise
            pages.append(f"## {url}\nerror: {exc.message}")
            continue
        truncated_bytes = len(body) > int(settings["max_bytes"])
        charset = re.search(r"charset=([\w-]+)", content_type)
        text = body.decode(charset.group(1) if charset else "utf-8", errors="replace")
        title = ""
        if "html" in content_type or text.lstrip()[:15].lower().startswith(("<!doctype", "<html")):
            title, text = html_to_text(text)
        elif not content_type.startswith(("text/", "application/json", "application/xml")) and content_type:
            pages.append(f"## {final_url}\n(not text: {content_type}, {len(body)} bytes)")
            continue
        note = ""
        if len(text) > max_chars:
            note = f"\n[cut at {max_chars} of {len(text)} characters]"
            text = text[:max_chars]
        elif truncated_bytes:
            note = "\n[page larger than the download limit; cut]"
        pages.append(f"# {title or final_url}\n{final_url}\n\n{text}{note}")
    return "\n\n".join(pages)


def web_search(query: str, ctx: CallContext, limit: int = 5) -> dict[str, Any]:
    key = os.environ.get("TAVILY_API_KEY", "")
    if not key:
        raise ToolFailure("TAVILY_API_KEY is not set", recoverable=False)
    base = os.environ.get("TAVILY_BASE_URL", "https://api.tavily.com").rstrip("/")
    payload = json.dumps({"api_key": key, "query": query, "max_results": limit}).encode()
    request = urllib.request.Request(
        f"{base}/search",
        data=payload,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": _USER_AGENT},
    )
    timeout = float(ctx.config.get("web", "timeout"))
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.loads(response.read(int(ctx.config.get("web", "max_bytes"))))
    except urllib.error.HTTPError as exc:
        exc.close()
        raise ToolFailure(f"search provider answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
        raise ToolFailure(f"search provider unreachable or invalid answer: {getattr(exc, 'reason', exc)}") from None
    results = [
        {"title": r.get("title", ""), "url": r.get("url", ""), "snippet": (r.get("content") or "")[:500]}
        for r in (data.get("results") or [])[:limit]
    ]
    return {"query": query, "results": results}
