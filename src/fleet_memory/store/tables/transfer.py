"""SQL for exporting and importing one agent's whole memory, losslessly and generically.

Every table with an ``agent_id`` column is agent data (documents, units with their embeddings,
entities, mentions, links, provenance, and whatever later migrations add). Rows leave as
``row_to_json`` (PostgreSQL's own text forms: exact floats, ISO timestamps, vectors as
``[...]``) and come back through ``json_populate_recordset``, so PostgreSQL does every cast and
no column is mapped by hand. Generated columns (``tsv``) are recomputed, not copied. Tables are
ordered so that a table comes after the tables its foreign keys point to.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Json

from ...errors import InvalidInputError
from ..db.database import cached_plans
from ..db.routing import REFUSED

__all__ = ["agent_tables", "column_types", "iter_rows", "insert_imported", "renumber_unit_seq", "agent_is_empty",
           "embedding_dim"]


def agent_tables(conn: psycopg.Connection) -> list[str]:
    """Tables holding agent data, parents before children (foreign-key order)."""
    tables = [r[0] for r in conn.execute(
        "SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t"
        " ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
        " WHERE c.table_schema = current_schema() AND c.column_name = 'agent_id' AND t.table_type = 'BASE TABLE'"
        " ORDER BY c.table_name"
    ).fetchall()]
    parents: dict[str, set[str]] = {t: set() for t in tables}
    for child, parent in conn.execute(
        "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint"
        " WHERE contype = 'f' AND connamespace = current_schema()::regnamespace"
    ).fetchall():
        if child in parents and parent in parents and parent != child:
            parents[child].add(parent)
    ordered: list[str] = []
    while parents:
        ready = sorted(t for t, ps in parents.items() if not ps - set(ordered))
        if not ready:  # a cycle: keep the remaining tables in name order
            ready = sorted(parents)
        for t in ready:
            ordered.append(t)
            del parents[t]
    return ordered


def _copy_columns(conn: psycopg.Connection, table: str) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
        " AND table_name = %s AND is_generated = 'NEVER' ORDER BY ordinal_position", (table,)
    ).fetchall()]


def column_types(conn: psycopg.Connection, table: str) -> dict[str, str]:
    """Each stored column's type as ``information_schema`` names it (``integer``, ``timestamp with
    time zone``, ``USER-DEFINED`` for vectors ...); generated columns included."""
    return dict(conn.execute(
        "SELECT column_name, data_type FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = %s", (table,)
    ).fetchall())


def iter_rows(conn: psycopg.Connection, table: str, agent_id: str, batch: int = 1_000) -> Iterator[dict[str, Any]]:
    """Every row of ``table`` for the agent, as JSON-ready dicts, streamed with a server cursor."""
    cols = _copy_columns(conn, table)
    query = sql.SQL("SELECT json_build_object({pairs}) FROM {t} WHERE agent_id = %s").format(
        pairs=sql.SQL(", ").join(sql.SQL("{}, {}").format(sql.Literal(c), sql.Identifier(c)) for c in cols),
        t=sql.Identifier(table),
    )
    with conn.cursor(name=f"export_{table}") as cur:
        cur.itersize = batch
        cur.execute(query, (agent_id,))
        for (row,) in cur:
            yield row


def _insert(conn: psycopg.Connection, table: str, cols: Sequence[str], rows: Sequence[dict[str, Any]]) -> None:
    ident = sql.SQL(", ").join(sql.Identifier(c) for c in cols)
    with conn.transaction(), cached_plans(conn):  # a savepoint; foreign-key checks, one or two per row
        conn.execute(
            sql.SQL("INSERT INTO {t} ({cols}) SELECT {cols} FROM json_populate_recordset(NULL::{t}, %s)").format(
                t=sql.Identifier(table), cols=ident),
            (Json(list(rows)),),
        )


def insert_imported(conn: psycopg.Connection, table: str, rows: Sequence[dict[str, Any]],
                lines: Sequence[int] | None = None) -> int:
    """Insert rows (as produced by ``iter_rows``) with PostgreSQL doing every cast. When the batch
    is refused, its rows are inserted one by one to find the first refused one, named by its line
    in ``lines`` (the batch's line numbers), so the error says which row to fix."""
    if not rows:
        return 0
    cols = [c for c in _copy_columns(conn, table) if c in rows[0]]
    try:
        _insert(conn, table, cols, rows)
        return len(rows)
    except REFUSED as exc:
        if lines is None:
            raise InvalidInputError("file", f"rows of {table} do not fit this database: {_reason(exc)}") from None
    for row, line in zip(rows, lines):
        try:
            _insert(conn, table, cols, [row])
        except REFUSED as exc:
            raise InvalidInputError(f"line {line}", f"this {table} row does not fit this database: "
                                    f"{_reason(exc)}") from None
    return len(rows)


def _reason(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0]


def renumber_unit_seq(conn: psycopg.Connection, agent_id: str) -> None:
    """Give the agent's imported units fresh write orders (``seq``) from the shared sequence,
    keeping their exported relative order (ties and missing values by id). The file's numbers
    never reach the sequence: one tenant cannot move a counter every agent draws from."""
    conn.execute(
        "WITH old AS (SELECT id, row_number() OVER (ORDER BY seq NULLS LAST, id) AS r"
        "             FROM memory_units WHERE agent_id = %(a)s),"
        " fresh AS (SELECT row_number() OVER (ORDER BY v) AS r, v FROM"
        "   (SELECT nextval(pg_get_serial_sequence('memory_units', 'seq')) AS v"
        "    FROM generate_series(1, (SELECT count(*) FROM old))) g)"
        " UPDATE memory_units m SET seq = fresh.v FROM old JOIN fresh USING (r)"
        " WHERE m.agent_id = %(a)s AND m.id = old.id",
        {"a": agent_id},
    )


def agent_is_empty(conn: psycopg.Connection, agent_id: str, tables: Sequence[str]) -> bool:
    for table in tables:
        found = conn.execute(
            sql.SQL("SELECT 1 FROM {} WHERE agent_id = %s LIMIT 1").format(sql.Identifier(table)), (agent_id,)
        ).fetchone()
        if found:
            return False
    return True


def embedding_dim(conn: psycopg.Connection) -> int:
    return int(conn.execute("SELECT value FROM fm_settings WHERE key = 'embedding_dim'").fetchone()[0])
