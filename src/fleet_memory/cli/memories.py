"""``put``, ``search``, ``get``, ``list``, ``delete``: one facade call each."""

from __future__ import annotations

import sys
from typing import Optional

import typer
from rich.table import Table

from .common import AGENT, JSON, console, memory_from, print_json


def put(ctx: typer.Context, content: str = typer.Argument(..., help="Text to remember ('-' reads stdin)."),
        agent: str = AGENT, context: Optional[str] = typer.Option(None, help="Where / why it was said."),
        date: Optional[str] = typer.Option(None, "--date", help="Event date, ISO-8601 (naive = UTC)."),
        memory_type: str = typer.Option("episodic", "--type", help="episodic, semantic or procedural."),
        importance: Optional[float] = typer.Option(None, help="0–1; computed when not given."),
        tag: list[str] = typer.Option([], "--tag", help="A tag (repeatable)."),
        speaker: Optional[str] = typer.Option(None), user_id: Optional[str] = typer.Option(None),
        session_id: Optional[str] = typer.Option(None), source: Optional[str] = typer.Option(None),
        fmt: str = typer.Option("auto", "--format", help="auto, text, markdown or rst."),
        keep_code: bool = typer.Option(False, "--keep-code", help="Keep code blocks as units of their own."),
        as_json: bool = JSON) -> None:
    """Remember one piece of text."""
    text = sys.stdin.read() if content == "-" else content
    with memory_from(ctx) as memory:
        result = memory.put(agent, text, context=context, event_date=date, memory_type=memory_type,
                            importance=importance, tags=tag, speaker=speaker, user_id=user_id,
                            session_id=session_id, source=source, format=fmt, keep_code=keep_code)
    if as_json:
        return print_json(result)
    out = console()
    out.print(f"stored {len(result.units)} unit(s) in document {result.document_id}")
    for unit in result.units:
        out.print(f"  {unit.id}  {unit.text}")
    if result.skipped_reason:
        out.print(f"note: {result.skipped_reason}")


def search(ctx: typer.Context, query: str = typer.Argument(...), agent: str = AGENT,
           top_k: int = typer.Option(10, "--top-k", "-k"), budget: int = typer.Option(100, "--budget"),
           memory_type: list[str] = typer.Option([], "--type", help="Only these types (repeatable)."),
           min_importance: Optional[float] = typer.Option(None), since: Optional[str] = typer.Option(None),
           until: Optional[str] = typer.Option(None), tag: list[str] = typer.Option([], "--tag"),
           user_id: Optional[str] = typer.Option(None), session_id: Optional[str] = typer.Option(None),
           include_archived: bool = typer.Option(False), explain: bool = typer.Option(False, help="Show why."),
           reinforce: bool = typer.Option(False, help="Count this as an access (recency, frequency)."),
           as_json: bool = JSON) -> None:
    """Recall what the agent knows about QUERY (read-only unless --reinforce)."""
    with memory_from(ctx) as memory:
        hits = memory.search(agent, query, top_k=top_k, thinking_budget=budget, types=memory_type or None,
                             min_importance=min_importance, since=since, until=until, tags=tag or None,
                             user_id=user_id, session_id=session_id, include_archived=include_archived,
                             explain=explain, reinforce=reinforce)
    if as_json:
        return print_json(hits)
    table = Table(title=f"{query!r} — {len(hits)} result(s)")
    for column in ("#", "memory", "type", "date", "weight"):
        table.add_column(column, justify="right" if column in ("#", "weight") else "left")
    for rank, hit in enumerate(hits, 1):
        table.add_row(str(rank), hit.text, hit.memory_type.value, hit.event_date.date().isoformat(), f"{hit.weight:.3f}")
    out = console()
    out.print(table)
    if explain:
        for rank, hit in enumerate(hits, 1):
            out.print(f"#{rank} {hit.id}: {hit.explanation}")


def get(ctx: typer.Context, unit_id: str, agent: str = AGENT, as_json: bool = JSON) -> None:
    """Show one memory unit."""
    with memory_from(ctx) as memory:
        unit = memory.get(agent, unit_id)
    if as_json:
        return print_json(unit)
    for key, value in unit.to_dict().items():
        console().print(f"{key:>18}: {value}")


def list_units(ctx: typer.Context, agent: str = AGENT, limit: int = typer.Option(50), offset: int = typer.Option(0),
               include_archived: bool = typer.Option(False), as_json: bool = JSON) -> None:
    """List memory units, oldest first."""
    with memory_from(ctx) as memory:
        page = memory.list_units(agent, limit=limit, offset=offset, include_archived=include_archived)
    if as_json:
        return print_json({"units": page.units, "next_offset": page.next_offset})
    for unit in page.units:
        console().print(f"{unit.id}  {unit.event_date.date()}  {unit.memory_type.value:<10} {unit.text}")
    if page.next_offset is not None:
        console().print(f"… more with --offset {page.next_offset}")


def delete(ctx: typer.Context, unit_id: str, agent: str = AGENT) -> None:
    """Forget one memory unit."""
    with memory_from(ctx) as memory:
        memory.delete(agent, unit_id)
    console().print(f"deleted {unit_id}")


def sources(ctx: typer.Context, unit_id: str, agent: str = AGENT, as_json: bool = JSON) -> None:
    """The memories a consolidated unit was made from (provenance)."""
    with memory_from(ctx) as memory:
        units = memory.sources(agent, unit_id)
    if as_json:
        return print_json(units)
    for unit in units:
        console().print(f"{unit.id}  {unit.event_date.date()}  {unit.text}")


def stats(ctx: typer.Context, agent: str = AGENT, as_json: bool = JSON) -> None:
    """How much one agent remembers: documents, units (by type), archived, entities, links."""
    with memory_from(ctx) as memory:
        numbers = memory.stats(agent)
    if as_json:
        return print_json(numbers)
    console().print(f"{numbers.documents} documents, {numbers.units} units {dict(numbers.units_by_type)}, "
                    f"{numbers.archived_units} archived, {numbers.entities} entities, {numbers.links} links")
