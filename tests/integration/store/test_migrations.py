"""Migrations against the real embedded PostgreSQL: fresh, re-run, newer schema, embedding size."""

from __future__ import annotations

import psycopg
import pytest

from fleet_memory import Config, FleetMemory, SchemaError
from fleet_memory.providers.embedder import HashingEmbedder
from fleet_memory.store.db import migrations

TABLES = {"documents", "memory_units", "entities", "unit_entities", "links", "unit_sources", "schema_migrations"}


def test_fresh_database_gets_every_migration(empty_db_url):
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        applied = migrations.migrate(conn, 384)
        assert applied == [m.version for m in migrations.available()]
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        indexes = {r[0] for r in conn.execute("SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'")}
        recorded = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
    assert TABLES <= tables
    assert not any("USING hnsw" in i for i in indexes)  # no fleet-wide HNSW: agents own theirs (store.db.agent_indexes)
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


def test_migration_010_gives_large_agents_their_own_indexes_and_drops_the_fleet_wide_hnsw(empty_db_url):
    """A database built with the schema before 010 (the fleet-wide HNSW): an agent of 5,000 units
    gets its own indexes, a small one none, and no row is lost."""
    from fleet_memory.store.db import agent_indexes

    big = "big 'one'"
    before = [m for m in migrations.available() if m.version < 10]
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        migrations.migrate(conn, 384, before)
        for agent, n in ((big, agent_indexes.OWN_INDEX_UNITS), ("small", 40)):
            conn.execute(
                "INSERT INTO memory_units (agent_id, id, text, event_date, embedding)"
                " SELECT %s, gen_random_uuid(), 'fact number ' || i, now(),"
                " (SELECT array_agg(sin(i * 7 + d))::vector FROM generate_series(1, 384) d)"
                " FROM generate_series(1, %s) i", (agent, n))
            conn.execute("INSERT INTO term_df (agent_id, lexeme, df) VALUES (%s, '', %s)", (agent, n))
        assert migrations.migrate(conn, 384) == [m.version for m in migrations.available() if m.version >= 10]
        indexes = dict(conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memory_units'"))
        comments = dict(conn.execute("SELECT relname, obj_description(oid, 'pg_class') FROM pg_class"
                                     " WHERE relname LIKE 'memory_units_own_%'"))
        rows = dict(conn.execute("SELECT agent_id, count(*) FROM memory_units GROUP BY agent_id").fetchall())
    names = agent_indexes.index_names(big)
    literal = "(agent_id = 'big ''one'''::text)"
    assert "memory_units_embedding_idx" not in indexes
    assert f"USING hnsw (embedding vector_cosine_ops) WHERE {literal}" in indexes[names["vec"]]
    assert f"USING gin (tsv) WHERE {literal}" in indexes[names["tsv"]]
    assert comments == {names["vec"]: big, names["tsv"]: big}  # as agent_indexes names them
    assert rows == {big: agent_indexes.OWN_INDEX_UNITS, "small": 40}


def _units_before(conn, version: int, count: int) -> None:
    """The schema as it was before ``version``, with ``count`` units of agent 'a' ('fact number i',
    id md5('u' || i), dated 2024-01-01 + i days)."""
    migrations.migrate(conn, 384, [m for m in migrations.available() if m.version < version])
    conn.execute(
        "INSERT INTO memory_units (agent_id, id, text, event_date, embedding)"
        " SELECT 'a', md5('u' || i)::uuid, 'fact number ' || i, '2024-01-01'::timestamptz + i * interval '1 day',"
        " (SELECT array_agg(sin(i * 7 + d))::vector FROM generate_series(1, 384) d)"
        " FROM generate_series(1, %s) i", (count,))


def test_migration_011_gives_every_mention_its_units_bits_and_keeps_them_on_insert(empty_db_url):
    """A database built before 011: existing mentions get their unit's binary-quantized embedding,
    the entity index carries them, and a mention inserted afterwards gets them from the trigger."""
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        _units_before(conn, 11, 3)
        conn.execute("INSERT INTO entities (agent_id, id, name, normalized_name, label, first_seen, last_seen)"
                     " VALUES ('a', md5('e')::uuid, 'Alice', 'alice', 'PERSON', now(), now())")
        conn.execute("INSERT INTO unit_entities (agent_id, unit_id, entity_id) VALUES"
                     " ('a', md5('u1')::uuid, md5('e')::uuid), ('a', md5('u2')::uuid, md5('e')::uuid)")
        assert migrations.migrate(conn, 384) == [m.version for m in migrations.available() if m.version >= 11]
        conn.execute("INSERT INTO unit_entities (agent_id, unit_id, entity_id, bits)"
                     " VALUES ('a', md5('u3')::uuid, md5('e')::uuid, NULL)")  # whatever is given: derived
        mismatched = conn.execute(
            "SELECT count(*) FROM unit_entities ue JOIN memory_units u ON u.agent_id = ue.agent_id AND u.id = ue.unit_id"
            " WHERE ue.bits IS DISTINCT FROM binary_quantize(u.embedding)::bit(384)").fetchone()[0]
        count = conn.execute("SELECT count(*) FROM unit_entities").fetchone()[0]
        index = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s",
                             ("unit_entities_entity_idx",)).fetchone()[0]
        with pytest.raises(psycopg.errors.ForeignKeyViolation):  # no unit: its key refuses the row
            conn.execute("INSERT INTO unit_entities (agent_id, unit_id, entity_id)"
                         " VALUES ('a', md5('nothing')::uuid, md5('e')::uuid)")
    assert (count, mismatched) == (3, 0)
    assert index.endswith("(agent_id, entity_id) INCLUDE (unit_id, bits)")


def test_migration_012_gives_every_supersession_its_time_and_keeps_it(empty_db_url):
    """A database built before 012: existing supersessions get their new unit's event time; a row
    inserted or re-pointed afterwards (``supersede``, ``reopen``) gets it from the trigger."""
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        _units_before(conn, 12, 4)
        conn.execute("INSERT INTO supersessions (agent_id, old_id, new_id, reason, created_at)"
                     " VALUES ('a', md5('u1')::uuid, md5('u2')::uuid, 'test', now())")
        assert migrations.migrate(conn, 384) == [m.version for m in migrations.available() if m.version >= 12]
        conn.execute("INSERT INTO supersessions (agent_id, old_id, new_id, reason, created_at, superseded_at)"
                     " VALUES ('a', md5('u2')::uuid, md5('u3')::uuid, 'test', now(), NULL)")  # whatever is given

        def times():
            return dict(conn.execute("SELECT u.text, s.superseded_at::date::text FROM supersessions s"
                                     " JOIN memory_units u ON u.agent_id = s.agent_id AND u.id = s.old_id").fetchall())

        inserted = times()
        conn.execute("UPDATE supersessions SET new_id = md5('u4')::uuid WHERE old_id = md5('u2')::uuid")
        re_pointed = times()
        conn.execute("UPDATE supersessions SET superseded_at = now()")  # whatever is given
        assert times() == re_pointed
    assert inserted == {"fact number 1": "2024-01-03", "fact number 2": "2024-01-04"}
    assert re_pointed == {"fact number 1": "2024-01-03", "fact number 2": "2024-01-05"}
