"""The suite's own databases (``tests.support.databases``): a database a test wrote rows into is
emptied and handed to the next test as the template is; one whose schema or statistics a test
changed is dropped, never handed on."""

from __future__ import annotations

import psycopg

from fleet_memory import Config, FixedClock, FleetMemory
from fleet_memory.providers.embedder import HashingEmbedder


def _url(pg_server, name: str) -> str:
    return pg_server.get_uri(database=name)


def _exists(pg_server, name: str) -> bool:
    with psycopg.connect(pg_server.get_uri()) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is not None


def test_a_database_with_rows_comes_back_empty_with_its_sequences_restarted(databases, pg_server):
    name = databases.take()
    with FleetMemory(Config(database_url=_url(pg_server, name)), embedder=HashingEmbedder(),
                     clock=FixedClock()) as memory:
        memory.put("a1", "Alice moved to Paris. She works at Google.")
    databases.give_back(name)
    assert databases.take() == name  # recycled
    with psycopg.connect(_url(pg_server, name)) as conn:
        assert conn.execute("SELECT count(*) FROM memory_units").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM entities").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] > 0  # kept as migrated
        assert conn.execute("SELECT last_value FROM pg_sequences WHERE sequencename = 'memory_units_seq_seq'"
                            ).fetchone()[0] is None
    databases.give_back(name)


def test_a_database_whose_schema_or_statistics_changed_is_dropped(databases, pg_server):
    for change in ("CREATE INDEX extra_idx ON memory_units (created_at)",
                   "ANALYZE memory_units",  # of a table with rows: the planner's statistics outlive TRUNCATE
                   "ALTER DATABASE {name} SET work_mem = '8MB'"):
        name = databases.take()
        with FleetMemory(Config(database_url=_url(pg_server, name)), embedder=HashingEmbedder(),
                         clock=FixedClock()) as memory:
            memory.put("a1", "Alice moved to Paris.")
        with psycopg.connect(_url(pg_server, name), autocommit=True) as conn:
            conn.execute(change.format(name=name))
        databases.give_back(name)
        assert not _exists(pg_server, name), change
        assert databases.take() != name
