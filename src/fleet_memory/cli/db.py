"""``db status``: where the data is, the schema version, sizes."""

from __future__ import annotations

import typer
from rich.table import Table

from .common import JSON, console, memory_from, print_json

app = typer.Typer(help="The database: where it is and how big.", no_args_is_help=True)


@app.command("status")
def status(ctx: typer.Context, as_json: bool = JSON) -> None:
    """Where the data is, schema version, database and table sizes."""
    with memory_from(ctx) as memory:
        info = memory.database_status()
    if as_json:
        return print_json(info)
    out = console()
    where = f"embedded PostgreSQL in {info['home']}" if info["embedded"] else "configured database"
    out.print(f"{where}: {info['url']}")
    out.print(f"PostgreSQL {info['server_version']} · schema version {info['schema_version']} · "
              f"{info['size_bytes'] / 1e6:.1f} MB · {info['agents']} agent(s) · {info['units']} unit(s)")
    table = Table("table", "rows", "size")
    for t in info["tables"]:
        table.add_row(t["name"], f"{t['rows']:,}", f"{t['size_bytes'] / 1e3:.0f} kB")
    out.print(table)
