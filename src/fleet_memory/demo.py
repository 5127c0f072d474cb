"""The demo's data: memories about Alice, Bob, Google and Yosemite, on fixed dates relative to
"now", so that recency shows in the demo's search and temporal links in its graph."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["DEMO_AGENT", "DEMO_QUERY", "DemoMemory", "demo_memories"]

DEMO_AGENT = "demo_agent"
DEMO_QUERY = "What does Alice do?"


@dataclass(frozen=True, slots=True)
class DemoMemory:
    content: str
    days_ago: float
    context: str


_MEMORIES = (
    DemoMemory("Alice loves hiking in the mountains. She goes hiking every weekend in Yosemite.", 7, "Hobbies"),
    DemoMemory("Alice works at Google as a software engineer. She joined Google last year.", 3, "Career discussion"),
    DemoMemory("Alice is building a Python project for analysing trail maps.", 2, "Side projects"),
    DemoMemory("Bob works at Google too. He often joins Alice on hikes in Yosemite.", 1, "Friends"),
)


def demo_memories(now: datetime) -> list[dict]:
    """The demo's put items, dated relative to ``now``."""
    return [
        {"content": m.content, "context": m.context, "event_date": now - timedelta(days=m.days_ago)}
        for m in _MEMORIES
    ]
