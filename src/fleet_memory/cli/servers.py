"""``serve`` (REST + MCP over HTTP) and ``mcp`` (MCP over stdio)."""

from __future__ import annotations

from typing import Optional

import typer

from ..errors import ConfigurationError
from .common import open_memory, state


def serve(ctx: typer.Context, host: str = typer.Option("127.0.0.1"), port: int = typer.Option(8080),
          no_auth: bool = typer.Option(False, "--no-auth", help="No API keys; only allowed on 127.0.0.1."),
          max_body_mb: float = typer.Option(16.0, help="Larger request bodies get 413.")) -> None:
    """Run the REST server (OpenAPI at /docs) with the MCP endpoint at /mcp."""
    import signal
    import sys

    import uvicorn

    from ..rest.app import create_app

    if no_auth and host != "127.0.0.1":
        raise ConfigurationError(f"--no-auth is only allowed with --host 127.0.0.1 (got {host!r})")
    app = create_app(memory_factory=state(ctx).factory, auth=not no_auth, max_body_bytes=int(max_body_mb * 2**20),
                     own_process=True)
    # This command owns the process. uvicorn shuts down on SIGTERM, then raises the signal again
    # with the handler it found: a Python one exits normally, so the embedded server's exit hook
    # runs (the default handler killed the process and left PostgreSQL running).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    uvicorn.run(app, host=host, port=port, log_level="info", timeout_graceful_shutdown=5)


def mcp(ctx: typer.Context, agent: Optional[str] = typer.Option(
        None, "--agent", "-a", envvar="FLEET_MEMORY_AGENT", help="Default agent for tools called without one.")) -> None:
    """Run the MCP server on stdio (for MCP clients such as Claude Desktop)."""
    from ..mcp_server import build_server
    from ..providers import heap

    memory = open_memory(ctx)
    try:
        memory.warm_up()
        heap.settle()
        build_server(lambda: memory, default_agent=agent).run("stdio")
    finally:
        memory.close()
