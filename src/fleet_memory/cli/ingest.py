"""``ingest PATH...``: files and conversations, with a progress bar (items, units/s, ETA);
re-running skips what is already stored."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.text import Text

from ..ingest.files import read_items
from .common import AGENT, JSON, memory_from, print_json


class UnitsPerSecond(ProgressColumn):
    def render(self, task) -> Text:  # noqa: ANN001 - rich's Task
        elapsed = task.elapsed or 0.0
        rate = task.fields.get("units", 0) / elapsed if elapsed > 0 else 0.0
        return Text(f"{task.fields.get('units', 0)} units · {rate:,.1f} units/s")


def ingest(ctx: typer.Context, paths: list[Path] = typer.Argument(..., help="Text, Markdown, JSON or JSONL files."),
           agent: str = AGENT, batch_size: int = typer.Option(64, help="Items per transaction."),
           as_json: bool = JSON) -> None:
    """Ingest files (text, Markdown, JSON/JSONL conversations incl. LoCoMo). Resumable."""
    items = [item for path in paths for item in read_items(path)]
    totals = {"items": 0, "skipped": 0, "units": 0}
    columns = (TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), UnitsPerSecond(), TextColumn("ETA"),
               TimeRemainingColumn())
    with memory_from(ctx) as memory, Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task("ingest", total=len(items), units=0)
        for step in memory.ingest(agent, items, batch_size=batch_size):
            for key in totals:
                totals[key] += getattr(step, key)
            progress.update(task, advance=step.items, units=totals["units"])
    if as_json:
        return print_json({"agent_id": agent, "files": [str(p) for p in paths], **totals})
    Console().print(f"{totals['items']} items from {len(paths)} file(s): {totals['units']} units stored, "
                    f"{totals['skipped']} items already stored (skipped)")
