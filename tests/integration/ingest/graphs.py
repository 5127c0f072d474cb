"""The stored link graph of an agent, as the ingestion tests compare it."""

from __future__ import annotations

import psycopg


def stored_graph(db_url, agent) -> list[tuple]:
    """The agent's stored links as (text, text, kind, weight), the two texts in order."""
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT u1.text, u2.text, l.kind, l.weight FROM links l"
                            " JOIN memory_units u1 ON u1.agent_id = l.agent_id AND u1.id = l.from_id"
                            " JOIN memory_units u2 ON u2.agent_id = l.agent_id AND u2.id = l.to_id"
                            " WHERE l.agent_id = %s", (agent,)).fetchall()
    return [tuple(sorted(r[:2])) + r[2:] for r in rows]
