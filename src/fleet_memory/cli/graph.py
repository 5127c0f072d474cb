"""``graph``: the memory graph of a neighbourhood as an offline HTML page, a PNG, or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .common import AGENT, JSON, console, memory_from, print_json


def graph(ctx: typer.Context, agent: str = AGENT,
          entity: Optional[str] = typer.Option(None, help="Only units mentioning this entity (name or id)."),
          query: Optional[str] = typer.Option(None, help="The results of this search, with its path highlighted."),
          since: Optional[str] = typer.Option(None, help="Only memories of events at or after this time (ISO-8601)."),
          until: Optional[str] = typer.Option(None, help="Only memories of events at or before this time (ISO-8601)."),
          limit: int = typer.Option(200, help="At most this many nodes."),
          html: Optional[Path] = typer.Option(None, help="Write the interactive page here."),
          png: Optional[Path] = typer.Option(None, help="Write a static picture here."),
          as_json: bool = JSON) -> None:
    """Draw the memory graph (temporal cyan dashed, semantic pink, entity gold)."""
    from ..viz import render_html, render_png

    if html is None and png is None and not as_json:
        html = Path("memory_graph_interactive.html")
    with memory_from(ctx) as memory:
        data = memory.graph(agent, entity=entity, query=query, since=since, until=until, limit=limit)
    say = console(stderr=as_json)  # keep stdout pure JSON with --json
    if html is not None:
        html.write_text(render_html(data), "utf-8")
        say.print(f"wrote {html.resolve()}")
    if png is not None:
        render_png(data, png)
        say.print(f"wrote {png.resolve()}")
    if as_json:
        print_json(data)
