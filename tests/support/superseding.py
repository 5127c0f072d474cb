"""Whether a newer message supersedes an older one: both put into one agent, months apart."""

from __future__ import annotations

from datetime import datetime, timezone

JUNE_2024 = datetime(2024, 6, 10, tzinfo=timezone.utc)
FEB_2025 = datetime(2025, 2, 14, tzinfo=timezone.utc)


def superseded(mem, older: str, newer: str, agent: str = "facts") -> bool:
    """Put ``older`` (June 2024) and ``newer`` (February 2025); True when the older unit ended then."""
    mem.put(agent, older, event_date=JUNE_2024)
    mem.put(agent, newer, event_date=FEB_2025)
    [unit] = [u for u in mem.list_units(agent, limit=100).units if u.text == older]
    return unit.valid_until == FEB_2025
