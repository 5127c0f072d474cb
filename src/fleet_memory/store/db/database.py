"""The connection pool. Every connection gets pgvector's types registered; every transaction turns
the HNSW iterative scan on (so filtered vector queries still return enough rows).

No session state outlives a transaction, so the pool works through PgBouncer in transaction
pooling mode, where consecutive transactions of one client may run on different server
connections: settings are transaction-local (``SET LOCAL``; the pool's are set at the start of
each transaction, one statement), advisory locks are transaction-level (``pg_advisory_xact_lock``), server cursors live inside
their transaction, and nothing uses LISTEN or temporary tables. Prepared statements are the one
exception PgBouncer before 1.21 cannot carry: ``prepared_statements=False`` makes psycopg send
every statement unnamed (``prepare_threshold=None``). ``tests/integration/fleet/test_pooling.py``
checks all of this against real server sessions, and through a real PgBouncer where installed.

A connection that breaks inside a transaction (the server stopped, the backend was terminated,
none could be had in time) surfaces as ``DatabaseUnavailableError``, so every front door reports
it as such.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout, TooManyRequests

from ...errors import DatabaseError, DatabaseUnavailableError

from . import migrations
from .server import check_reachable, embedded_url, mask_url

__all__ = ["CANDIDATE_EF_SEARCH", "DISTRIBUTED_SETTINGS", "RECALL_EF_SEARCH", "Database", "cached_plans", "index_order",
           "lock_timeout"]

_log = logging.getLogger(__name__)


RECALL_EF_SEARCH = 100
"""``hnsw.ef_search`` of every transaction: recall's filtered, iterative scans of an agent's index."""

TRANSACTION_SETTINGS = ("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
                        f" set_config('hnsw.ef_search', '{RECALL_EF_SEARCH}', true),"
                        " set_config('max_parallel_workers_per_gather', '0', true),"
                        " set_config('plan_cache_mode', 'force_custom_plan', true)")
"""Run at the start of every transaction (one statement, the same as ``SET LOCAL``): settings that
end with the transaction, never session state. Parallel plans are off: the statements here are a
handful of index lookups each, and starting parallel workers for one (several ms on a small
machine) costs more than it could save. Plans are custom: every statement names one agent, and
the best plan depends on which (a 100-unit agent is scanned exactly, a 50,000-unit one reads its
own indexes, ``store.db.agent_indexes``); a cached generic plan is made for no agent in particular
and cannot use an agent's partial index. Bulk inserts lift that for their foreign-key checks
(``cached_plans``)."""


@contextmanager
def cached_plans(conn: psycopg.Connection) -> Iterator[None]:
    """Inside: statements keep cached plans, for the foreign-key checks of a bulk insert (one
    primary-key probe each, the same plan for every agent). Under the transaction's custom plans
    every check was planned afresh: 153 µs each, 5.4 of the 5.6 s that 17,744 link rows took to
    insert in a store of three LoCoMo conversations (0.2 s with cached plans). Custom plans come
    back after the block; on an error the transaction is lost anyway."""
    conn.execute("SELECT set_config('plan_cache_mode', 'auto', true)")
    yield
    conn.execute("SELECT set_config('plan_cache_mode', 'force_custom_plan', true)")


CANDIDATE_EF_SEARCH = 40
"""``hnsw.ef_search`` for ingestion's nearest-unit statements (semantic links, supersession
candidates), pgvector's default; recall's transactions use ``RECALL_EF_SEARCH``.
Measured on two agents' own indexes, top 5 of 400 units: the same pairs as with 100 (0.998 of the
exact ones on 2,900 long-turn units, 0.909 against 0.910 on the 10,000 generated units of
``bench/latency.py``, whose templated texts tie), in 0.8–1.1 against 1.1–1.7 ms a unit."""


@contextmanager
def index_order(conn: psycopg.Connection, ef_search: int = CANDIDATE_EF_SEARCH) -> Iterator[None]:
    """Inside: the planner takes an HNSW index's order (sorting is off: an exact sort looks cheaper
    to it for a LATERAL top k), with ``ef_search`` candidates. Restored after the block; on an
    error the transaction is lost anyway. ``SET LOCAL`` statements (one round trip), not
    ``set_config``: on a Citus coordinator a transaction of ``Database`` propagates them to the
    workers, whose planners plan the shards' statements (``DISTRIBUTED_SETTINGS``)."""
    _set_local(conn, {"enable_sort": "off", "hnsw.ef_search": str(int(ef_search))})
    yield
    _set_local(conn, {"enable_sort": "on", "hnsw.ef_search": str(RECALL_EF_SEARCH)})


def _set_local(conn: psycopg.Connection, settings: dict[str, str]) -> None:
    """``SET LOCAL name = value`` for each, sent together (a pipeline: one round trip)."""
    with conn.pipeline():
        for name, value in settings.items():
            conn.execute(sql.SQL("SET LOCAL {} = {}").format(sql.Identifier(*name.split(".")), sql.Literal(value)))


DISTRIBUTED_SETTINGS = {"citus.propagate_set_commands": "local", "hnsw.iterative_scan": "relaxed_order",
                        "hnsw.ef_search": str(RECALL_EF_SEARCH), "max_parallel_workers_per_gather": "0"}
"""On a Citus coordinator, after ``TRANSACTION_SETTINGS``: ``set_config`` sets a value on the
coordinator only, while a shard's statement is planned and run on its worker, with the worker's
defaults (pgvector's: no iterative scan, 40 candidates; so a large agent's filtered vector
statements could return fewer rows than asked, and ingestion's ``index_order`` would not hold).
``SET LOCAL`` with ``citus.propagate_set_commands = 'local'`` is sent to the workers the
transaction uses (at their ``BEGIN``), so every node runs the transaction with the same settings
and no worker needs them in its configuration. Plan caching and the statement timeout stay the
coordinator's (it plans and cancels)."""


def lock_timeout(conn: psycopg.Connection, timeout: str) -> None:
    """Until the transaction ends, a statement that waits longer than ``timeout`` ("100ms") for a
    lock fails instead of waiting on."""
    conn.execute("SELECT set_config('lock_timeout', %s, true)", (timeout,))


POOL_WAIT_S = 30.0
"""How long a transaction waits for a pooled connection at most."""

PROBE_AFTER_S = 2.0
"""After this long without a pooled connection, ``Database.transaction`` checks the database directly."""

SPARE_WAIT_S = 0.002
"""How long ``Database.spare`` waits for a ready connection before answering None."""


def _configure(conn: psycopg.Connection) -> None:
    register_vector(conn)
    conn.commit()


class Database:
    """A pool over one database, migrated to the latest schema when opened."""

    def __init__(self, url: str, *, embedded: bool, min_size: int = 1, max_size: int = 8,
                 prepared_statements: bool = True, statement_timeout_s: float = 0.0) -> None:
        self.url = url
        self.statement_timeout_s = statement_timeout_s
        self._settings = TRANSACTION_SETTINGS + (
            f", set_config('statement_timeout', '{round(statement_timeout_s * 1000)}', true)")
        self.embedded = embedded
        self.prepared_statements = prepared_statements
        self.distributed = False  # a Citus coordinator (``open`` asks): see ``generic_plans``
        kwargs: dict = {"autocommit": False}
        if not prepared_statements:
            kwargs["prepare_threshold"] = None
        self._pool = ConnectionPool(url, min_size=min_size, max_size=max_size, configure=_configure, open=False,
                                    kwargs=kwargs)

    @classmethod
    def open(
        cls,
        *,
        url: str | None,
        home: Path,
        embedding_dim: int,
        min_size: int = 1,
        max_size: int = 8,
        shared_buffers_mb: int | None = None,
        prepared_statements: bool = True,
        statement_timeout_s: float = 0.0,
    ) -> Database:
        """``shared_buffers_mb`` applies to the embedded server only (None: sized to the machine);
        ``prepared_statements=False`` for a pooler that cannot carry them (PgBouncer < 1.21);
        ``statement_timeout_s``: the longest any one statement of a transaction may run (0: no
        limit), so no request holds a connection without bound."""
        embedded = url is None
        if embedded:
            url = embedded_url(home, shared_buffers_mb=shared_buffers_mb)
        else:
            check_reachable(url)
        with psycopg.connect(url, autocommit=True) as conn:
            applied = migrations.migrate(conn, embedding_dim)
            distributed = conn.execute(
                "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')").fetchone()[0]
        if applied:
            _log.info("applied migrations %s to %s", applied, mask_url(url))
        db = cls(url, embedded=embedded, min_size=min_size, max_size=max_size,
                 prepared_statements=prepared_statements, statement_timeout_s=statement_timeout_s)
        db.distributed = distributed
        db._pool.open(wait=True, timeout=30)
        return db

    @property
    def generic_plans(self) -> bool:
        """May a transaction ask for generic plans (``plan_cache_mode``) of the statements it
        prepares? Only named (prepared) statements keep a plan; and a Citus coordinator plans a
        generic statement that joins tables or has a CTE not at all ("could not create distributed
        plan"): it routes a statement by the agent_id value, which a generic plan does not have."""
        return self.prepared_statements and not self.distributed

    @property
    def display_url(self) -> str:
        return mask_url(self.url)

    def _unavailable(self, exc: Exception) -> DatabaseUnavailableError:
        """What a front door reports for a failed connection, with the server's first line."""
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return DatabaseUnavailableError(f"the database at {self.display_url} failed: {reason}")

    def _failed(self, exc: Exception) -> DatabaseError:
        """A cancelled statement (the statement timeout) or an unreachable database."""
        if isinstance(exc, psycopg.errors.QueryCanceled):
            return DatabaseError(f"a statement ran past the statement timeout ({self.statement_timeout_s:g} s) and was"
                                 " cancelled; the request was rolled back (Config.statement_timeout_s)")
        return self._unavailable(exc)

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A connection inside one transaction: committed on success, rolled back on any error."""
        try:
            conn = self._connection()
            try:
                with conn:  # commits, or rolls back on an error; a pooled connection stays open
                    self._begin(conn)
                    yield conn
            finally:
                self._pool.putconn(conn)
        except (psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout) as exc:
            raise self._failed(exc) from exc

    def _begin(self, conn: psycopg.Connection) -> None:
        """The transaction's settings; on a Citus coordinator carried to the workers too
        (``DISTRIBUTED_SETTINGS``), in the same round trip."""
        if not self.distributed:
            conn.execute(self._settings)
            return
        with conn.pipeline():
            conn.execute(self._settings)
            _set_local(conn, DISTRIBUTED_SETTINGS)

    def _connection(self) -> psycopg.Connection:
        """A pooled connection. When none comes within ``PROBE_AFTER_S``, one direct connection
        tells a busy pool (wait on, up to ``POOL_WAIT_S``) from a database that is gone (its
        one-line ``DatabaseUnavailableError`` now, rather than after the pool's whole wait with a
        warning for every attempt to reconnect)."""
        try:
            return self._pool.getconn(timeout=PROBE_AFTER_S)
        except PoolTimeout:
            check_reachable(self.url, timeout_s=5)
        return self._pool.getconn(timeout=POOL_WAIT_S)

    @contextmanager
    def spare(self, wait_s: float | None = None) -> Iterator[psycopg.Connection | None]:
        """A second connection in a transaction of its own, for a read that runs beside the
        caller's transaction, or None when the pool has none ready within ``SPARE_WAIT_S`` (the
        caller then runs the read itself). Never waits longer: a caller holding one connection
        that waited for a second could deadlock with others doing the same on a full pool.
        ``wait_s``: another bound, only for a read handed over by a caller that holds no
        connection (a put's reads while it still parses and embeds)."""
        try:
            conn = self._pool.getconn(timeout=SPARE_WAIT_S if wait_s is None else wait_s)
        except (PoolTimeout, TooManyRequests, PoolClosed):
            conn = None
        if conn is None:
            yield None
            return
        try:
            self._begin(conn)
            yield conn
            conn.commit()
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise self._failed(exc) from exc
        finally:
            try:
                if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.rollback()
            except psycopg.Error:
                pass  # a broken connection: the pool discards it
            self._pool.putconn(conn)

    @contextmanager
    def autocommit(self) -> Iterator[psycopg.Connection]:
        """A connection of its own in autocommit mode, outside the pool, for statements that cannot
        run inside a transaction (concurrent index builds, ``store.db.agent_indexes``)."""
        try:
            with psycopg.connect(self.url, autocommit=True) as conn:
                yield conn
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise self._unavailable(exc) from exc

    def close(self) -> None:
        self._pool.close()
