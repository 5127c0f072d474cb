"""The forgetting curve exists twice: in Python (``lifecycle.decay``, used by ``maintain``) and in
SQL (``store.tables.filters``, used by recall's ``min_importance``). They must agree."""

from __future__ import annotations

import pytest

from fleet_memory.lifecycle.decay import effective_importance

AGENT = "curve"
MEMORIES = [
    ("The harbour crane lifts containers at night.", "episodic", 0.9),
    ("Harbour cranes are rated by their lifting capacity.", "semantic", 0.7),
    ("Always check the harbour crane brakes before a lift.", "procedural", 0.6),
    ("The harbour crane operator retired last spring.", "episodic", 0.4),
]


@pytest.mark.parametrize("days", [0, 17, 140])
def test_sql_and_python_curves_agree(memory, clock, days):
    stored = [memory.put(AGENT, text, memory_type=kind, importance=imp).unit_ids[0] for text, kind, imp in MEMORIES]
    memory.search(AGENT, "harbour crane lifting", top_k=1, reinforce=True)  # one unit gets a fresh access time
    clock.advance(days=days)
    units = {uid: memory.get(AGENT, uid) for uid in stored}
    for uid, unit in units.items():
        value = effective_importance(unit, clock.now(), memory.config.lifecycle)
        found = lambda threshold: {r.id for r in memory.search(  # noqa: E731
            AGENT, "harbour crane", top_k=20, reinforce=False, min_importance=threshold)}
        assert uid in found(max(0.0, value - 1e-4)), (unit.text, value)
        assert uid not in found(min(1.0, value + 1e-4)), (unit.text, value)
