"""``db status``: where the data is, the schema version, sizes; ``db index-agents``: large agents' own
indexes (``FleetMemory.index_agents``); ``db check-distribution``: the statements that distribute
the schema by agent with Citus, or what keeps it from being distributable; ``db distribute``: run
them on a Citus coordinator."""

from __future__ import annotations

from typing import Optional

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


@app.command("index-agents")
def index_agents(ctx: typer.Context,
                 min_units: Optional[int] = typer.Option(None, help="Agents of at least this many units"
                                                         " (default: the library's boundary, 10,000)."),
                 as_json: bool = JSON) -> None:
    """Give large agents their own vector and full-text indexes (and drop those of deleted agents),
    so their recall does not slow down as the fleet grows. A maintenance job: builds run alongside
    writes."""
    with memory_from(ctx) as memory:
        done = memory.index_agents(min_units=min_units)
    if as_json:
        return print_json(done)
    console().print(f"built indexes for {len(done.built)} agent(s), dropped those of {len(done.dropped)}")


@app.command("check-distribution")
def check_distribution(ctx: typer.Context, as_json: bool = JSON) -> None:
    """Print the SQL that distributes the schema by agent_id with Citus (run it on the Citus
    coordinator); exit 1, naming each table or constraint, when the schema breaks the rule."""
    with memory_from(ctx) as memory:
        found = memory.distribution_check()
    if as_json:
        print_json(found)
    else:
        out = console()
        for line in found["violations"] or found["statements"]:
            out.print(line, markup=False, highlight=False, soft_wrap=True)
    if found["violations"]:
        raise typer.Exit(1)


@app.command("distribute")
def distribute(ctx: typer.Context, as_json: bool = JSON) -> None:
    """On a Citus coordinator (the configured database, with its workers registered): apply the
    migrations, then make the shared tables reference tables and distribute every agent table by
    agent_id, co-located. Safe to run again: only tables Citus does not hold yet are distributed
    (run it after an upgrade whose migration adds a table)."""
    from ..store.db import distribution

    with memory_from(ctx) as memory, memory.db.autocommit() as conn:
        done = distribution.distribute(conn)
    if as_json:
        return print_json({"distributed": done})
    console().print(f"distributed {len(done)} table(s)" + (f": {', '.join(done)}" if done else
                                                           " (all were already distributed)"))
