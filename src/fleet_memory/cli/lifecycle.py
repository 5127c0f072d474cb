"""``maintain``, ``restore``, ``consolidate``, ``context``, ``conversation``: one facade call each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..errors import InvalidInputError
from .common import AGENT, JSON, UNIT_ID, console, memory_from, print_json


def maintain(ctx: typer.Context,
             agent: Optional[str] = typer.Option(None, "--agent", "-a", help="One agent (default: all)."),
             now: Optional[str] = typer.Option(None, help="Run as of this time (ISO-8601)."),
             as_json: bool = JSON) -> None:
    """Archive memories that faded below the archive threshold on the forgetting curve."""
    with memory_from(ctx) as memory:
        report = memory.maintain(agent, now=now)
    if as_json:
        return print_json(report)
    console().print(f"examined {report.examined}, archived {report.archived} {dict(report.archived_by_type)}")


def restore(ctx: typer.Context, unit_id: str = UNIT_ID, agent: str = AGENT, as_json: bool = JSON) -> None:
    """Bring an archived memory back into recall."""
    with memory_from(ctx) as memory:
        unit = memory.restore(agent, unit_id)
    if as_json:
        return print_json(unit)
    console().print(f"restored {unit.id}: {unit.text}")


def consolidate(ctx: typer.Context, agent: str = AGENT,
                now: Optional[str] = typer.Option(None, help="Run as of this time (ISO-8601)."),
                as_json: bool = JSON) -> None:
    """Turn clusters of similar important episodes into semantic knowledge."""
    with memory_from(ctx) as memory:
        report = memory.consolidate(agent, now=now)
    if as_json:
        return print_json(report)
    out = console()
    out.print(f"{report.candidates} candidates, {report.clusters} clusters, {len(report.created)} semantic "
              f"unit(s) created ({report.method})")
    for unit in report.created:
        out.print(f"  {unit.id}  {unit.text}  ← {len(unit.source_ids)} sources")


def context(ctx: typer.Context, message: str = typer.Argument(..., help="The message the prompt is for."),
            agent: str = AGENT, user_id: Optional[str] = typer.Option(None, help="Only this user's memories."),
            limit: int = typer.Option(10, help="At most this many memories."),
            min_importance: float = typer.Option(0.3, help="Only memories whose decayed importance is at least this."),
            max_chars: Optional[int] = typer.Option(None, help="Keep the whole prompt within this many characters."),
            as_json: bool = JSON) -> None:
    """Build the prompt context for MESSAGE from what the agent remembers."""
    with memory_from(ctx) as memory:
        text = memory.build_context(agent, message, user_id=user_id, limit=limit, min_importance=min_importance,
                                    max_chars=max_chars)
    if as_json:
        return print_json({"context": text})
    typer.echo(text)


def conversation(ctx: typer.Context, path: Path = typer.Argument(..., help="JSON list of {role, content, time?}."),
                 agent: str = AGENT, user_id: Optional[str] = typer.Option(None, help="Store them for this user."),
                 session_id: Optional[str] = typer.Option(None, help="Store them for this session."),
                 as_json: bool = JSON) -> None:
    """Extract typed memories from a finished conversation and store them."""
    try:
        turns = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInputError("path", f"cannot read a JSON conversation from {path}: {exc}") from None
    with memory_from(ctx) as memory:
        report = memory.process_conversation(agent, turns, user_id=user_id, session_id=session_id)
    if as_json:
        return print_json(report)
    out = console()
    out.print(f"{len(report.memories)} memories extracted ({report.method}), {len(report.unit_ids)} units stored")
    for m in report.memories:
        out.print(f"  [{m.memory_type.value}] {m.content}")
