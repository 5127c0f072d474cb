"""The connection pool. Every connection gets pgvector's types registered and the HNSW iterative
scan turned on (so filtered vector queries still return enough rows). A connection that breaks
inside a transaction (the server stopped, the backend was terminated, none could be had in
time) surfaces as ``DatabaseUnavailableError``, so every front door reports it as such."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import DatabaseUnavailableError

from . import migrations
from .server import check_reachable, embedded_url, mask_url

__all__ = ["Database"]

_log = logging.getLogger(__name__)


def _configure(conn: psycopg.Connection) -> None:
    register_vector(conn)
    conn.execute("SET hnsw.iterative_scan = relaxed_order")
    conn.execute("SET hnsw.ef_search = 100")
    conn.commit()


class Database:
    """A pool over one database, migrated to the latest schema when opened."""

    def __init__(self, url: str, *, embedded: bool, min_size: int = 1, max_size: int = 8) -> None:
        self.url = url
        self.embedded = embedded
        self._pool = ConnectionPool(
            url, min_size=min_size, max_size=max_size, configure=_configure, open=False,
            kwargs={"autocommit": False},
        )

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
    ) -> Database:
        """``shared_buffers_mb`` applies to the embedded server only (None: sized to the machine)."""
        embedded = url is None
        if embedded:
            url = embedded_url(home, shared_buffers_mb=shared_buffers_mb)
        else:
            check_reachable(url)
        with psycopg.connect(url, autocommit=True) as conn:
            applied = migrations.migrate(conn, embedding_dim)
        if applied:
            _log.info("applied migrations %s to %s", applied, mask_url(url))
        db = cls(url, embedded=embedded, min_size=min_size, max_size=max_size)
        db._pool.open(wait=True, timeout=30)
        return db

    @property
    def display_url(self) -> str:
        return mask_url(self.url)

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A connection inside one transaction: committed on success, rolled back on any error."""
        try:
            with self._pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout) as exc:
            if isinstance(exc, psycopg.errors.QueryCanceled):
                raise
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise DatabaseUnavailableError(f"the database at {self.display_url} failed: {reason}") from exc

    def close(self) -> None:
        self._pool.close()
