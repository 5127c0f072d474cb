"""On a real Citus cluster, after ``db distribute`` (the ``db_url`` schema of
this lane), every door of the library runs through the coordinator: put, search, update, history,
context, maintain, consolidate, export, import, forget_user and delete_agent."""

from __future__ import annotations

import io
from dataclasses import replace

import psycopg

from fleet_memory import Config, FleetMemory
from fleet_memory.config import LifecycleConfig
from fleet_memory.providers.embedder import HashingEmbedder

DEPLOY = [f"The nightly deploy to production failed with a database timeout error on {d}."
          for d in ("Monday", "Tuesday", "Friday")]


def _memory(db_url, clock) -> FleetMemory:
    lifecycle = replace(LifecycleConfig(), consolidation_similarity=0.5)
    return FleetMemory(Config(database_url=db_url, lifecycle=lifecycle), embedder=HashingEmbedder(), clock=clock)


def _distributed(db_url) -> int:
    with psycopg.connect(db_url) as conn:
        return conn.execute("SELECT count(*) FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid"
                            " WHERE c.relnamespace = current_schema()::regnamespace").fetchone()[0]


def _writes_and_reads(memory: FleetMemory) -> None:
    first = memory.put("a1", "Alice moved to Berlin in March.", user_id="u1")
    memory.put("a1", "Alice moved to Berlin in March.", user_id="u1")  # the duplicate check
    memory.put_many([{"content": text, "importance": 0.8} for text in DEPLOY], agent_id="a1")
    memory.put("a2", "Bob prefers tea over coffee.", user_id="u2")
    assert memory.search("a1", "Where does Alice live?")[0].text.startswith("Alice moved to Berlin")
    updated = memory.update("a1", first.unit_ids[0], "Alice moved to Munich in May.")
    assert len(memory.history("a1", updated.unit_ids[0])) == 2
    assert "Munich" in memory.build_context("a1", "Where does Alice live?", user_id="u1")
    assert memory.stats("a1").units >= 4 and memory.list_agents()


def test_every_door_through_the_coordinator(db_url, clock):
    assert _distributed(db_url) > 0
    with _memory(db_url, clock) as memory:
        _writes_and_reads(memory)
        assert memory.consolidate("a1").created
        clock.advance(days=3650)
        assert memory.maintain("a1").examined > 0
        assert memory.maintain().examined > 0  # every agent: a deliberate multi-shard run
        out = io.StringIO()
        exported = memory.export_agent("a1", out)
        imported = memory.import_agent("a3", out.getvalue().splitlines())
        assert {t: n for t, n in imported.rows.items() if n} == {t: n for t, n in exported.rows.items() if n}
        assert memory.forget_user("a2", "u2") >= 1
        assert memory.delete_agent("a3") > 0
        assert {a.agent_id for a in memory.list_agents()} == {"a1"}
