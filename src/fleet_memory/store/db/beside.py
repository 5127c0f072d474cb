"""Reads beside a transaction: on a spare connection of the pool, in a worker thread, while the
caller's own connection goes on (``Beside``). A search ranks its large entity channel this way
(``recall.beside``) and reads the features of the units its walk reached before its last hop
(``recall.search``); a put searches its new units' nearest stored units while it parses, embeds
and writes them (``ingest.nearby``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from typing import TypeVar

import psycopg

from ...errors import DatabaseUnavailableError
from .database import Database

__all__ = ["Beside", "WAIT_S"]

T = TypeVar("T")


WAIT_S = 0.25
"""How long a search waits for a read it handed to ``Beside`` once the read has started; then it
runs the read itself. A read beside normally takes milliseconds; it can only wait longer for a
server connection behind a pooler (PgBouncer hands out the client connection at once and queues
the statement) or behind a lock queued after the search's own (a schema change), and waiting
without a bound there would hold the search's connection while the read waits for one."""


class Beside:
    """Reads on a spare connection of the pool, in a worker thread (``Database.spare``). A read
    whose answer is None (``outcome``: no spare connection was ready, the worker had not started it,
    it failed on its connection, or it took longer than the caller waits) is the caller's to run on its
    own connection: a read beside is only ever a head start."""

    def __init__(self, db: Database, workers: ThreadPoolExecutor) -> None:
        self.db, self.workers = db, workers

    def submit(self, read: Callable[[psycopg.Connection], T], connection_wait_s: float | None = None,
               ) -> Future[T | None]:
        """``read`` on a spare connection in a worker thread; ``connection_wait_s``: how long it may
        wait for that connection (``Database.spare``)."""
        try:
            return self.workers.submit(self._run, read, connection_wait_s)
        except RuntimeError:  # shut down (the memory is closing): nothing runs beside
            done: Future[T | None] = Future()
            done.set_result(None)
            return done

    def _run(self, read: Callable[[psycopg.Connection], T], connection_wait_s: float | None) -> T | None:
        try:
            with self.db.spare(connection_wait_s) as conn:
                return None if conn is None else read(conn)
        except (psycopg.OperationalError, DatabaseUnavailableError):
            return None  # a broken spare connection: the caller's is another

    @staticmethod
    def outcome(future: Future[T | None], wait_s: float = WAIT_S) -> T | None:
        """The read's answer, or None when the caller is to run it (see the class docstring):
        ``wait_s``, how long to wait once the read has started."""
        if future.cancel():
            return None
        return Beside.awaited(future, wait_s)

    @staticmethod
    def awaited(future: Future[T | None], wait_s: float) -> T | None:
        """The read's answer, waiting up to ``wait_s`` whether it runs or still waits for a worker
        (a put's reads queue behind each other); None after that, the read cancelled if it had
        not started."""
        try:
            return future.result(timeout=wait_s)
        except FuturesTimeout:
            future.cancel()
            return None

    @staticmethod
    def cancel(futures: Sequence[Future]) -> None:
        """Cancel the reads not started yet (the search failed)."""
        for future in futures:
            future.cancel()
