"""``serve`` (REST + MCP over HTTP, the memory browser at /ui), ``ui`` (that browser on this
machine's store, for one user on localhost) and ``mcp`` (MCP over stdio)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import ConfigurationError
from .common import open_memory, state


def serve(ctx: typer.Context,
          host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every interface)."),
          port: int = typer.Option(8080, help="Port to listen on."),
          no_auth: bool = typer.Option(False, "--no-auth", help="No API keys; only allowed on 127.0.0.1."),
          max_body_mb: float = typer.Option(16.0, help="Larger request bodies get 413."),
          shutdown_timeout: float = typer.Option(60.0, min=0, help="On SIGTERM, seconds the requests in flight "
                                                 "may run to their answer before they are cancelled.")) -> None:
    """Run the REST server (OpenAPI at /docs) with the MCP endpoint at /mcp and the memory browser at /ui."""
    if no_auth and host != "127.0.0.1":
        raise ConfigurationError(f"--no-auth is only allowed with --host 127.0.0.1 (got {host!r})")
    _run_server(ctx, host=host, port=port, auth=not no_auth, max_body_mb=max_body_mb,
                shutdown_timeout=shutdown_timeout)


def ui(ctx: typer.Context, port: int = typer.Option(8765, help="Port to listen on (127.0.0.1 only)."),
       no_browser: bool = typer.Option(False, "--no-browser",
                                       help="Print the address; do not open a browser.")) -> None:
    """Open the memory browser on this machine's store: a server on 127.0.0.1 for one user, without
    API keys (like serve --no-auth), at http://127.0.0.1:PORT/ui/. Stop it with Ctrl-C."""
    url = f"http://127.0.0.1:{port}/ui/"
    typer.echo(f"fleet-memory: the memory browser is at {url}", err=True)
    _run_server(ctx, host="127.0.0.1", port=port, auth=False, max_body_mb=16.0, shutdown_timeout=5.0,
                open_url=None if no_browser else url)


def _run_server(ctx: typer.Context, *, host: str, port: int, auth: bool, max_body_mb: float,
                shutdown_timeout: float, open_url: str | None = None) -> None:
    """Listen, then serve the app on this process until SIGTERM or Ctrl-C; ``open_url`` is opened in
    the default browser once the port is bound (the request waits in the listen queue until the
    server accepts it)."""
    import signal
    import threading
    import webbrowser

    from ..extras import require

    require("server", "fleet-memory serve", "fastapi", "uvicorn", "mcp", "fastapi_offline")
    import uvicorn

    from ..rest.app import create_app
    from ..rest.serving import listen, server_config

    sock = listen(host, port)  # before the database opens or a model loads
    app = create_app(memory_factory=lambda: open_memory(ctx), auth=auth, max_body_bytes=int(max_body_mb * 2**20),
                     own_process=True)
    verbose = state(ctx).verbose
    typer.echo(f"fleet-memory: opening the database, then serving on http://{host}:{port} (API docs at /docs, "
               f"memory browser at /ui) while the models load (GET /health/ready says when they are in)"
               f"{'' if verbose else '; --verbose before serve logs each request'}", err=True)
    # This command owns the process. uvicorn shuts down on SIGTERM, then raises the signal again
    # with the handler it found: a Python one exits normally, so the embedded server's exit hook
    # runs (the default handler killed the process and left PostgreSQL running).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    if open_url:
        threading.Thread(target=webbrowser.open, args=(open_url,), daemon=True).start()
    config = server_config(app, host=host, port=port, verbose=verbose, shutdown_timeout_s=shutdown_timeout)
    uvicorn.Server(config).run(sockets=[sock])


def mcp(ctx: typer.Context, agent: Optional[str] = typer.Option(
        None, "--agent", "-a", envvar="FLEET_MEMORY_AGENT", help="Default agent for tools called without one."),
        print_config: bool = typer.Option(False, "--print-config", help="Print the client configuration for this "
                                          "machine (absolute command path, data directory) and exit.")) -> None:
    """Run the MCP server on stdio (for MCP clients such as Claude Desktop)."""
    if print_config:
        return typer.echo(json.dumps(client_config(agent), indent=2))
    from ..extras import require

    require("mcp", "fleet-memory mcp", "mcp")
    from ..mcp_server import build_server
    from ..providers import heap

    memory = open_memory(ctx)
    try:
        memory.warm_up()
        heap.settle()
        build_server(lambda: memory, default_agent=agent).run("stdio")
    finally:
        memory.close()


def client_config(agent: str | None) -> dict:
    """The ``mcpServers`` entry for desktop clients: this installation's command by absolute path
    (clients do not search the user's PATH) and where the data lives."""
    from ..config import Config

    command = Path(sys.argv[0]).resolve() if Path(sys.argv[0]).name == "fleet-memory" else None
    if command is None or not command.is_file():
        found = shutil.which("fleet-memory", path=str(Path(sys.executable).parent)) or shutil.which("fleet-memory")
        command = Path(found).resolve() if found else Path(sys.executable).parent / "fleet-memory"
    config = Config.from_env()
    env = {"FLEET_MEMORY_HOME": str(config.data_dir)}
    if config.database_url:
        env["FLEET_MEMORY_DATABASE_URL"] = config.database_url
    args = ["mcp"] + (["--agent", agent] if agent else [])
    return {"mcpServers": {"fleet-memory": {"command": str(command), "args": args, "env": env}}}
