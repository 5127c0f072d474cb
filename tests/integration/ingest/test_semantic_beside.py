"""A put's semantic link candidates: the nearest STORED units read beside the put's transaction on
a spare connection while it writes (``Neighbours.of_rest``) or, for an agent searched through its
own index, window by window while the put still parses and embeds (``Neighbours.of_window``), the
batch's own in memory (``store.linking.semantic.nearest_of_both``), give the graph one search in the
transaction gives. Real embedded PostgreSQL, hashing embedder."""

from __future__ import annotations

import threading
from concurrent.futures import Future
import uuid
from datetime import timedelta

import psycopg
import pytest

from fleet_memory.ingest import nearby, pipeline
from fleet_memory.store.db import database
from fleet_memory.store.db import planner
from fleet_memory.store.db.beside import Beside
from fleet_memory.store.linking import links as link_sql
from fleet_memory.store.linking import semantic as sem_sql
from fleet_memory.store.linking.embedding_cache import EmbeddingCache

from .graphs import stored_graph

TOPICS = ["hiking in the mountains near the lake", "the quarterly budget report for the board",
          "baking sourdough bread at home", "a jazz concert in the old town"]


def _items(start: int, n: int, when) -> list[dict]:
    return [{"content": f"Person {i} talked about {TOPICS[i % 4]} on day {i // 4}.", "event_date": when}
            for i in range(start, start + n)]


def _graph(db_url, agent) -> list[tuple]:
    return sorted(stored_graph(db_url, agent))


def _spied_searches(monkeypatch) -> list[tuple[str, str, int]]:
    """Every search of stored neighbours, as (agent, thread, units asked): the reads beside run it
    in the ``fleet-memory-put-beside`` threads, the link stage's own search in the caller's."""
    monkeypatch.setattr(database, "SPARE_WAIT_S", 5.0)  # the pool opens a spare connection in time
    # a window's read too, on a loaded machine (three make check workers on two cores took over 0.25 s)
    monkeypatch.setattr(nearby, "NEARBY_CONNECTION_WAIT_S", 5.0)
    searched: list[tuple[str, str, int]] = []
    real_search = sem_sql.semantic_candidates

    def semantic_candidates(conn, agent_id, units, **kw):
        searched.append((agent_id, threading.current_thread().name, len(units)))
        return real_search(conn, agent_id, units, **kw)

    monkeypatch.setattr(nearby, "semantic_candidates", semantic_candidates)  # the reads beside
    monkeypatch.setattr(sem_sql, "semantic_candidates", semantic_candidates)  # the search in the transaction
    return searched


@pytest.mark.parametrize(("batch", "held"), [(40, True), (10, True), (10, False)],
                         ids=["a batch in memory", "a few units in memory", "a few units in SQL"])
def test_stored_neighbours_read_beside_give_the_graph_of_one_search(memory, clock, db_url, monkeypatch, batch, held):
    """The same puts into two agents: the stored part read beside, and searched in the transaction
    because the read beside did not run. Batches of 40 (matrix products both ways) and 10: read
    beside in memory, as once the agent's embeddings are held, or in SQL, as for an agent asked
    for the first time, while the link stage's own search is in SQL; with one sentence repeated in
    the stored units and the batch (equal similarities), among templated texts whose similarities
    nearly tie (float32 and float64 cosines rank them differently)."""
    searched = _spied_searches(monkeypatch)
    if not held:
        monkeypatch.setattr(EmbeddingCache, "wanted", lambda self, agent_id, units, dimension: False)
    when = clock.now()
    repeated = {"content": "Person 1 talked about hiking in the mountains near the lake on day 0.", "event_date": when}
    for agent in ("beside", "in-transaction"):
        with monkeypatch.context() as m:
            if agent == "in-transaction":  # the read beside did not run: the link stage searches
                m.setattr(Beside, "awaited", staticmethod(lambda future, wait_s: None))
            memory.put_many(_items(0, 40, when - timedelta(hours=1)), agent_id=agent)  # stored first
            memory.put_many(_items(40, batch - 1, when) + [repeated], agent_id=agent)
    on_main = {agent for agent, thread, _ in searched if not thread.startswith("fleet-memory-put-beside")}
    assert on_main == {"in-transaction"}
    assert any(agent == "beside" for agent, _, _ in searched)
    beside, in_transaction = _graph(db_url, "beside"), _graph(db_url, "in-transaction")
    assert any(kind == "semantic" for _, _, kind, _ in beside)
    assert beside == in_transaction


def test_a_put_committed_after_the_read_beside_makes_the_link_stage_search_itself(memory, clock, db_url, monkeypatch):
    """The read beside saw fewer units than were stored when this put wrote (another put committed
    in between): it is not used; the link stage searches, and the graph is the same."""
    real_counts = planner.unit_counts
    searched = _spied_searches(monkeypatch)
    when = clock.now()
    for agent in ("counted", "missed"):
        with monkeypatch.context() as m:
            if agent == "missed":
                m.setattr(planner, "unit_counts",
                          lambda conn, agents: {a: n - 1 for a, n in real_counts(conn, agents).items()})
            memory.put_many(_items(0, 40, when - timedelta(hours=1)), agent_id=agent)
            searched.clear()
            memory.put_many(_items(40, 40, when), agent_id=agent)
            on_main = [name for _, name, _ in searched if not name.startswith("fleet-memory-put-beside")]
            assert bool(on_main) == (agent == "missed")
    assert _graph(db_url, "counted") == _graph(db_url, "missed")


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


def test_a_large_agent_is_read_window_by_window_and_gets_the_graph_of_one_search(memory, clock, db_url, monkeypatch):
    """An agent whose windows are searched through its own index (``semantic.searched_by_index``,
    said of this small one here) has its stored neighbours read once per window, in the beside
    threads, before the transaction; the graph is the one the search in the transaction gives
    when the reads do not run (both ways exactly, in SQL: batches under ``IN_MEMORY_FROM``). Window
    reads that have not started when the transaction begins are cancelled, their units read with
    the rest of the batch."""
    monkeypatch.setattr(nearby, "searched_by_index", lambda size, batch: size >= 30)
    monkeypatch.setattr(sem_sql, "IN_MEMORY_FROM", 1000)
    searched = _spied_searches(monkeypatch)
    real_submit = Beside.submit

    def never_started(self, read, connection_wait_s=None):  # window reads stay queued
        return Future() if connection_wait_s == nearby.NEARBY_CONNECTION_WAIT_S else real_submit(self, read)

    when = clock.now()
    for agent in ("windows", "in-transaction", "not started"):
        with monkeypatch.context() as m:
            if agent == "in-transaction":
                m.setattr(Beside, "awaited", staticmethod(lambda future, wait_s: None))
            if agent == "not started":
                m.setattr(Beside, "submit", never_started)
            memory.put_many(_items(0, 40, when - timedelta(hours=1)), agent_id=agent)  # stored first
            searched.clear()
            memory.put_many(_items(40, 45, when), agent_id=agent)  # three windows of 15
        beside = [n for a, thread, n in searched if thread.startswith("fleet-memory-put-beside")]
        on_main = [n for a, thread, n in searched if not thread.startswith("fleet-memory-put-beside")]
        assert sum(beside) == 45  # every new unit once: a read per window, or the batch for those not started
        # one read per window, fewer when some had not started as the transaction began: the batch
        assert len(beside) == 1 if agent == "not started" else 1 <= len(beside) <= 3
        assert on_main == ([45] if agent == "in-transaction" else [])
    assert _graph(db_url, "windows") == _graph(db_url, "in-transaction") == _graph(db_url, "not started")
    assert any(kind == "semantic" for _, _, kind, _ in _graph(db_url, "windows"))


def test_windows_read_and_not_read_beside_still_give_every_new_unit_its_stored_neighbours(memory, clock, db_url,
                                                                                          monkeypatch):
    """The rule weighs each window's size: for an agent of a few thousand units some windows of a
    put may be read beside and others not. Those others are read for the whole rest of the batch
    (``Neighbours.of_rest``), and the graph is the one the search in the transaction gives."""
    monkeypatch.setattr(nearby, "searched_by_index", lambda size, batch: size >= 30 and batch < 14)
    monkeypatch.setattr(sem_sql, "IN_MEMORY_FROM", 1000)
    searched = _spied_searches(monkeypatch)
    when = clock.now()
    for agent in ("mixed", "in-transaction"):
        with monkeypatch.context() as m:
            if agent == "in-transaction":
                m.setattr(Beside, "awaited", staticmethod(lambda future, wait_s: None))
            memory.put_many(_items(0, 40, when - timedelta(hours=1)), agent_id=agent)  # stored first
            searched.clear()
            memory.put_many(_items(40, 40, when), agent_id=agent)  # windows of 13, 13 and 14
        beside = [n for _, thread, n in searched if thread.startswith("fleet-memory-put-beside")]
        on_main = [n for _, thread, n in searched if not thread.startswith("fleet-memory-put-beside")]
        # two windows read alone, the third with what is left (and with a window read not started yet)
        assert sum(beside) == 40 and len(beside) >= 2 and (14 in beside or 27 in beside)
        assert on_main == ([40] if agent == "in-transaction" else [])
    assert _graph(db_url, "mixed") == _graph(db_url, "in-transaction")


def test_reads_not_started_are_cancelled_when_the_put_fails(memory, clock, monkeypatch):
    """The reads a put handed to spare connections that have not started when a later step fails
    are cancelled (the put will not use them); one that has answered is left as it is."""
    monkeypatch.setattr(nearby, "searched_by_index", lambda size, batch: True)  # a read per window too
    handed: list[Future] = []

    def queued(self, read, connection_wait_s=None):  # the first answered, the others never started
        future: Future = Future()
        if not handed:
            future.set_result(None)
        handed.append(future)
        return future

    def write_put(*args, **kwargs):
        raise RuntimeError("write step failed")

    monkeypatch.setattr(Beside, "submit", queued)
    monkeypatch.setattr(pipeline, "write_put", write_put)
    with pytest.raises(RuntimeError, match="write step failed"):
        memory.put_many(_items(0, 45, clock.now()), agent_id="a1")  # three windows of 15
    # a read per window; the two not started are cancelled as the transaction begins and their units
    # read with the rest of the batch, which the failed write leaves unstarted: cancelled with the put
    assert len(handed) == 4
    assert not handed[0].cancelled() and all(f.cancelled() for f in handed[1:])
