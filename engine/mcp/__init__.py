"""MCP both ways: ``serve`` offers the engine's tools to any MCP client; ``McpServer``
manifests bring other MCP servers' tools into the engine.

One concern per module: ``server`` (the protocol side of ``serve``), ``transports``
(stdio, streamable HTTP and its guard), ``approval`` (an ask verdict as an MCP question),
``content`` (results to and from MCP content), ``grants`` (where session approvals live),
``manifest`` (McpServer manifests: static checks, tool names), ``tools`` (a server's
listing → checked specs), ``connection`` (one server's connection task), ``client`` (the
engine's set of connections, a tool source for each load).
"""
