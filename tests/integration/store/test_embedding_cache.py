"""The embeddings held between puts (``store.linking.embedding_cache``) are always what reading every
stored unit gives: after new units, deletions, a unit committed out of order, and beside another
answer that still uses the same buffer. Which agents a read for a few units takes through it, and
the index its reads of seqs use."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import numpy as np
import psycopg

from fleet_memory.store.linking import embedding_cache
from fleet_memory.store.linking.embedding_cache import EmbeddingCache, _room, read_embeddings
from fleet_memory.store.linking.semantic import unit_rows
from fleet_memory.store.tables import documents as doc_sql
from fleet_memory.store.tables import supersession as sup_sql
from fleet_memory.store.tables import units as unit_sql

AGENT = "held"


def _everything(conn, agent: str) -> tuple[list[int], list, np.ndarray]:
    rows = conn.execute("SELECT seq, id, embedding FROM memory_units WHERE agent_id = %s ORDER BY seq",
                        (agent,)).fetchall()
    vectors = np.asarray([r[2].to_numpy().astype(np.float32) for r in rows]) if rows else np.zeros((0, 0))
    return [r[0] for r in rows], [r[1] for r in rows], vectors


def _assert_current(conn, cache: EmbeddingCache, agent: str = AGENT):
    from pgvector.psycopg import register_vector

    register_vector(conn)
    held = cache.rows(conn, agent, unit_rows)
    seqs, ids, vectors = _everything(conn, agent)
    assert held.seqs.tolist() == seqs and held.ids == ids and held.count == len(ids)
    if ids:
        assert np.array_equal(held.rows, unit_rows(vectors))
    return held


def _put(memory, *texts: str) -> list:
    return [u.id for t in texts for u in memory.put(AGENT, t).units]


def test_the_held_rows_follow_every_change(memory, db_url) -> None:
    cache = EmbeddingCache()
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert _assert_current(conn, cache).count == 0  # an agent with nothing stored
        first = _put(memory, "Alice adopted a grey cat named Pixel.", "Bob repairs old bicycles in Lisbon.")
        one = _assert_current(conn, cache)
        _put(memory, "Carmen teaches piano on weekends.")
        two = _assert_current(conn, cache)
        assert two.buffer is one.buffer, "a new unit is appended in place, not copied with the rest"
        assert one.rows.shape[0] == 2, "an earlier answer still sees its own rows"
        memory.delete(AGENT, first[0])
        three = _assert_current(conn, cache)
        assert three.buffer is not two.buffer and three.count == 2
        assert two.count == 3 and two.rows.shape[0] == 3  # untouched by the deletion's copy
        # a unit committed after a later one: a seq below the newest held, never held: everything is read
        late = _put(memory, "Dmitri sings in a choir.")
        conn.execute("UPDATE memory_units SET seq = -5 WHERE agent_id = %s AND id = %s", (AGENT, late[0]))
        four = _assert_current(conn, cache)
        assert four.ids[0] == late[0] and four.buffer is not three.buffer


def test_two_answers_from_one_held_entry_never_write_over_each_other(memory, db_url) -> None:
    cache = EmbeddingCache()
    with psycopg.connect(db_url, autocommit=True) as conn:
        _put(memory, "Alice adopted a grey cat named Pixel.")
        held = _assert_current(conn, cache)
        _put(memory, "Bob repairs old bicycles in Lisbon.")
        after = int(held.seqs[-1])
        first = cache._merged(held, read_embeddings(conn, AGENT, after), after, unit_rows)
        seen = first.rows.copy()
        _put(memory, "Carmen teaches piano on weekends.")
        second = cache._merged(held, read_embeddings(conn, AGENT, after), after, unit_rows)  # the same held entry
        assert first.buffer is held.buffer and second.buffer is not held.buffer  # its room was taken: a copy
        assert first.count == 2 and second.count == 3
        assert np.array_equal(first.rows, seen), "the second answer wrote over the first one's rows"
        assert np.array_equal(second.rows[:2], seen)


def test_at_most_max_bytes_are_held(memory, db_url) -> None:
    texts = [f"Person {i} moved to city number {i}." for i in range(6)]
    with psycopg.connect(db_url, autocommit=True) as conn:
        for agent in ("a1", "a2", "a3"):
            for t in texts[:3]:
                memory.put(agent, t)
        held_bytes = _room(3) * memory.embedder.dimension * 8  # three units, with room to grow
        cache = EmbeddingCache(max_bytes=2 * held_bytes)
        for agent in ("a1", "a2", "a3"):
            cache.rows(conn, agent, unit_rows)
        assert list(cache._held) == ["a2", "a3"]  # the least recently used went
        assert _assert_current(conn, cache, "a1").count == 3  # read again in full, still right


def test_a_few_units_go_through_it_from_the_second_ask_or_once_held(memory, db_url, monkeypatch) -> None:
    monkeypatch.setattr(embedding_cache, "ASKED", 2)
    cache = EmbeddingCache()
    assert not cache.wanted("a1", 100, 384), "asked once: not read whole for it"
    assert cache.wanted("a1", 100, 384), "asked again: read through the cache"
    assert not cache.wanted("b", 100, 384) and not cache.wanted("c", 100, 384) and not cache.wanted("d", 100, 384)
    assert not cache.wanted("b", 100, 384), "forgotten: more than ASKED other agents were asked since"
    memory.put("held", "Alice adopted a grey cat named Pixel.")
    with psycopg.connect(db_url, autocommit=True) as conn:
        cache.rows(conn, "held", unit_rows)  # a batch's read: held from now on
    assert cache.wanted("held", 1, 384) and cache.wanted("held", 1, 384)


def test_a_few_units_push_no_other_agent_out(memory, db_url) -> None:
    memory.put("held", "Alice adopted a grey cat named Pixel.")
    cache = EmbeddingCache(max_bytes=(_room(1) + _room(1_000)) * memory.embedder.dimension * 8)
    with psycopg.connect(db_url, autocommit=True) as conn:
        cache.rows(conn, "held", unit_rows)
    big, fits = 1_001, 1_000  # rows of an agent asked for: one more than the room left, and as many
    assert not cache.wanted("other", big, 384) and not cache.wanted("other", big, 384), "it would push 'held' out"
    assert cache.wanted("other", fits, 384), "asked before, and it fits beside 'held'"
    assert list(cache._held) == ["held"]


def test_the_seqs_come_from_the_index_alone(memory, db_url) -> None:
    memory.put_many([{"content": f"Person {i} moved to city number {i}."} for i in range(20)], agent_id=AGENT)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("VACUUM memory_units")  # the visibility map: what an index-only scan needs
        conn.execute("SET enable_seqscan = off")  # a table this small is otherwise read whole
        plan = "\n".join(row[0] for row in conn.execute(
            "EXPLAIN " + embedding_cache._ROWS, {"a": AGENT, "after": 0}).fetchall())
    assert "Index Only Scan using memory_units_seq_idx" in plan, plan


def test_supersession_candidates_from_the_held_embeddings_are_those_of_the_scan_in_sql(memory, db_url) -> None:
    """Inside a put's transaction (its own units visible), after a deletion and an archival, with
    templated texts whose cosines nearly tie and one repeated: the candidates found in memory from
    the held embeddings are the scan's in SQL, unit for unit, cosine for cosine; and more archived
    units than ``SPARE`` among a unit's best send the search to SQL."""
    from pgvector.psycopg import register_vector

    topics = ["works at a bakery in Lisbon", "moved to Porto last spring", "plays the cello on Sundays"]
    texts = [f"Person {i} {topics[i % 3]}." for i in range(60)] + ["Person 1 moved to Porto last spring."]
    ids = [r.unit_ids[0] for r in memory.put_many([{"content": t} for t in texts], agent_id=AGENT)]
    memory.delete(AGENT, ids[4])
    cache = EmbeddingCache()
    with psycopg.connect(db_url, autocommit=True) as conn:
        register_vector(conn)
        cache.rows(conn, AGENT, unit_rows)  # held as of now
        conn.execute("UPDATE memory_units SET archived_at = now() WHERE agent_id = %s AND id = ANY(%s)",
                     (AGENT, [ids[7], ids[10]]))
        with conn.transaction():  # a put's own units, uncommitted, are candidates too
            extra = [f"Person {i} moved to Porto last spring." for i in (70, 71)]
            vectors = memory.embedder.embed(extra + ["Person 2 moved to Porto in May."])
            now = datetime.now(timezone.utc)
            doc = uuid.uuid4()
            doc_sql.insert_documents(conn, [doc_sql.NewDocument(doc, AGENT, "x", now, now)])
            new_ids = [uuid.uuid4() for _ in range(3)]
            unit_sql.insert_units(conn, [unit_sql.NewUnit(i, AGENT, t, v, now, now, document_id=doc)
                                         for i, t, v in zip(new_ids, extra + ["Person 2 moved to Porto in May."],
                                                             vectors)])
            new = list(zip(new_ids, vectors))
            args = {"min_similarity": 0.3, "k": 8}
            held = sup_sql.similar_units(conn, AGENT, new, cache=cache, **args)
            in_sql = sup_sql.similar_units(conn, AGENT, new, **args)
            wide = sup_sql.similar_units(conn, AGENT, new, cache=cache, min_similarity=0.3, k=100)
            assert cache.seen(conn, AGENT, unit_rows) is not None  # it did go through memory
            conn.execute("UPDATE memory_units SET archived_at = now() WHERE agent_id = %s AND text LIKE %s",
                         (AGENT, "%moved to Porto%"))
            assert sup_sql._in_memory(conn, AGENT, new, cache.seen(conn, AGENT, unit_rows), **args) is None
            raise psycopg.Rollback()
    as_rows = [(c.new_id, c.unit.id, c.similarity, c.seq) for c in held]
    assert as_rows == [(c.new_id, c.unit.id, c.similarity, c.seq) for c in in_sql]
    assert len(held) == 3 * 8 and not {ids[4], ids[7], ids[10]} & {c.unit.id for c in held}
    assert new_ids[1] in {c.unit.id for c in wide if c.new_id == new_ids[0]}  # the put's own, uncommitted


def test_a_large_batch_into_an_agent_not_held_is_searched_in_memory_as_sql_would(memory, db_url, monkeypatch) -> None:
    """A put of many units into an agent the cache does not hold (a conversation into a new agent):
    its supersession candidates come from one read of the agent's embeddings, the put's own
    uncommitted units among them and an archived unit left out, unit for unit and cosine for cosine
    what the top-k scan per unit in SQL finds."""
    from pgvector.psycopg import register_vector

    topics = ["works at a bakery in Lisbon", "moved to Porto last spring", "plays the cello on Sundays"]
    ids = [r.unit_ids[0] for r in memory.put_many([{"content": f"Person {i} {topics[i % 3]}."} for i in range(30)],
                                                   agent_id=AGENT)]
    texts = [f"Person {i} {topics[i % 3]} now." for i in range(30, 30 + sup_sql.IN_MEMORY_FROM)]
    vectors = memory.embedder.embed(texts)
    whole = []
    monkeypatch.setattr(sup_sql, "seen_whole", lambda *a: whole.append(1) or embedding_cache.seen_whole(*a))
    with psycopg.connect(db_url, autocommit=True) as conn:
        register_vector(conn)
        conn.execute("UPDATE memory_units SET archived_at = now() WHERE agent_id = %s AND id = %s", (AGENT, ids[1]))
        with conn.transaction():
            now = datetime.now(timezone.utc)
            doc = uuid.uuid4()
            doc_sql.insert_documents(conn, [doc_sql.NewDocument(doc, AGENT, "x", now, now)])
            new_ids = [uuid.uuid4() for _ in texts]
            unit_sql.insert_units(conn, [unit_sql.NewUnit(i, AGENT, t, v, now, now, document_id=doc)
                                         for i, t, v in zip(new_ids, texts, vectors)])
            new = list(zip(new_ids, vectors))
            in_memory = sup_sql.similar_units(conn, AGENT, new, min_similarity=0.3, k=8)
            monkeypatch.setattr(sup_sql, "IN_MEMORY_FROM", 10**9)
            in_sql = sup_sql.similar_units(conn, AGENT, new, min_similarity=0.3, k=8)
            raise psycopg.Rollback()
    assert whole == [1]
    as_rows = [(c.new_id, c.unit.id, c.similarity, c.seq) for c in in_memory]
    assert as_rows == [(c.new_id, c.unit.id, c.similarity, c.seq) for c in in_sql]
    assert len(as_rows) == 8 * len(texts) and ids[1] not in {c.unit.id for c in in_memory}
    assert set(new_ids) & {c.unit.id for c in in_memory}  # the put's own units are candidates
