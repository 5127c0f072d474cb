"""Command groups are registered here; each lives in its own module."""

from __future__ import annotations

import typer

from . import demo as demo_cmd

app = typer.Typer(help="fleet-memory: long-term memory for AI agents.", no_args_is_help=True, add_completion=False)
app.command("demo")(demo_cmd.demo)


@app.callback()
def _root() -> None:
    """Long-term memory for AI agents on PostgreSQL + pgvector."""


def main() -> None:
    app()
