"""``fleet-memory db distribute`` on a real Citus coordinator: migrations, reference tables, agent
tables co-located by ``agent_id``; a second run changes nothing; a later migration (a new column,
a new table) works on the distributed schema."""

from __future__ import annotations

import json

import psycopg
from typer.testing import CliRunner

from fleet_memory import Config, FleetMemory
from fleet_memory.cli import app
from fleet_memory.providers.embedder import HashingEmbedder
from fleet_memory.store.db import distribution, migrations
from fleet_memory.store.db.migrations import Migration

HELD = ("SELECT c.relname::text, p.partmethod::text, p.colocationid FROM pg_dist_partition p"
        " JOIN pg_class c ON c.oid = p.logicalrelid WHERE c.relnamespace = current_schema()::regnamespace")


def _distribute(url: str) -> list[str]:
    factory = lambda: FleetMemory(Config(database_url=url), embedder=HashingEmbedder())  # noqa: E731
    result = CliRunner().invoke(app, ["db", "distribute", "--json"], obj=factory)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["distributed"]


def _held(url: str) -> dict[str, tuple[str, int]]:
    with psycopg.connect(url) as conn:
        return {name: (method, colocation) for name, method, colocation in conn.execute(HELD).fetchall()}


def test_distribute_migrates_then_distributes_once(empty_db_url):
    first = _distribute(empty_db_url)
    held = _held(empty_db_url)
    assert set(first) == set(held)
    reference = {t for t, (method, _) in held.items() if method == "n"}
    assert reference == set(distribution.REFERENCE_TABLES)
    agent = {t: colocation for t, (method, colocation) in held.items() if method == "h"}
    assert "memory_units" in agent and len(set(agent.values())) == 1  # all co-located
    assert len(agent) + len(reference) == len(held)
    assert _distribute(empty_db_url) == []  # the second run: nothing left to do
    assert _held(empty_db_url) == held


def test_a_later_migration_works_on_the_distributed_schema(db_url):
    later = migrations.available()
    version = later[-1].version
    later += [Migration(version + 1, "note", "ALTER TABLE memory_units ADD COLUMN note text;"
                        " CREATE TABLE agent_notes (agent_id text NOT NULL, note text, PRIMARY KEY (agent_id, note));")]
    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder()) as memory:
        memory.put("a1", "The deploy runs on Citus now.")
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert migrations.migrate(conn, 384, later) == [version + 1]
        assert distribution.distribute(conn) == ["agent_notes"]
    with psycopg.connect(db_url) as conn:
        conn.execute("UPDATE memory_units SET note = 'seen' WHERE agent_id = 'a1'")
        assert conn.execute("SELECT count(*) FROM memory_units WHERE note = 'seen'").fetchone()[0] >= 1
        conn.execute("INSERT INTO agent_notes VALUES ('a1', 'routed')")
    assert _held(db_url)["agent_notes"][1] == _held(db_url)["memory_units"][1]
