"""SQL for ``fleet-memory db status``: schema version, database size, exact rows and size per table."""

from __future__ import annotations

import psycopg
from psycopg import sql

__all__ = ["database_status"]


def database_status(conn: psycopg.Connection) -> dict:
    version = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[0]
    row = conn.execute(
        "SELECT current_database(), pg_database_size(current_database()), current_setting('server_version')"
    ).fetchone()
    tables = conn.execute(
        "SELECT relname, pg_total_relation_size(oid) FROM pg_class"
        " WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace ORDER BY relname"
    ).fetchall()
    rows = {name: conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(name))).fetchone()[0]
            for name, _ in tables}  # exact: one count per table (a sequential or index-only scan each)
    agents = conn.execute("SELECT count(DISTINCT agent_id) FROM documents").fetchone()[0]
    units = conn.execute("SELECT count(*) FROM memory_units").fetchone()[0]
    return {
        "database": row[0], "size_bytes": int(row[1]), "server_version": row[2], "schema_version": int(version),
        "agents": int(agents), "units": int(units),
        "tables": [{"name": t[0], "rows": int(rows[t[0]]), "size_bytes": int(t[1])} for t in tables],
    }
