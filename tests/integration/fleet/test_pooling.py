"""No session state outlives a transaction, so fleet-memory works through PgBouncer in
transaction pooling mode.

How it is checked: a facade with ONE pooled connection runs every kind of operation (puts,
searches of every preset, entity edits, maintenance, consolidation, export and import, deletes);
then that same server session is inspected for what could leak into another client's
transaction behind a pooler — session-level settings, prepared statements, LISTEN channels,
temporary tables, advisory locks, cursors. With ``prepared_statements=True`` (the default, for a
direct connection) the same check does find psycopg's prepared statements: the check can fail.
Then the same work runs through a real PgBouncer (transaction mode, two server connections
shared by two facades writing concurrently), where it is skipped if PgBouncer is not installed.
"""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone

import pytest

from fleet_memory import Config, FleetMemory
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support import pgbouncer as bouncer
from tests.support.concurrency import run_together

from .checks import SESSION_STATE, graph_problems

T0 = datetime(2024, 5, 1, 9, tzinfo=timezone.utc)
TEXTS = [
    "Alice Moreau started working at Orbital Labs as a pilot.",
    "Bob Kitano flew to Lisbon with Alice Moreau for a marathon.",
    "Alice Moreau adopted a dog named Biscuit from the shelter.",
    "Bob Kitano is worried about the deadline at Orbital Labs.",
]


def _every_operation(mem: FleetMemory, agent: str) -> None:
    first = mem.put(agent, TEXTS[0], event_date=T0)
    for i, text in enumerate(TEXTS):
        mem.put(agent, text, event_date=T0 + timedelta(hours=i + 1))
    for preset in ("balanced", "vector", "fast", "deep"):
        assert mem.search(agent, "Where did Alice fly?", preset=preset, explain=True)
    mem.search(agent, "What did Bob do in May 2024?")
    entities = {e.name: e for e in mem.list_entities(agent)}
    mem.rename_entity(agent, entities["Bob Kitano"].id, "Robert Kitano")
    mem.merge_entities(agent, entities["Alice Moreau"].id, entities["Orbital Labs"].id)
    mem.maintain(agent, now=T0 + timedelta(days=400))
    mem.consolidate(agent, now=T0 + timedelta(days=1))
    mem.build_context(agent, "Tell me about Alice")
    out = io.StringIO()
    mem.export_agent(agent, out)
    mem.import_agent(agent + "-copy", out.getvalue().splitlines())
    mem.delete(agent, first.units[0].id)
    mem.delete_agent(agent + "-copy")


def _session_state(mem: FleetMemory):
    with mem.db._pool.connection() as conn:  # the pooled session itself, as the next client would get it
        return conn.execute(SESSION_STATE).fetchone()


@pytest.mark.parametrize("prepared", [False, True], ids=["unnamed-statements", "prepared-statements"])
def test_no_session_state_outlives_a_transaction(db_url, clock, prepared):
    config = Config(database_url=db_url, pool_min_size=1, pool_max_size=1, prepared_statements=prepared)
    with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as mem:
        _every_operation(mem, "pooled")
        settings, prepared_count, channels, temp_tables, advisory, cursors = _session_state(mem)
    assert (settings, channels, temp_tables, advisory, cursors) == ([], [], 0, 0, 0)
    if prepared:
        assert prepared_count > 0  # the check sees them: this is what a pre-1.21 PgBouncer cannot carry
    else:
        assert prepared_count == 0


@pytest.mark.processes
@pytest.mark.skipif(bouncer.binary() is None, reason="pgbouncer is not installed (make system-deps)")
def test_concurrent_writers_through_pgbouncer_transaction_pooling(db_url, clock):
    with bouncer.pgbouncer(db_url, pool_size=2) as url:
        config = Config(database_url=url, pool_min_size=2, pool_max_size=4, prepared_statements=False)
        with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as one, \
                FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as two:
            with one.db.transaction() as conn:
                assert conn.execute("SHOW hnsw.ef_search").fetchone()[0] == "100"

            turn = iter(range(4))

            def writer(wait):
                mem = (one, two)[next(turn) % 2]
                wait()
                for i, text in enumerate(TEXTS):
                    mem.put("shared", text, event_date=T0 + timedelta(minutes=i))
                    assert mem.search("shared", "Where did Alice Moreau fly?")
                return True

            assert run_together(writer, count=4) == [True] * 4
            _every_operation(one, "pooled")
            names = [e.name for e in one.list_entities("shared")]
    assert sorted(names) == sorted(set(names))
    assert {"Alice Moreau", "Bob Kitano", "Orbital Labs", "Lisbon"} <= set(names)
    assert graph_problems(db_url, "shared") == []
