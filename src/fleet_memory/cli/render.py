"""Readable tables for the command line's non-JSON output: search results with their
explanations, an agent's statistics, the agents of the store. ``--json`` never goes through here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.table import Table

from ..model import plain

__all__ = ["agents_table", "explanation_table", "results_table", "stats_table"]


def results_table(query: str, hits: Sequence[Any]) -> Table:
    table = Table(title=f"{query!r} — {len(hits)} result(s)")
    for column in ("#", "memory", "type", "date", "weight"):
        table.add_column(column, justify="right" if column in ("#", "weight") else "left")
    for rank, hit in enumerate(hits, 1):
        table.add_row(str(rank), hit.text, hit.memory_type.value, hit.event_date.date().isoformat(),
                      f"{hit.weight:.3f}")
    return table


def _number(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def explanation_table(rank: int, hit: Any) -> Group | Table:
    """Why one result came back: the channels that found it, the links that reached it and every
    score factor."""
    why = plain(hit.explanation) or {}
    table = Table(title=f"#{rank} {hit.text}", title_justify="left", show_header=False, box=None, padding=(0, 2))
    table.add_column("what", style="bold")
    table.add_column("value")
    table.add_row("found by", ", ".join(why.get("channels") or []) or "the walk (linked from a result)")
    table.add_row("hops", str(why.get("hops", 0)))
    path = why.get("path") or []
    if len(path) > 1:
        steps = [str(p.get("unit_id", ""))[:8] + (f" —{p['kind']} {p['weight']:.2f}→" if p.get("kind") else "")
                 for p in path]
        table.add_row("path", " ".join(steps))
    for name, value in (why.get("factors") or {}).items():
        table.add_row(name, _number(value))
    if why.get("time_window"):
        window = why["time_window"]
        table.add_row("time window", f"{window['phrase']!r}: {window['start']} … {window['end']}")
    table.add_row("preset", str(why.get("preset", "")))
    table.add_row("id", str(hit.id))
    return table


def stats_table(numbers: Any) -> Table:
    table = Table(title=f"agent {numbers.agent_id!r}", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("count", justify="right")
    table.add_row("documents", f"{numbers.documents:,}")
    table.add_row("units", f"{numbers.units:,}")
    for kind, count in sorted(numbers.units_by_type.items()):
        table.add_row(f"  {kind}", f"{count:,}")
    table.add_row("archived units", f"{numbers.archived_units:,}")
    table.add_row("entities", f"{numbers.entities:,}")
    table.add_row("links", f"{numbers.links:,}")
    return table


def agents_table(agents: Sequence[Any]) -> Table:
    table = Table("agent", "units", "documents", "last write")
    for a in agents:
        table.add_row(a.agent_id, f"{a.units:,}", f"{a.documents:,}",
                      a.last_write.isoformat(timespec="seconds") if a.last_write else "")
    return table
