"""Command groups are registered here; each lives in its own module. Every command is wrapped by
``common.guarded``: fleet-memory errors print one line and exit non-zero, never a traceback."""

from __future__ import annotations

import typer

from . import agents, db, demo, entities, graph, ingest, keys, lifecycle, memories, servers, transfer
from .common import CliState, guarded

app = typer.Typer(help="fleet-memory: long-term memory for AI agents.", no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False)

for name, command in (
    ("demo", demo.demo), ("put", memories.put), ("search", memories.search), ("get", memories.get),
    ("list", memories.list_units), ("delete", memories.delete),
    ("sources", memories.sources), ("update", memories.update), ("history", memories.history), ("stats", memories.stats), ("ingest", ingest.ingest),
    ("maintain", lifecycle.maintain), ("restore", lifecycle.restore), ("consolidate", lifecycle.consolidate),
    ("context", lifecycle.context), ("conversation", lifecycle.conversation), ("graph", graph.graph),
    ("forget-user", agents.forget_user), ("export", transfer.export), ("import", transfer.import_),
    ("serve", servers.serve), ("ui", servers.ui), ("mcp", servers.mcp),
):
    app.command(name)(guarded(command))

for name, group in (("entities", entities.app), ("agents", agents.app), ("db", db.app), ("keys", keys.app)):
    for info in group.registered_commands:
        info.callback = guarded(info.callback)
    app.add_typer(group, name=name)


@app.callback()
def _root(ctx: typer.Context, verbose: bool = typer.Option(
        False, "--verbose", "-v", help="Show log messages: model loading, the database, each server request.")) -> None:
    """Long-term memory for AI agents on PostgreSQL + pgvector."""
    if not isinstance(ctx.obj, CliState):
        ctx.obj = CliState(ctx.obj) if callable(ctx.obj) else CliState()
    ctx.obj.verbose = verbose
    if verbose:  # the command line owns its process, so it may set up logging
        import logging

        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def main() -> None:
    app()
