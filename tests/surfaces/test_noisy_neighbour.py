"""One agent's writes cannot take the connection pool from the others.

An agent's puts serialise on its row of the term statistics inside PostgreSQL. Here the test holds
that row (as a very large put in its database phase would) while ten small puts of the same agent arrive at a
real server with a pool of four connections: they wait for the agent's turn holding no connection
(``fleet_memory.turns``), those beyond the waiting limit are refused with 429 and ``Retry-After``,
and another agent's search answers meanwhile. Before the gate, the queued puts held every pooled
connection and the other agent's search answered 503 after the pool's 30 s timeout.

A statement that runs past ``Config.statement_timeout_s`` is cancelled and the request answers a
clear database error, with nothing written."""

from __future__ import annotations

import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, wait

import httpx
import psycopg
import pytest

from fleet_memory import Config, FixedClock, FleetMemory
from fleet_memory.errors import DatabaseError
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support.servers import real_server

NOISY, QUIET = "noisy", "quiet"


@pytest.fixture
def small_pool(db_url):
    config = Config(database_url=db_url, pool_min_size=1, pool_max_size=4, waiting_writes_per_agent=6)
    with FleetMemory(config, embedder=HashingEmbedder(), clock=FixedClock()) as memory:
        memory.put(QUIET, "Dana keeps the spare keys in the blue drawer.")
        memory.put(NOISY, "Evan plans the offsite in Porto.")
        with real_server(memory) as url:
            yield memory, url, db_url


def _lock_waiters(conn: psycopg.Connection, holder: psycopg.Connection) -> int:
    """Sessions waiting for a lock the holder has (any lock wait counted once took a passing wait
    of another session for a put at the agent's lock, before any put had arrived)."""
    return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        " AND %s = ANY(pg_blocking_pids(pid))", (holder.info.backend_pid,)).fetchone()[0]


def _hold_the_agents_writes(conn: psycopg.Connection, agent_id: str) -> None:
    """What a put in its database phase holds until it commits: the agent's row of the term
    statistics (every put counts its units there)."""
    assert conn.execute("SELECT 1 FROM term_df WHERE agent_id = %s AND lexeme = '' FOR UPDATE",
                        (agent_id,)).fetchone()


def _what_happened(puts, watcher: psycopg.Connection) -> str:
    """For a failure's message: what the puts answered so far and what the database's sessions do."""
    answered = [repr(f.exception()) if f.exception() else f"{f.result().status_code} {f.result().text[:200]}"
                for f in puts if f.done()]
    sessions = watcher.execute("SELECT state, wait_event_type, wait_event, backend_type, left(query, 100)"
                               " FROM pg_stat_activity"
                               " WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchall()
    return f"{len(puts) - len(answered)} puts unanswered, answers {answered}; sessions {sessions}; {_stacks()}"


def _stacks() -> str:
    """Where this process's threads are (the server runs in a thread here), innermost frame first."""
    found = []
    for ident, frame in sys._current_frames().items():
        stack = traceback.extract_stack(frame)
        found.append(f"thread {ident}: " + " <- ".join(f"{f.filename.rsplit('/', 2)[-2:]}:{f.name}:{f.lineno}"
                                                       for f in reversed(stack[-10:])))
    return "threads: " + " || ".join(found)


def test_queued_writes_of_one_agent_leave_the_pool_to_the_others(small_pool):
    memory, url, db_url = small_pool
    key, _ = memory.create_api_key("admin", admin=True)
    headers = {"Authorization": f"Bearer {key}"}
    with psycopg.connect(db_url) as holder, psycopg.connect(db_url, autocommit=True) as watcher:
        _hold_the_agents_writes(holder, NOISY)
        with httpx.Client(base_url=url, headers=headers, timeout=120) as http, ThreadPoolExecutor(10) as pool:
            puts = [pool.submit(http.post, f"/v1/agents/{NOISY}/memories",
                                json={"content": f"Fay moved desk number {i} to the third floor."})
                    for i in range(10)]
            deadline = time.monotonic() + 180  # the first put parses its text first (a loaded machine is slow)
            while _lock_waiters(watcher, holder) == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            waited = 180 - (deadline - time.monotonic())
            assert _lock_waiters(watcher, holder) >= 1, \
                f"no put at the agent's lock after {waited:.1f} s: {_what_happened(puts, watcher)}"
            time.sleep(1.5)  # the other puts arrive: queued for their turn, or refused
            # one put of the agent at the lock, the rest hold no connection
            assert _lock_waiters(watcher, holder) == 1, _what_happened(puts, watcher)
            search = http.post(f"/v1/agents/{QUIET}/search", json={"query": "spare keys"}, timeout=15)
            assert search.status_code == 200, search.text
            assert search.json()["results"], "the other agent's search found nothing"
            holder.commit()  # the "large put" ends
            done, _ = wait(puts, timeout=120)
            assert len(done) == len(puts), f"puts still running after the commit: {_what_happened(puts, watcher)}"
            answers = [f.result() for f in puts]
    statuses = sorted(a.status_code for a in answers)
    assert set(statuses) <= {201, 429}, statuses
    assert statuses.count(201) >= 7  # one running and six waiting get their turn
    for refused in (a for a in answers if a.status_code == 429):
        assert int(refused.headers["retry-after"]) >= 1


def test_a_statement_past_the_timeout_is_cancelled_and_nothing_is_written(db_url):
    config = Config(database_url=db_url, statement_timeout_s=0.5)
    with FleetMemory(config, embedder=HashingEmbedder(), clock=FixedClock()) as memory:
        memory.put("a", "Gus waters the ferns on Mondays.")
        before = memory.stats("a").units
        with psycopg.connect(db_url) as holder:
            _hold_the_agents_writes(holder, "a")
            with pytest.raises(DatabaseError, match="statement timeout"):
                memory.put("a", "Hal repaints the fence in June.")
        assert memory.stats("a").units == before
