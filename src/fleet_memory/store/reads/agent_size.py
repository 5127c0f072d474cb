"""How big one agent is, for the memory browser's agents page: its unit count as ``term_df`` keeps
it, whether its own vector index is built (``db.agent_indexes``), and its last write."""

from __future__ import annotations

from datetime import datetime

import psycopg

from ..db import agent_indexes, planner

__all__ = ["unit_count", "has_own_indexes", "last_write"]


def unit_count(conn: psycopg.Connection, agent_id: str) -> int:
    """One primary-key lookup."""
    return planner.unit_counts(conn, [agent_id]).get(agent_id, 0)


def has_own_indexes(conn: psycopg.Connection, agent_id: str) -> bool:
    """One catalogue lookup."""
    return agent_indexes.has_vector_index(conn, agent_id)


def last_write(conn: psycopg.Connection, agent_id: str) -> datetime | None:
    """When the agent last stored a document or a unit (None when it has neither)."""
    return conn.execute(
        "SELECT greatest((SELECT max(created_at) FROM documents WHERE agent_id = %(a)s),"
        " (SELECT max(created_at) FROM memory_units WHERE agent_id = %(a)s))",
        {"a": agent_id},
    ).fetchone()[0]
