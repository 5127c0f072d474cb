"""``put``, ``search``, ``get``, ``list``, ``update``, ``history``, ``delete``: one facade call each."""

from __future__ import annotations

import sys
from typing import Optional

import typer
from ..errors import InvalidInputError
from .common import AGENT, JSON, UNIT_ID, console, memory_from, print_json
from .render import explanation_table, results_table, stats_table


def put(ctx: typer.Context, content: str = typer.Argument(..., help="Text to remember ('-' reads stdin)."),
        agent: str = AGENT, context: Optional[str] = typer.Option(None, help="Where / why it was said."),
        date: Optional[str] = typer.Option(None, "--date", help="Event date, ISO-8601 (naive = UTC)."),
        memory_type: str = typer.Option("episodic", "--type", help="episodic, semantic or procedural."),
        importance: Optional[float] = typer.Option(None, help="0–1; computed when not given."),
        tag: list[str] = typer.Option([], "--tag", help="A tag (repeatable)."),
        speaker: Optional[str] = typer.Option(None, help="Who said it (becomes a PERSON entity)."),
        user_id: Optional[str] = typer.Option(None, help="The user it is about (search --user-id, forget-user)."),
        session_id: Optional[str] = typer.Option(None, help="The session it came from."),
        source: Optional[str] = typer.Option(None, help="Where it came from (a file, a URL, a tool)."),
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


def search(ctx: typer.Context, query: str = typer.Argument(..., help="What to recall, in plain words."),
           agent: str = AGENT,
           top_k: int = typer.Option(10, "--top-k", "-k", help="How many results (1-1000)."),
           budget: int = typer.Option(100, "--budget", help="Thinking budget: at most this many memories explored "
                                      "by the walk over the memory graph (1-100000)."),
           preset: Optional[str] = typer.Option(None, help="Recall settings: balanced (default), fast, deep or "
                                                "vector (plain vector top-k)."),
           now: Optional[str] = typer.Option(None, help="Search as of this time (ISO-8601): recency and words "
                                             "such as 'yesterday' count from it."),
           memory_type: list[str] = typer.Option([], "--type", help="Only this type: episodic, semantic or "
                                                 "procedural (repeatable)."),
           min_importance: Optional[float] = typer.Option(None, help="Only memories whose importance, decayed "
                                                          "along the forgetting curve, is at least this (0-1)."),
           since: Optional[str] = typer.Option(None, help="Only memories of events at or after this time (ISO-8601)."),
           until: Optional[str] = typer.Option(None, help="Only memories of events at or before this time (ISO-8601)."),
           tag: list[str] = typer.Option([], "--tag", help="Only memories with this tag (repeatable: all of them)."),
           meta: list[str] = typer.Option([], "--meta", help="Only memories whose metadata KEY equals VALUE, as "
                                          "KEY=VALUE (repeatable: all of them)."),
           user_id: Optional[str] = typer.Option(None, help="Only memories stored with this user id."),
           session_id: Optional[str] = typer.Option(None, help="Only memories stored with this session id."),
           include_archived: bool = typer.Option(False, help="Also search memories archived by 'maintain'."),
           explain: bool = typer.Option(False, help="Show why each result came back: channels, links, score factors."),
           reinforce: bool = typer.Option(False, help="Count this as an access (recency, frequency)."),
           as_json: bool = JSON) -> None:
    """Recall what the agent knows about QUERY (read-only unless --reinforce)."""
    with memory_from(ctx) as memory:
        hits = memory.search(agent, query, top_k=top_k, thinking_budget=budget, types=memory_type or None,
                             min_importance=min_importance, since=since, until=until, tags=tag or None,
                             metadata=parse_pairs(meta, "--meta"), user_id=user_id, session_id=session_id,
                             include_archived=include_archived, explain=explain, reinforce=reinforce,
                             preset=preset, now=now)
        hint = None if hits else empty_agent_hint(memory, agent)
    if as_json:
        return print_json(hits)
    out = console()
    out.print(results_table(query, hits))
    if explain:
        for rank, hit in enumerate(hits, 1):
            out.print(explanation_table(rank, hit))
    if hint:
        console(stderr=True).print(hint)


def parse_pairs(pairs: list[str], option: str) -> dict[str, str] | None:
    """KEY=VALUE options → a mapping (values stay strings)."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InvalidInputError(option, f"expected KEY=VALUE, got {pair!r}")
        out[key] = value
    return out or None


def empty_agent_hint(memory, agent: str) -> str | None:  # noqa: ANN001 - the facade
    """A line for an agent with no memories at all (a mistyped name?), naming a few that exist."""
    if memory.stats(agent).units:
        return None
    known = [a.agent_id for a in memory.list_agents(limit=6)]
    listed = ", ".join(known[:5]) + (", …" if len(known) > 5 else "")
    return (f"hint: agent {agent!r} has no memories" + (f"; agents in this store: {listed}" if known
                                                        else "; this store has none yet"))


def get(ctx: typer.Context, unit_id: str = UNIT_ID, agent: str = AGENT, as_json: bool = JSON) -> None:
    """Show one memory unit."""
    with memory_from(ctx) as memory:
        unit = memory.get(agent, unit_id)
    if as_json:
        return print_json(unit)
    for key, value in unit.to_dict().items():
        console().print(f"{key:>18}: {value}")


def list_units(ctx: typer.Context, agent: str = AGENT, limit: int = typer.Option(50, help="At most this many."),
               offset: int = typer.Option(0, help="Skip this many (for the next page)."),
               include_archived: bool = typer.Option(False, help="Also list memories archived by 'maintain'."),
               as_json: bool = JSON) -> None:
    """List memory units, oldest first."""
    with memory_from(ctx) as memory:
        page = memory.list_units(agent, limit=limit, offset=offset, include_archived=include_archived)
    if as_json:
        return print_json({"units": page.units, "next_offset": page.next_offset})
    for unit in page.units:
        console().print(f"{unit.id}  {unit.event_date.date()}  {unit.memory_type.value:<10} {unit.text}")
    if page.next_offset is not None:
        console().print(f"… more with --offset {page.next_offset}")


def update(ctx: typer.Context, unit_id: str = UNIT_ID, content: str = typer.Argument(..., help="The new version ('-': stdin)."),
           agent: str = AGENT, date: Optional[str] = typer.Option(None, "--date", help="When it changed (default now)."),
           as_json: bool = JSON) -> None:
    """Store a new version of a memory; it supersedes the old one (kept in its history)."""
    text = sys.stdin.read() if content == "-" else content
    options = {"event_date": date} if date else {}
    with memory_from(ctx) as memory:
        result = memory.update(agent, unit_id, text, **options)
    if as_json:
        return print_json(result)
    out = console()
    for unit in result.units:
        out.print(f"  {unit.id}  {unit.text}")
    out.print(f"supersedes {unit_id}" if result.units else f"note: {result.skipped_reason}")


def history(ctx: typer.Context, unit_id: str = UNIT_ID, agent: str = AGENT, as_json: bool = JSON) -> None:
    """Every version of a memory, oldest first, with the date each stopped being current."""
    with memory_from(ctx) as memory:
        units = memory.history(agent, unit_id)
    if as_json:
        return print_json(units)
    for unit in units:
        until = f" → {unit.valid_until.date()}" if unit.valid_until else " (current)"
        console().print(f"{unit.id}  {unit.event_date.date()}{until}  {unit.text}")


def delete(ctx: typer.Context, unit_id: str = UNIT_ID, agent: str = AGENT) -> None:
    """Forget one memory unit."""
    with memory_from(ctx) as memory:
        memory.delete(agent, unit_id)
    console().print(f"deleted {unit_id}")


def sources(ctx: typer.Context, unit_id: str = UNIT_ID, agent: str = AGENT, as_json: bool = JSON) -> None:
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
        hint = None if numbers.units else empty_agent_hint(memory, agent)
    if as_json:
        return print_json(numbers)
    console().print(stats_table(numbers))
    if hint:
        console(stderr=True).print(hint)
