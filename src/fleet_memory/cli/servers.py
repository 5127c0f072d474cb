"""``serve`` (REST + MCP over HTTP) and ``mcp`` (MCP over stdio)."""

from __future__ import annotations

from typing import Optional

import typer

from ..errors import ConfigurationError
from .common import state


def serve(ctx: typer.Context, host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every interface)."),
          port: int = typer.Option(8080, help="Port to listen on."),
          no_auth: bool = typer.Option(False, "--no-auth", help="No API keys; only allowed on 127.0.0.1."),
          max_body_mb: float = typer.Option(16.0, help="Larger request bodies get 413.")) -> None:
    """Run the REST server (OpenAPI at /docs) with the MCP endpoint at /mcp."""
    from ..extras import require

    require("server", "fleet-memory serve", "fastapi", "uvicorn", "mcp", "fastapi_offline")
    import uvicorn

    from ..rest.app import create_app

    if no_auth and host != "127.0.0.1":
        raise ConfigurationError(f"--no-auth is only allowed with --host 127.0.0.1 (got {host!r})")
    app = create_app(memory_factory=state(ctx).factory, auth=not no_auth, max_body_bytes=int(max_body_mb * 2**20))
    verbose = state(ctx).verbose
    typer.echo(f"fleet-memory: opening the database and loading the models, then serving on http://{host}:{port} "
               f"(API docs at /docs){'' if verbose else '; --verbose before serve logs each request'}", err=True)
    uvicorn.run(app, host=host, port=port, log_level="info" if verbose else "warning", access_log=verbose)


def mcp(ctx: typer.Context, agent: Optional[str] = typer.Option(
        None, "--agent", "-a", envvar="FLEET_MEMORY_AGENT", help="Default agent for tools called without one.")) -> None:
    """Run the MCP server on stdio (for MCP clients such as Claude Desktop)."""
    from ..mcp_server import build_server

    with_memory = state(ctx).factory
    memory = with_memory()
    try:
        build_server(lambda: memory, default_agent=agent).run("stdio")
    finally:
        memory.close()
