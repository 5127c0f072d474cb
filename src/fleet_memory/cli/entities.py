"""``entities list|show|rename|merge|delete``: entity resolution, inspected and corrected."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from .common import AGENT, JSON, console, memory_from, print_json

app = typer.Typer(help="People, organisations and places the agent remembers.", no_args_is_help=True)


def _table(entities) -> Table:  # noqa: ANN001 - records from the facade
    table = Table("name", "label", "mentions", "aliases", "last seen", "id")
    for e in entities:
        table.add_row(e.name, e.label, str(e.mention_count), ", ".join(e.aliases),
                      e.last_seen.date().isoformat() if e.last_seen else "", str(e.id))
    return table


@app.command("list")
def list_(ctx: typer.Context, agent: str = AGENT, limit: int = typer.Option(100, help="At most this many."),
          offset: int = typer.Option(0, help="Skip this many (for the next page)."),
          label: Optional[str] = typer.Option(None, help="Only this NER label, e.g. PERSON."),
          as_json: bool = JSON) -> None:
    """Entities with their mention counts, most mentioned first."""
    with memory_from(ctx) as memory:
        entities = memory.list_entities(agent, limit=limit, offset=offset, label=label)
    if as_json:
        return print_json(entities)
    console().print(_table(entities))


@app.command("show")
def show(ctx: typer.Context, entity: str = typer.Argument(..., help="Name, alias or id."), agent: str = AGENT,
         limit: int = typer.Option(20, help="At most this many units."), as_json: bool = JSON) -> None:
    """One entity and the memories that mention it."""
    with memory_from(ctx) as memory:
        detail = memory.get_entity(agent, entity, unit_limit=limit)
    if as_json:
        return print_json({"entity": detail.entity, "units": detail.units})
    out = console()
    out.print(_table([detail.entity]))
    for unit in detail.units:
        out.print(f"  {unit.event_date.date()}  {unit.text}")


@app.command("rename")
def rename(ctx: typer.Context, entity: str = typer.Argument(..., help="Name, alias or id."),
           new_name: str = typer.Argument(..., help="The new canonical name."), agent: str = AGENT,
           as_json: bool = JSON) -> None:
    """Give an entity a new canonical name (the old one becomes an alias)."""
    with memory_from(ctx) as memory:
        renamed = memory.rename_entity(agent, entity, new_name)
    if as_json:
        return print_json(renamed)
    console().print(f"renamed to {renamed.name} (aliases: {', '.join(renamed.aliases)})")


@app.command("merge")
def merge(ctx: typer.Context, keep: str = typer.Argument(..., help="The entity that stays."),
          drop: str = typer.Argument(..., help="The entity folded into it."), agent: str = AGENT,
          as_json: bool = JSON) -> None:
    """Merge DROP into KEEP: mentions move, names become aliases, nothing is lost."""
    with memory_from(ctx) as memory:
        merged = memory.merge_entities(agent, keep, drop)
    if as_json:
        return print_json(merged)
    console().print(f"merged into {merged.name}: {merged.mention_count} mentions (aliases: {', '.join(merged.aliases)})")


@app.command("delete")
def delete(ctx: typer.Context, entity: str = typer.Argument(..., help="Name, alias or id."), agent: str = AGENT) -> None:
    """Remove an entity and its mentions (the memories stay)."""
    with memory_from(ctx) as memory:
        memory.delete_entity(agent, entity)
    console().print(f"deleted entity {entity}")
