"""``fleet-memory demo``: the seed's demo on the embedded (or configured) database."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from ..config import Config
from ..demo import DEMO_AGENT, DEMO_QUERY, demo_memories


def demo() -> None:
    """Store the seed's sample memories, search "What does Alice do?" and show the ranked results."""
    from ..memory import FleetMemory

    console = Console()
    config = Config.from_env()
    with console.status("Opening the memory store (first run loads the embedding model)…"):
        memory = FleetMemory(config)
    with memory:
        memory.delete_agent(DEMO_AGENT)
        items = demo_memories(memory.clock.now())
        results = memory.put_many(items, agent_id=DEMO_AGENT)
        console.print(f"Stored {sum(len(r.units) for r in results)} memory units in {memory.db.display_url}")
        hits = memory.search(DEMO_AGENT, DEMO_QUERY, thinking_budget=50, top_k=10, reinforce=False)
        table = Table(title=f"Search: {DEMO_QUERY!r}")
        table.add_column("#", justify="right")
        table.add_column("memory")
        table.add_column("weight", justify="right")
        for rank, hit in enumerate(hits, 1):
            table.add_row(str(rank), hit["text"], f"{hit['weight']:.3f}")
        console.print(table)
    raise typer.Exit(0)
