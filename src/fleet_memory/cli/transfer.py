"""``export`` / ``import``: an agent's whole memory to and from a JSON Lines file, losslessly."""

from __future__ import annotations

from pathlib import Path

import typer

from ..errors import InvalidInputError
from .common import AGENT, JSON, console, memory_from, print_json


def export(ctx: typer.Context, output: Path = typer.Argument(..., help="JSONL file to write ('-' for stdout)."),
           agent: str = AGENT, as_json: bool = JSON) -> None:
    """Export every document, unit (with embedding), entity, mention and link of one agent."""
    import sys

    with memory_from(ctx) as memory:
        if str(output) == "-":
            report = memory.export_agent(agent, sys.stdout)
            return
        report = _export_to_file(memory, agent, output)
    if as_json:
        return print_json(report)
    rows = ", ".join(f"{n} {t}" for t, n in report.rows.items())
    console().print(f"exported agent {agent!r} to {output}: {rows}")


def _export_to_file(memory, agent: str, output: Path):
    """Write into a temporary file beside ``output`` and rename it over ``output`` only when the
    export succeeded: a failed export leaves an existing file as it was."""
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".tmp", dir=output.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            report = memory.export_agent(agent, out)
        os.replace(tmp, output)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return report


def import_(ctx: typer.Context, source: Path = typer.Argument(..., help="A file written by 'fleet-memory export'."),
            agent: str = AGENT, as_json: bool = JSON) -> None:
    """Import an export into AGENT (which must have no memories yet)."""
    if not source.is_file():
        raise InvalidInputError("source", f"{source} is not a readable file")
    with memory_from(ctx) as memory, source.open(encoding="utf-8", newline="\n") as lines:
        report = memory.import_agent(agent, lines)
    if as_json:
        return print_json(report)
    rows = ", ".join(f"{n} {t}" for t, n in report.rows.items())
    console().print(f"imported into agent {agent!r}: {rows}")
