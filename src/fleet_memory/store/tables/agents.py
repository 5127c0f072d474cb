"""SQL over whole agents: list the agents in the store (forgetting one user is ``deletes.forget_user``)."""

from __future__ import annotations

import psycopg

from ...model import AgentSummary

__all__ = ["list_agents"]


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
