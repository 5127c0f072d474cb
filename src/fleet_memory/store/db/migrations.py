"""Numbered SQL migrations, applied in order inside one transaction and recorded in
``schema_migrations``. Re-running is a no-op; a database whose schema is newer than this code
is refused. An advisory lock keeps two processes from migrating at once.

The embedding size is part of the schema (``vector(N)``): it is written into ``fm_settings`` by
the first migration, and a different configured size is refused instead of failing later.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import psycopg

from ...errors import SchemaError

__all__ = ["Migration", "available", "migrate", "current_version"]

_LOCK_KEY = 0x666D_6D69  # "fmmi"
_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def available() -> list[Migration]:
    folder = resources.files(__package__) / "migrations"
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), entry.read_text("utf-8")))
    return sorted(found, key=lambda m: m.version)


def current_version(conn: psycopg.Connection) -> int:
    exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()[0]
    if not exists:
        return 0
    return conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[0]


def migrate(conn: psycopg.Connection, embedding_dim: int, migrations: list[Migration] | None = None) -> list[int]:
    """Apply pending migrations; return the versions applied. ``conn`` must not be in a transaction."""
    steps = available() if migrations is None else migrations
    latest = steps[-1].version if steps else 0
    applied: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        have = current_version(conn)
        if have > latest:
            raise SchemaError(
                f"the database schema is version {have}, newer than this fleet-memory knows ({latest}); "
                "upgrade fleet-memory, or point it at another database"
            )
        for step in steps:
            if step.version <= have:
                continue
            conn.execute(step.sql.replace("{EMBEDDING_DIM}", str(int(embedding_dim))))
            conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (step.version, step.name)
            )
            applied.append(step.version)
        stored = conn.execute("SELECT value FROM fm_settings WHERE key = 'embedding_dim'").fetchone()
    if stored is not None and int(stored[0]) != embedding_dim:
        raise SchemaError(
            f"this database stores {stored[0]}-dimensional embeddings but the configured embedder "
            f"makes {embedding_dim}; use the embedder the database was built with, or a new database"
        )
    return applied
