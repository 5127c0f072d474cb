"""Reads beside a search (``recall.beside``): the entity channel on spare connections while the
caller's runs the rest, with the same results as one statement; no spare connection, or none
ready, and the caller runs it itself without waiting on the pool."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

import pytest

from fleet_memory.recall import beside as search_mod
from fleet_memory.store import Database
from fleet_memory.store.db import database
from fleet_memory.store.db.beside import Beside
from fleet_memory.store.reads import candidates as cand_sql

AGENT = "beside"
NOW = datetime(2024, 6, 12, 18, 0, tzinfo=timezone.utc)
QUESTIONS = ["What does Alice do at Google?", "Where did Alice travel with Bob?", "Who works at Google?"]


def _fill(memory) -> None:
    texts = ["Alice works at Google as a software engineer.", "Bob flew to Lisbon with Alice last spring.",
             "Alice adopted a dog named Biscuit.", "Bob is worried about the deadline at Google.",
             "Carmen gave a talk about climate policy in Kyoto.", "Alice and Bob had dinner near the harbour."]
    memory.put_many([{"content": f"{texts[i % len(texts)][:-1]} in week {i}.",
                      "event_date": NOW - timedelta(days=40 - i)} for i in range(36)], agent_id=AGENT)


def _answers(memory) -> list[list[tuple]]:
    out = []
    for q in QUESTIONS:
        results = memory.search(AGENT, q, now=NOW, explain=True, reinforce=False, top_k=10)
        out.append([(r.id, round(r.weight, 9), r.explanation.channels) for r in results])
    return out


@pytest.mark.parametrize("halves", [False, True], ids=["beside", "in two halves"])
def test_the_entity_channel_beside_gives_what_one_statement_gives(memory, monkeypatch, halves) -> None:
    _fill(memory)
    monkeypatch.setattr(search_mod, "SPLIT_ENTITY_MENTIONS", 10**9)
    together = _answers(memory)
    assert any("entity" in channels for answer in together for _, _, channels in answer)

    spares: list[bool] = []
    real_spare = Database.spare

    @contextmanager
    def counted(self, wait_s=None):
        with real_spare(self, wait_s) as conn:
            spares.append(conn is not None)
            yield conn

    sides: list[tuple] = []
    real_entries = cand_sql.entries

    def entries(conn, agent, feats, flt, limits):
        if limits.entity and not limits.vector:
            sides.append((limits.mention_ids, threading.current_thread().name))
        return real_entries(conn, agent, feats, flt, limits)

    monkeypatch.setattr(Database, "spare", counted)
    monkeypatch.setattr(database, "SPARE_WAIT_S", 5.0)  # each read gets its connection: the count below is exact
    # and is waited for even when its worker had not started it yet (a busy machine): the same count
    monkeypatch.setattr(Beside, "outcome", staticmethod(lambda future, wait_s=5.0: Beside.awaited(future, 5.0)))
    monkeypatch.setattr(cand_sql, "entries", entries)
    monkeypatch.setattr(search_mod, "SPLIT_ENTITY_MENTIONS", 1)
    monkeypatch.setattr(search_mod, "HALVES_ENTITY_MENTIONS", 1 if halves else 10**9)
    assert _answers(memory) == together  # the pool opens its spare connections (none was needed yet)
    spares.clear()
    sides.clear()
    assert _answers(memory) == together
    assert spares and any(spares), "reads ran on spare connections"
    assert len(sides) == len(QUESTIONS) * (2 if halves else 1)
    ranges = [r for r, _ in sides]
    assert all((lo is None) != (hi is None) for lo, hi in ranges) if halves else set(ranges) == {(None, None)}
    assert any(thread.startswith("fm-search-beside") for _, thread in sides), "the entity channel ran beside"


def test_without_a_spare_connection_the_caller_runs_it(memory, monkeypatch) -> None:
    _fill(memory)
    monkeypatch.setattr(search_mod, "SPLIT_ENTITY_MENTIONS", 10**9)
    together = _answers(memory)

    @contextmanager
    def none_ready(self, wait_s=None):
        yield None

    monkeypatch.setattr(Database, "spare", none_ready)
    monkeypatch.setattr(search_mod, "SPLIT_ENTITY_MENTIONS", 1)
    monkeypatch.setattr(search_mod, "HALVES_ENTITY_MENTIONS", 1)
    assert _answers(memory) == together


@contextmanager
def _pool_of(url: str, size: int):
    """A ``Database`` over ``url`` with exactly ``size`` connections."""
    db = Database(url, embedded=False, min_size=size, max_size=size)
    db._pool.open(wait=True, timeout=30)
    try:
        yield db
    finally:
        db.close()


def test_spare_never_waits_on_a_full_pool(db_url) -> None:
    with _pool_of(db_url, 1) as db:
        with db.transaction() as conn:
            own_pid = conn.info.backend_pid
            started = time.perf_counter()
            with db.spare() as spare:
                assert spare is None
            assert time.perf_counter() - started < 0.5
        with db.spare() as spare:  # the connection is back: a spare in a transaction of its own
            assert spare is not None and spare.info.backend_pid == own_pid
            assert spare.execute("SELECT current_setting('hnsw.ef_search')").fetchone()[0] == "100"


def test_spare_runs_beside_the_callers_transaction(db_url) -> None:
    with _pool_of(db_url, 2) as db:
        with db.transaction() as conn:
            conn.execute("CREATE TABLE t (x int)")
            seen = []

            def other() -> None:
                with db.spare() as spare:
                    assert spare is not None and spare.info.backend_pid != conn.info.backend_pid
                    seen.append(spare.execute("SELECT to_regclass('t') IS NULL").fetchone()[0])

            thread = threading.Thread(target=other)
            thread.start()
            thread.join(10)
        assert seen == [True], "its own transaction: the caller's uncommitted table is not visible"


def test_a_failed_read_on_the_spare_leaves_the_connection_usable(db_url) -> None:
    import psycopg

    with _pool_of(db_url, 1) as db:
        with pytest.raises(psycopg.errors.UndefinedTable):
            with db.spare() as spare:
                spare.execute("SELECT * FROM no_such_table")
        with db.transaction() as conn:
            assert conn.execute("SELECT 1").fetchone()[0] == 1


def test_parts_of_the_entity_channel_keep_only_the_best_k() -> None:
    from uuid import uuid4

    from fleet_memory.model import MemoryUnit  # noqa: F401  (Candidate's unit type)
    from fleet_memory.store.reads.candidates import Candidate

    class Unit:
        def __init__(self) -> None:
            self.id = uuid4()

    def cand(seq: int, sim: float) -> Candidate:
        return Candidate(Unit(), sim, 0.0, True, seq)  # type: ignore[arg-type]

    a, b, c, d, e = cand(1, 0.9), cand(2, 0.5), cand(3, 0.8), cand(4, 0.4), cand(5, 0.8)
    main = [(a, ["vector"]), (d, ["vector"])]
    first_half = [(a, ["entity"]), (b, ["entity"]), (e, ["entity"])]
    second_half = [(c, ["entity"]), (d, ["entity"])]
    merged = {x.seq: ch for x, ch in search_mod.merged([main, first_half, second_half], entity_k=3)}
    # the best three by similarity (ties by write order): a 0.9, c 0.8, e 0.8; b and d lose "entity"
    assert merged == {1: ["vector", "entity"], 3: ["entity"], 5: ["entity"], 4: ["vector"]}


def test_a_read_that_fails_beside_runs_on_the_callers_connection(memory, monkeypatch) -> None:
    _fill(memory)
    monkeypatch.setattr(search_mod, "SPLIT_ENTITY_MENTIONS", 10**9)
    together = _answers(memory)
    real_spare = Database.spare
    broke: list[int] = []

    @contextmanager
    def broken(self, wait_s=None):
        with real_spare(self, wait_s) as conn:
            if conn is not None:
                conn.close()  # the server went away under this connection
                broke.append(1)
            yield conn

    monkeypatch.setattr(Database, "spare", broken)
    monkeypatch.setattr(search_mod, "SPLIT_ENTITY_MENTIONS", 1)
    assert _answers(memory) == together
    assert broke, "reads beside met a broken connection"


def test_concurrent_searches_on_a_small_pool_all_answer(db_url, clock, monkeypatch) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from fleet_memory import Config, FleetMemory

    from fleet_memory.providers.embedder import HashingEmbedder

    monkeypatch.setattr(search_mod, "SPLIT_ENTITY_MENTIONS", 1)
    monkeypatch.setattr(search_mod, "HALVES_ENTITY_MENTIONS", 1)
    with FleetMemory(Config(database_url=db_url, pool_max_size=2), embedder=HashingEmbedder(), clock=clock) as mem:
        _fill(mem)
        alone = _answers(mem)
        with ThreadPoolExecutor(max_workers=8) as pool:
            started = time.perf_counter()
            got = list(pool.map(lambda _: _answers(mem), range(8)))
        assert all(answer == alone for answer in got)
        assert time.perf_counter() - started < 60


def test_a_fresh_facade_has_two_spare_connections_ready(db_url):
    """The pool opens with ``Config.pool_min_size`` (3) connections, so the first request after a
    start (or after an idle spell, when the pool has closed the rest) finds its two reads beside a
    spare connection each within ``SPARE_WAIT_S``: with one connection opened, a read handed over
    waited 2 ms for a pool still connecting and ran in the caller."""
    from fleet_memory import Config, FleetMemory
    from fleet_memory.providers.embedder import HashingEmbedder

    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder()) as memory:
        with memory.db.transaction(), memory.db.spare() as first, memory.db.spare() as second:
            assert first is not None and second is not None
