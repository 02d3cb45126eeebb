"""web_search (Tavily) and web_extract (fetch and reduce a page to text)."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from typing import Any

from engine.dispatch.context import CallContext, ToolFailure

_USER_AGENT = "hermes-engine/0.1 (+web_extract)"
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


def _check_host(url: str, allow_private: bool) -> None:
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ToolFailure(f"only http and https URLs can be fetched, not {url!r}")
    if allow_private:
        return
    try:
        infos = socket.getaddrinfo(parsed.hostname, parsed.port or 443, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise ToolFailure(f"cannot resolve {parsed.hostname!r}: {exc.strerror}") from None
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if (
            address.is_private
            or address.is_loopback
            or address.is_link_local
            or address.is_reserved
            or address.is_multicast
            or address.is_unspecified
        ):
            raise ToolFailure(
                f"refusing to fetch {url!r}: {parsed.hostname} is a private or local address ({address})",
                recoverable=False,
            )


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    def __init__(self, allow_private: bool) -> None:
        self.allow_private = allow_private

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        _check_host(newurl, self.allow_private)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _fetch(url: str, timeout: float, max_bytes: int, allow_private: bool) -> tuple[str, bytes, str]:
    _check_host(url, allow_private)
    opener = urllib.request.build_opener(_CheckedRedirects(allow_private))
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT, "Accept": "text/html,text/plain,*/*"})
    try:
        with opener.open(request, timeout=timeout) as response:
            body = response.read(max_bytes + 1)
            content_type = response.headers.get("Content-Type", "")
            final_url = response.geturl()
    except urllib.error.HTTPError as exc:
        exc.close()
        raise ToolFailure(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ToolFailure(f"{url}: {reason}") from None
    return final_url, body, content_type


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
