"""Consistency checks of one agent's graph after concurrent writers (SQL read from the test)."""

from __future__ import annotations

import psycopg

__all__ = ["graph_problems", "SESSION_STATE"]

SESSION_STATE = (
    "SELECT (SELECT coalesce(array_agg(name::text ORDER BY name), '{}') FROM pg_settings WHERE source = 'session'),"
    " (SELECT count(*) FROM pg_prepared_statements),"
    " (SELECT coalesce(array_agg(c::text), '{}') FROM pg_listening_channels() c),"
    " (SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema()),"
    " (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()),"
    " (SELECT count(*) FROM pg_cursors)"
)
"""What a server session carries beyond a transaction: session-level settings, prepared
statements, LISTEN channels, temporary tables, advisory locks, open cursors."""


def graph_problems(url: str, agent: str) -> list[str]:
    """Everything that concurrent writers could have left inconsistent, as readable lines."""
    problems: list[str] = []
    with psycopg.connect(url, autocommit=True, prepare_threshold=None) as conn:
        def rows(query: str) -> list[tuple]:
            return conn.execute(query, {"a": agent}).fetchall()

        for name, n in rows("SELECT normalized_name, count(*) FROM entities WHERE agent_id = %(a)s"
                            " GROUP BY 1 HAVING count(*) > 1"):
            problems.append(f"{n} entities named {name!r}")
        for name, kept, real in rows(
                "SELECT e.name, e.mention_count, count(ue.unit_id) FROM entities e LEFT JOIN unit_entities ue"
                " ON ue.agent_id = e.agent_id AND ue.entity_id = e.id WHERE e.agent_id = %(a)s"
                " GROUP BY e.name, e.mention_count HAVING e.mention_count <> count(ue.unit_id)"):
            problems.append(f"{name}: mention_count {kept} but {real} mentions")
        for f, t, k in rows("SELECT from_id, to_id, kind FROM links WHERE agent_id = %(a)s AND from_id >= to_id"):
            problems.append(f"link {f} -> {t} ({k}) not stored once as from < to")
        for f, t, k in rows("SELECT a.from_id, a.to_id, a.kind FROM links a JOIN links b ON b.agent_id = a.agent_id"
                            " AND b.from_id = a.to_id AND b.to_id = a.from_id AND b.kind = a.kind"
                            " WHERE a.agent_id = %(a)s"):
            problems.append(f"link {f} <-> {t} ({k}) stored in both directions")
        [(units, counted)] = rows("SELECT (SELECT count(*) FROM memory_units WHERE agent_id = %(a)s),"
                                  " (SELECT df FROM term_df WHERE agent_id = %(a)s AND lexeme = '')")
        if units != counted:
            problems.append(f"{units} units but term_df counts {counted}")
    return problems
