"""The peer of `hermes-engine serve` in bench_mcp: the same trivial tool on the SDK's own
high-level server (MCPServer), over stdio."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("peer")


@server.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


if __name__ == "__main__":
    server.run("stdio")
