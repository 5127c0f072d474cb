"""``fleet-memory demo``: clear earlier demo data, store the sample memories about Alice, Bob,
Google and Yosemite, search "What does Alice do?", show the entity resolution, and write
``memory_graph_interactive.html`` and ``memory_graph.png`` here."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from ..demo import DEMO_AGENT, DEMO_QUERY, demo_memories
from .common import console, memory_from

HTML_NAME = "memory_graph_interactive.html"
PNG_NAME = "memory_graph.png"


def demo(ctx: typer.Context,
         out_dir: Path = typer.Option(Path("."), "--out-dir", help="Where to write the two pictures.")) -> None:
    """Run the demo (memories about Alice, Bob, Google, Yosemite) and draw the memory graph."""
    from ..viz import render_html, render_png

    out = console()
    with out.status("Opening the memory store (the first run loads the embedding model)…"):
        with memory_from(ctx) as memory:
            removed = memory.delete_agent(DEMO_AGENT)
            results = memory.put_many(demo_memories(memory.clock.now()), agent_id=DEMO_AGENT)
            hits = memory.search(DEMO_AGENT, DEMO_QUERY, thinking_budget=50, top_k=10, reinforce=False)
            entities = memory.list_entities(DEMO_AGENT)
            graph = memory.graph(DEMO_AGENT, query=DEMO_QUERY, limit=200)
            where = memory.db.display_url
    out.print(f"Cleared {removed} earlier demo unit(s); stored {sum(len(r.units) for r in results)} memory units "
              f"for agent {DEMO_AGENT!r} in {where}")
    out.print(_results_table(hits))
    out.print(_entities_table(entities))
    out_dir.mkdir(parents=True, exist_ok=True)
    html_path, png_path = out_dir / HTML_NAME, out_dir / PNG_NAME
    html_path.write_text(render_html(graph, title=f"fleet-memory demo · {DEMO_QUERY}"), "utf-8")
    render_png(graph, png_path)
    out.print(f"Interactive graph: {html_path.resolve()}  (open it in a browser; works offline)")
    out.print(f"Static picture:    {png_path.resolve()}")


def _results_table(hits) -> Table:  # noqa: ANN001 - search results
    table = Table(title=f"Search: {DEMO_QUERY!r}")
    for column in ("#", "memory", "weight"):
        table.add_column(column, justify="left" if column == "memory" else "right")
    for rank, hit in enumerate(hits, 1):
        table.add_row(str(rank), hit["text"], f"{hit['weight']:.3f}")
    return table


def _entities_table(entities) -> Table:  # noqa: ANN001 - entity records
    table = Table(title="Entity resolution: every mention of one name is one entity")
    for column in ("entity", "label", "mentions", "aliases"):
        table.add_column(column)
    for entity in entities:
        table.add_row(entity.name, entity.label, str(entity.mention_count), ", ".join(entity.aliases))
    return table
