"""A put's semantic link candidates: the nearest STORED units read beside the put's transaction on
a spare connection while it writes, the batch's own in memory (``Ingestor._similar``,
``store.semantic.nearest_of_both``), give the graph one search in the transaction gives. Real
embedded PostgreSQL, hashing embedder."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

import psycopg

from fleet_memory.ingest import pipeline
from fleet_memory.store import database
from fleet_memory.store import links as link_sql
from fleet_memory.store.beside import Beside

TOPICS = ["hiking in the mountains near the lake", "the quarterly budget report for the board",
          "baking sourdough bread at home", "a jazz concert in the old town"]


def _items(start: int, n: int, when) -> list[dict]:
    return [{"content": f"Person {i} talked about {TOPICS[i % 4]} on day {i // 4}.", "event_date": when}
            for i in range(start, start + n)]


def _graph(db_url, agent) -> list[tuple]:
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT u1.text, u2.text, l.kind, l.weight FROM links l"
                            " JOIN memory_units u1 ON u1.agent_id = l.agent_id AND u1.id = l.from_id"
                            " JOIN memory_units u2 ON u2.agent_id = l.agent_id AND u2.id = l.to_id"
                            " WHERE l.agent_id = %s", (agent,)).fetchall()
    return sorted(tuple(sorted(r[:2])) + r[2:] for r in rows)


def test_stored_neighbours_read_beside_give_the_graph_of_one_search(memory, clock, db_url, monkeypatch):
    monkeypatch.setattr(database, "SPARE_WAIT_S", 5.0)  # the pool opens a spare connection in time
    handed: list[tuple[str, bool, str]] = []
    real_link = pipeline.link_units

    def link_units(conn, agent_id, units, config, semantic=None):
        handed.append((agent_id, semantic is not None, threading.current_thread().name))
        return real_link(conn, agent_id, units, config, semantic)

    monkeypatch.setattr(pipeline, "link_units", link_units)
    searched_on: list[str] = []
    real_search = pipeline.semantic_candidates

    def semantic_candidates(conn, agent_id, units, **kw):
        searched_on.append(threading.current_thread().name)
        return real_search(conn, agent_id, units, **kw)

    monkeypatch.setattr(pipeline, "semantic_candidates", semantic_candidates)
    when = clock.now()
    for agent in ("beside", "in-transaction"):
        with monkeypatch.context() as m:
            if agent == "in-transaction":  # the read beside did not run: the link stage searches
                m.setattr(Beside, "outcome", staticmethod(lambda future, wait_s=0.25: None))
            memory.put_many(_items(0, 40, when - timedelta(hours=1)), agent_id=agent)  # stored first
            memory.put_many(_items(40, 40, when), agent_id=agent)
    assert [h[:2] for h in handed] == [("beside", True), ("beside", True),
                                       ("in-transaction", False), ("in-transaction", False)]
    assert searched_on and all(name.startswith("fleet-memory-put-beside") for name in searched_on)
    beside, in_transaction = _graph(db_url, "beside"), _graph(db_url, "in-transaction")
    assert any(kind == "semantic" for _, _, kind, _ in beside)
    assert beside == in_transaction


def test_a_stored_unit_deleted_after_the_read_beside_is_not_linked(memory, clock, db_url):
    """Read on another connection, the stored part can name a unit deleted since: its pair is
    dropped instead of failing the put on the foreign key."""
    results = memory.put_many(_items(0, 6, clock.now()), agent_id="a1")
    ids = [r.unit_ids[0] for r in results]
    gone = uuid.uuid4()
    new = [(ids[0], clock.now(), memory.embedder.embed(["x"])[0])]
    with memory.db.transaction() as conn:
        conn.execute("DELETE FROM links WHERE agent_id = 'a1'")
        link_sql.link_units(conn, "a1", new, memory.config.ingest, [(ids[0], gone, 0.99), (ids[0], ids[1], 0.95)])
    graph = {tuple(sorted((a, b))) for a, b in psycopg.connect(db_url).execute(
        "SELECT from_id, to_id FROM links WHERE agent_id = 'a1' AND kind = 'semantic'").fetchall()}
    assert graph == {tuple(sorted((ids[0], ids[1])))}
