"""SQL for facts that change, seen by holder: the supersession pairs (``supersessions``, migration
008) of every line of versions that holds a unit of the holder — units mentioning some entities,
or units of one user. Grouping the pairs into lines is ``fact_timeline``'s."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import psycopg

__all__ = ["holder_pairs"]

_LINE_PAIRS = (
    "WITH RECURSIVE seeds AS ("
    "  SELECT u.id FROM memory_units u WHERE u.agent_id = %(a)s AND ({holder})"
    "  AND (EXISTS (SELECT 1 FROM supersessions s WHERE s.agent_id = %(a)s AND s.old_id = u.id)"
    "    OR EXISTS (SELECT 1 FROM supersessions s WHERE s.agent_id = %(a)s AND s.new_id = u.id))"
    "  ORDER BY u.event_date DESC, u.id LIMIT %(cap)s),"
    " line(id) AS (SELECT id FROM seeds UNION"
    "  SELECT CASE WHEN s.old_id = l.id THEN s.new_id ELSE s.old_id END FROM supersessions s"
    "  JOIN line l ON s.agent_id = %(a)s AND (s.old_id = l.id OR s.new_id = l.id))"
    " SELECT s.old_id, s.new_id, s.reason FROM supersessions s"
    " WHERE s.agent_id = %(a)s AND s.old_id IN (SELECT id FROM line)"
    " ORDER BY s.old_id"
)
_OF_ENTITIES = ("u.id IN (SELECT ue.unit_id FROM unit_entities ue"
                " WHERE ue.agent_id = %(a)s AND ue.entity_id = ANY(%(e)s))")
_OF_USER = "u.user_id = %(user)s"


def holder_pairs(conn: psycopg.Connection, agent_id: str, *, entity_ids: Sequence[UUID] = (),
                 user_id: str | None = None, cap: int) -> list[tuple[UUID, UUID, str]]:
    """``(old_id, new_id, reason)`` of every supersession in a line that holds one of the (at most
    ``cap``, latest first) superseded or superseding units that mention ``entity_ids`` or belong to
    ``user_id``. One statement."""
    holder = _OF_ENTITIES if user_id is None else _OF_USER
    rows = conn.execute(_LINE_PAIRS.replace("{holder}", holder),
                        {"a": agent_id, "e": list(entity_ids), "user": user_id, "cap": cap}).fetchall()
    return [(old, new, reason) for old, new, reason in rows]
