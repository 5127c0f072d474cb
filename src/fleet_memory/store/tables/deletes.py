"""Every path that deletes units, in one place: one unit, a document and its units, one user of
an agent, a whole agent. Each runs in the caller's transaction, and each deletion of units first
does what ``before_delete`` says: their words leave ``term_df``, and the units they superseded are
current again or superseded by the next version that stays (``reopen``); after it the entities
they mentioned are recounted (``entities.recount``).

``forget_user`` removes everything that came only from one ``user_id`` of one agent, so that no
table keeps a row of theirs: every unit of that user, every semantic unit consolidated from any of
them (their text was derived from that user's), the documents (raw input) of that user
(``documents.user_id``, migration 014: a put of filler left a document with no unit) and those left
with no unit; links, entity mentions and provenance go with the units (ON DELETE CASCADE). Then
what was derived from those rows: the entities they mentioned are recounted from the mentions left
(count, first and last seen) and deleted when none is left (``entities.recount``; an entity another
user named stays, with that user's counts, and loses the aliases only the forgotten mentions
carried — each mention records its surface, migration 018); their lexemes leave ``term_df`` (``units.uncount_terms``, rows
that reach 0 deleted); the idempotency keys whose stored response names one of the deleted units or
documents are deleted (``idempotency.forget_naming``: a retry with the user's old key then runs as a new
request instead of returning their texts — a key of a batch that also stored another user's items
goes too, and its retry stores only what is missing). A request of that user still running when
the forget commits is not forgotten: forget after it. Cost: a few statements over the agent's
units, entities and keys, on the ``(agent_id, ...)`` indexes; nothing else of the agent is touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import psycopg

from . import entities as entity_sql
from . import idempotency as key_sql
from . import supersession as sup_sql
from . import units as unit_sql

__all__ = ["before_delete", "reopen", "delete_unit", "delete_document", "forget_user", "delete_agent"]


def before_delete(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> None:
    """What every deletion of units does first, in the deleting transaction: their terms leave
    ``term_df`` (``units.uncount_terms``), and the units they superseded become current again, or are
    superseded by the next version that stays (``reopen``). Locks are taken in a
    put's order — ``term_df`` rows, the agent's entity lock, its supersession lock (migration
    016) — so a delete and a put of one agent never wait for each other crosswise."""
    if not ids:
        return
    unit_sql.uncount_terms(conn, agent_id, ids)
    entity_sql.lock_entities(conn, agent_id)
    reopen(conn, agent_id, ids)


def reopen(conn: psycopg.Connection, agent_id: str, deleted: Sequence[UUID]) -> int:
    """Before ``deleted`` units go, the units they superseded (and that stay): each is superseded
    instead by the first unit along its line of successors that stays (Lisbon → Porto → Braga,
    Porto deleted: Lisbon → Braga, ``valid_until`` = Braga's event time), or, with none left,
    is current again. Returns how many units were re-linked or reopened. Two or three statements."""
    if not deleted:
        return 0
    rows = conn.execute(
        "WITH RECURSIVE fwd(old, id, depth) AS ("
        "   SELECT old_id, new_id, 1 FROM supersessions"
        "   WHERE agent_id = %(a)s AND new_id = ANY(%(d)s) AND NOT old_id = ANY(%(d)s)"
        "   UNION ALL SELECT f.old, s.new_id, f.depth + 1 FROM fwd f"
        "   JOIN supersessions s ON s.agent_id = %(a)s AND s.old_id = f.id"
        "   WHERE f.id = ANY(%(d)s) AND f.depth < %(depth)s)"
        " SELECT o.old, h.id, h.event_date FROM (SELECT DISTINCT old FROM fwd) o"
        " LEFT JOIN LATERAL (SELECT f.id, u.event_date FROM fwd f"
        "   JOIN memory_units u ON u.agent_id = %(a)s AND u.id = f.id"
        "   WHERE f.old = o.old AND NOT f.id = ANY(%(d)s) AND f.id <> o.old ORDER BY f.depth LIMIT 1) h ON true",
        {"a": agent_id, "d": list(deleted), "depth": sup_sql.CHAIN_DEPTH},
    ).fetchall()
    if not rows:
        return 0
    heirs = [(old, heir) for old, heir, _ in rows if heir is not None]
    if heirs:
        conn.execute(
            "UPDATE supersessions s SET new_id = p.h FROM unnest(%(o)s::uuid[], %(h)s::uuid[]) AS p(o, h)"
            " WHERE s.agent_id = %(a)s AND s.old_id = p.o",
            {"a": agent_id, "o": [o for o, _ in heirs], "h": [h for _, h in heirs]},
        )
    return sup_sql.end_units(conn, agent_id, [r[0] for r in rows], [r[2] for r in rows])


def delete_unit(conn: psycopg.Connection, agent_id: str, unit_id: UUID) -> bool:
    """Delete one unit; the units it superseded are current again, the entities it mentioned are
    recounted (and go when it was their last mention)."""
    named = entity_sql.mentioned_in(conn, agent_id, [unit_id])
    before_delete(conn, agent_id, [unit_id])
    cur = conn.execute("DELETE FROM memory_units WHERE agent_id = %s AND id = %s", (agent_id, unit_id))
    entity_sql.recount(conn, agent_id, named)
    return cur.rowcount > 0


def delete_document(conn: psycopg.Connection, agent_id: str, document_id: UUID) -> bool:
    """Delete a document and its units; the units they superseded are current again, the entities
    they mentioned are recounted."""
    units = [r[0] for r in conn.execute("SELECT id FROM memory_units WHERE agent_id = %s AND document_id = %s",
                                        (agent_id, document_id))]
    named = entity_sql.mentioned_in(conn, agent_id, units)
    before_delete(conn, agent_id, units)
    cur = conn.execute("DELETE FROM documents WHERE agent_id = %s AND id = %s", (agent_id, document_id))
    entity_sql.recount(conn, agent_id, named)
    return cur.rowcount > 0


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
    key_sql.forget_naming(conn, agent_id, [*doomed, *documents])
    return len(doomed)


def delete_agent(conn: psycopg.Connection, agent_id: str) -> int:
    """Remove every row of one agent; return how many units went."""
    conn.execute("DELETE FROM links WHERE agent_id = %s", (agent_id,))
    conn.execute("DELETE FROM supersessions WHERE agent_id = %s", (agent_id,))
    conn.execute("DELETE FROM idempotency_keys WHERE agent_id = %s", (agent_id,))
    conn.execute("DELETE FROM unit_entities WHERE agent_id = %s", (agent_id,))
    conn.execute("DELETE FROM unit_sources WHERE agent_id = %s", (agent_id,))
    removed = conn.execute("DELETE FROM memory_units WHERE agent_id = %s", (agent_id,)).rowcount
    conn.execute("DELETE FROM entities WHERE agent_id = %s", (agent_id,))
    conn.execute("DELETE FROM term_df WHERE agent_id = %s", (agent_id,))
    conn.execute("DELETE FROM documents WHERE agent_id = %s", (agent_id,))
    return removed
