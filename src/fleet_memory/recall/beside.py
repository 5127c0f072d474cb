"""Entry points read on more than one connection at once: a search's large entity channel is
ranked beside its other channels (``entry_points``), on spare connections of the pool
(``Beside``), and the parts merged (``merged``) into what one statement gives."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import replace
from typing import TypeVar
from uuid import UUID

import psycopg

from ..errors import DatabaseUnavailableError
from ..store import Database, UnitFilter
from ..store import candidates as cand_sql

__all__ = ["Beside", "entry_points", "merged", "SPLIT_ENTITY_MENTIONS", "HALVES_ENTITY_MENTIONS"]


SPLIT_ENTITY_MENTIONS = 300
"""The entity channel runs beside the other channels, on a spare connection (``Beside``), when the
entities the query names have at least this many mentions: ranking them is then the largest part
of the entry statement (about 3 µs a mention, against about 1 ms for the vector channel), and the
statements run on the machine's cores at once. Below, a second transaction costs more than it
saves."""

HALVES_ENTITY_MENTIONS = 2_000
"""From this many mentions, an exactly ranked entity channel is ranked in two halves (mentions
whose unit id is below or above ``_MIDDLE``; unit ids are random UUIDs, so the halves are about
equal), each on its own spare connection, and the best of both kept: the same top k."""

T = TypeVar("T")

_MIDDLE = UUID("80000000-0000-0000-0000-000000000000")

CHANNELS = ("vector", "fulltext", "entity", "time")

Found = list[tuple[cand_sql.Candidate, list[str]]]


WAIT_S = 0.25
"""How long a search waits for a read it handed to ``Beside`` once the read has started; then it
runs the read itself. A read beside normally takes milliseconds; it can only wait longer for a
server connection behind a pooler (PgBouncer hands out the client connection at once and queues
the statement) or behind a lock queued after the search's own (a schema change), and waiting
without a bound there would hold the search's connection while the read waits for one."""


class Beside:
    """Reads on a spare connection of the pool, in a worker thread (``Database.spare``). A read
    whose answer is None (``outcome``: no spare connection was ready, the worker had not started it,
    it failed on its connection, or it took longer than ``WAIT_S``) is the caller's to run on its
    own connection: a read beside is only ever a head start."""

    def __init__(self, db: Database, workers: ThreadPoolExecutor) -> None:
        self.db, self.workers = db, workers

    def submit(self, read: Callable[[psycopg.Connection], T]) -> Future[T | None]:
        try:
            return self.workers.submit(self._run, read)
        except RuntimeError:  # shut down (the memory is closing): nothing runs beside
            done: Future[T | None] = Future()
            done.set_result(None)
            return done

    def _run(self, read: Callable[[psycopg.Connection], T]) -> T | None:
        try:
            with self.db.spare() as conn:
                return None if conn is None else read(conn)
        except psycopg.errors.QueryCanceled:
            raise  # a statement timeout: the caller's own read would meet it too
        except (psycopg.OperationalError, DatabaseUnavailableError):
            return None  # a broken spare connection: the caller's is another

    @staticmethod
    def outcome(future: Future[T | None]) -> T | None:
        """The read's answer, or None when the caller is to run it (see the class docstring)."""
        if future.cancel():
            return None
        try:
            return future.result(timeout=WAIT_S)
        except FuturesTimeout:
            return None

    @staticmethod
    def cancel(futures: Sequence[Future]) -> None:
        """Cancel the reads not started yet (the search failed)."""
        for future in futures:
            future.cancel()


def merged(founds: Sequence[Found], entity_k: int) -> Found:
    """Entry points of several statements as one list: a unit found by more than one keeps every
    channel that found it (the features are the unit's own, the same in each). When the entity
    channel was ranked in parts, only the best ``entity_k`` of all parts keep it (by similarity,
    then write order), and a unit no channel keeps is dropped."""
    by_id: dict[UUID, tuple[cand_sql.Candidate, list[str]]] = {}
    for found in founds:
        for cand, channels in found:
            held = by_id.get(cand.unit.id)
            if held is not None:
                channels = sorted(set(channels) | set(held[1]), key=CHANNELS.index)
            by_id[cand.unit.id] = (cand, channels)
    named = sorted((c for c, ch in by_id.values() if "entity" in ch), key=lambda c: (-c.similarity, c.seq))
    for cand in named[entity_k:]:
        channels = [ch for ch in by_id[cand.unit.id][1] if ch != "entity"]
        if channels:
            by_id[cand.unit.id] = (cand, channels)
        else:
            del by_id[cand.unit.id]
    return list(by_id.values())


def entry_points(conn: psycopg.Connection, agent: str, features: cand_sql.Features, flt: UnitFilter,
                 limits: cand_sql.EntryLimits, beside: Beside | None) -> Found:
    """``store.candidates.entries``, with an exactly ranked entity channel (not a shortlist: that
    costs a few milliseconds, ``store.candidates.entity_shortlist``) beside the others when
    the named entities have enough mentions between them to be worth a second connection
    (``SPLIT_ENTITY_MENTIONS``), in two halves on two when they have more still
    (``HALVES_ENTITY_MENTIONS``). Whatever did not run beside runs here, after the rest."""
    if not (beside is not None and limits.entity and features.entity_ids
            and not limits.entity_index and not limits.entity_shortlist
            and features.entity_mentions >= SPLIT_ENTITY_MENTIONS and (limits.vector or limits.fulltext or limits.time)):
        return cand_sql.entries(conn, agent, features, flt, limits)
    entity = replace(limits, vector=0, fulltext=0, time=0)
    sides = [entity]
    if features.entity_mentions >= HALVES_ENTITY_MENTIONS:
        sides = [replace(entity, mention_ids=(None, _MIDDLE)), replace(entity, mention_ids=(_MIDDLE, None))]

    def read(side: cand_sql.EntryLimits) -> Callable[[psycopg.Connection], Found]:
        return lambda c: cand_sql.entries(c, agent, features, flt, side)

    pending = [beside.submit(read(side)) for side in sides]
    try:
        founds = [cand_sql.entries(conn, agent, features, flt, replace(limits, entity=0))]
    except BaseException:
        beside.cancel(pending)
        raise
    got = [beside.outcome(future) for future in pending]
    if all(part is None for part in got):
        founds.append(read(entity)(conn))  # none ran beside: the whole channel in one statement here
    else:
        founds += [part if part is not None else read(side)(conn) for side, part in zip(sides, got)]
    return merged(founds, limits.entity)
