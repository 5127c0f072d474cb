"""SQL over whole agents and users: list the agents in the store, forget one user.

``forget_user`` removes, in the caller's transaction, everything that came only from one
``user_id`` of one agent, so that no table keeps a row of theirs: every unit of that user, every
semantic unit consolidated from any of them (their text was derived from that user's), the
documents (raw input) of that user (``documents.user_id``, migration 014: a put of filler left a
document with no unit) and those left with no unit; links, entity mentions and provenance go with
the units (ON DELETE CASCADE). Then what was derived from those rows: the entities they mentioned
are recounted from the mentions left (count, first and last seen) and deleted when none is left
(``entities.recount``; an entity another user named stays, with that user's counts — its aliases
stay too, since a mention does not record the surface it was found under); their lexemes leave
``term_df`` (``units.uncount_terms``, rows that reach 0 deleted); the idempotency keys whose stored
response names one of the deleted units or documents are deleted (``idempotency.forget``: a retry
with the user's old key then runs as a new request instead of returning their texts — a key of a
batch that also stored another user's items goes too, and its retry stores only what is missing).
A request of that user still running when the forget commits is not forgotten: forget after it.
Cost: a few statements over the agent's units, entities and keys, on the ``(agent_id, ...)``
indexes; nothing else of the agent is touched.
"""

from __future__ import annotations

import psycopg

from ...model import AgentSummary
from . import entities as entity_sql
from . import idempotency as key_sql
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
    """Delete what one user of one agent left behind (see the module docstring): their units and
    the semantic units consolidated from them — the units those had superseded are current
    again —, their documents and those left empty, the entities only they named, their words in
    ``term_df`` and the idempotency keys whose response names any of it. Returns the number of
    units removed."""
    doomed = [r[0] for r in conn.execute(
        "WITH mine AS (SELECT id FROM memory_units WHERE agent_id = %(a)s AND user_id = %(u)s)"
        " SELECT id FROM mine UNION SELECT s.unit_id FROM unit_sources s JOIN mine m ON s.source_id = m.id"
        " WHERE s.agent_id = %(a)s",
        {"a": agent_id, "u": user_id},
    ).fetchall()]
    named = entity_sql.mentioned_in(conn, agent_id, doomed)
    before_delete(conn, agent_id, doomed)
    documents = {r[0] for r in conn.execute(
        "DELETE FROM memory_units WHERE agent_id = %s AND id = ANY(%s) RETURNING document_id",
        (agent_id, doomed),
    ).fetchall() if r[0] is not None}
    documents.update(r[0] for r in conn.execute(
        "DELETE FROM documents d WHERE d.agent_id = %(a)s AND (d.user_id = %(u)s OR d.id = ANY(%(d)s))"
        " AND NOT EXISTS (SELECT 1 FROM memory_units u WHERE u.agent_id = d.agent_id AND u.document_id = d.id)"
        " RETURNING d.id",
        {"a": agent_id, "u": user_id, "d": list(documents)},
    ).fetchall())
    entity_sql.recount(conn, agent_id, named)
    key_sql.forget(conn, agent_id, [*doomed, *documents])
    return len(doomed)
