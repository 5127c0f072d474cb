"""Migrations against the real embedded PostgreSQL: fresh, re-run, newer schema, embedding size."""

from __future__ import annotations

import psycopg
import pytest

from fleet_memory import Config, FleetMemory, SchemaError
from fleet_memory.providers.embedder import HashingEmbedder
from fleet_memory.store import migrations

TABLES = {"documents", "memory_units", "entities", "unit_entities", "links", "unit_sources", "schema_migrations"}


def test_fresh_database_gets_every_migration(empty_db_url):
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        applied = migrations.migrate(conn, 384)
        assert applied == [m.version for m in migrations.available()]
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        indexes = {r[0] for r in conn.execute("SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'")}
        recorded = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
    assert TABLES <= tables
    assert any("USING hnsw (embedding vector_cosine_ops)" in i for i in indexes)
    assert any("USING gin (tsv)" in i for i in indexes)
    assert any("memory_units USING btree (agent_id, event_date)" in i for i in indexes)
    assert any("entities USING btree (agent_id, normalized_name)" in i for i in indexes)
    assert recorded == applied


def test_every_table_carries_agent_id(empty_db_url):
    """Every memory table; api_keys is server configuration and lists the agents a key may use."""
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        migrations.migrate(conn, 384)
        rows = conn.execute(
            "SELECT table_name FROM information_schema.tables t WHERE table_schema = 'public'"
            " AND table_name NOT IN ('schema_migrations', 'fm_settings', 'api_keys')"
            " AND NOT EXISTS (SELECT 1 FROM information_schema.columns c WHERE c.table_name = t.table_name"
            " AND c.column_name = 'agent_id')"
        ).fetchall()
    assert rows == []


def test_rerun_is_a_noop(empty_db_url):
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        migrations.migrate(conn, 384)
        assert migrations.migrate(conn, 384) == []
        count = conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
    assert count == len(migrations.available())


def test_newer_schema_is_refused(db_url):
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (999, 'from_the_future')")
    with pytest.raises(SchemaError, match="newer than this fleet-memory knows"):
        FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder())


def test_other_embedding_size_is_refused(db_url):
    with pytest.raises(SchemaError, match="384-dimensional.*makes 768"):
        FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(dimension=768))


def test_failed_migration_leaves_nothing(empty_db_url):
    broken = [*migrations.available(), migrations.Migration(900, "broken", "CREATE TABLE ok_table (x int); SELEC 1;")]
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.SyntaxError):
            migrations.migrate(conn, 384, broken)
        assert migrations.current_version(conn) == 0
        assert conn.execute("SELECT to_regclass('ok_table')").fetchone()[0] is None
