"""SQL over whole agents and users: list the agents in the store, forget one user.

``forget_user`` removes, in the caller's transaction, every unit of one ``user_id`` in one
agent, every semantic unit consolidated from any of them (their text was derived from that
user's), and the documents (raw input) left with no unit; links, entity mentions and provenance
go with the units (ON DELETE CASCADE). Cost: two statements over the agent's units, using the
``(agent_id, ...)`` indexes; nothing else of the agent is touched.
"""

from __future__ import annotations

import psycopg

from ..model import AgentSummary
from .units import before_delete

__all__ = ["list_agents", "forget_user"]


def list_agents(conn: psycopg.Connection, *, limit: int, offset: int) -> list[AgentSummary]:
    rows = conn.execute(
        "SELECT d.agent_id, coalesce(u.units, 0), d.documents, greatest(d.last_write, u.last_write)"
        " FROM (SELECT agent_id, count(*) AS documents, max(created_at) AS last_write FROM documents"
        "       GROUP BY agent_id) d"
        " LEFT JOIN (SELECT agent_id, count(*) AS units, max(created_at) AS last_write FROM memory_units"
        "            GROUP BY agent_id) u USING (agent_id)"
        " ORDER BY d.agent_id LIMIT %s OFFSET %s",
        (limit, offset),
    ).fetchall()
    return [AgentSummary(r[0], int(r[1]), int(r[2]), r[3]) for r in rows]


def forget_user(conn: psycopg.Connection, agent_id: str, user_id: str) -> int:
    """Delete what one user of one agent left behind — their units and the semantic units
    consolidated from them; the units those had superseded are current again — and the documents
    left empty. Returns the number of units removed."""
    doomed = [r[0] for r in conn.execute(
        "WITH mine AS (SELECT id FROM memory_units WHERE agent_id = %(a)s AND user_id = %(u)s)"
        " SELECT id FROM mine UNION SELECT s.unit_id FROM unit_sources s JOIN mine m ON s.source_id = m.id"
        " WHERE s.agent_id = %(a)s",
        {"a": agent_id, "u": user_id},
    ).fetchall()]
    if not doomed:
        return 0
    before_delete(conn, agent_id, doomed)
    documents = [r[0] for r in conn.execute(
        "DELETE FROM memory_units WHERE agent_id = %s AND id = ANY(%s) RETURNING document_id",
        (agent_id, doomed),
    ).fetchall() if r[0] is not None]
    conn.execute(
        "DELETE FROM documents d WHERE d.agent_id = %s AND d.id = ANY(%s)"
        " AND NOT EXISTS (SELECT 1 FROM memory_units u WHERE u.agent_id = d.agent_id AND u.document_id = d.id)",
        (agent_id, list(set(documents))),
    )
    return len(doomed)
