"""Agents' embeddings kept in the process between puts, for the reads beside a put.

A put into an agent searched exactly in memory (``semantic._exact_in_memory``: under 5,000 units
and a batch of 32 or more, or wherever one read of its embeddings costs less than its index) read
every embedding of the agent, every time: sessions of long assistant turns, 45 units a put into one
agent growing to 5,800 units, spent 27 ms a put on it (3.5 of the 25.6 s of ``bench/ingest.py``'s
long-turn line), while the link stage waited.

``EmbeddingCache.rows(conn, agent_id, prepare)`` gives the agent's stored units — write order
(``seq``), ids and ``prepare``d embedding rows (the unit-length float64 rows the product takes,
``semantic.unit_rows``; prepared row by row, so the same whichever rows are prepared together) —
in ``seq`` order, as of one statement: exactly what reading them all gives, reading only what it
does not hold. The statement returns every unit's ``seq``, and the id and embedding of those
written after the newest unit held. Units deleted since are dropped from what it holds; a
unit it never held that is not newer (a put that committed after a later one did) makes it read
everything again. Embeddings are never changed in place (a changed fact is a new unit), so what it
holds of a unit stays true while the unit exists. New rows are appended in place to a buffer with
room to grow (``ROOM``: copied once every quarter of growth, not at every put); what an earlier
answer returned is never written over.

Measured, 45 new units into an agent of 4,394: 7–9 ms against 20 ms to read every embedding, and
no 10–50 ms to prepare 4,394 rows again; since the seqs come from an index-only scan (migration
013), about 1 ms for a few new units into an agent of 4,500.

Which agents it takes (``wanted``): a batch of 32 units or more always goes through it. A read for
a few units (a put of one message) goes through it when it holds the agent already, or when the
agent was asked for before among the last ``ASKED`` agents (a second put in a row) and its rows fit
in the room left: then one read of the seqs and the few new rows replaces a scan that computed a
distance in SQL for every unit of the agent (15–25 ms at 4,500 units). An agent asked for once, as
in a fleet that puts round the clock into thousands of agents one message each, is not read whole
for it, and a put of a few units never pushes another agent out.

Bounds: at most ``max_bytes`` of rows (least recently used agents out; an agent larger than that
is read whole each time, as before). Only for reads on a connection that sees committed rows
alone (the reads beside a put): inside a put's own transaction its uncommitted units would be
taken for stored ones. Thread-safe: the map and the buffers' fill marks change under one lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from uuid import UUID

import numpy as np
import psycopg

from ..db.rows import vectors_from_send

__all__ = ["AgentEmbeddings", "EmbeddingCache", "Seen", "read_embeddings", "seen_whole"]

DEFAULT_MAX_BYTES = 64 << 20
"""Rows held at most, room to grow included: about 17,000 units of 384 float64 dimensions (three
agents near the 5,000 units below which agents are searched exactly)."""

ROOM = 1.25
"""A new buffer has room for this many times its units (and 64 rows more): an agent growing by a
put at a time is copied once every quarter of growth."""

ASKED = 1_024
"""Agents remembered as asked for once (``wanted``), the least recently asked out."""

_ROWS = ("SELECT NULL::bigint, NULL::uuid, string_agg(int8send(seq), ''::bytea) FROM memory_units"
         " WHERE agent_id = %(a)s"
         " UNION ALL SELECT seq, id, vector_send(embedding) FROM memory_units"
         " WHERE agent_id = %(a)s AND seq > %(after)s")
"""One statement (one snapshot): every seq packed in one value, from an index-only scan of
``(agent_id, seq)`` (migration 013), then the rows written after ``after``. Sorted here: sorting in
SQL (``array_agg(… ORDER BY seq)``) carried the embeddings through the sort, which spilled to disk
(28 against 4.5 ms at 4,394 units)."""

_EVERYTHING = -(2**63)  # below every seq: every unit's id and embedding are read

Prepare = Callable[[np.ndarray], np.ndarray]


def read_embeddings(conn: psycopg.Connection, agent_id: str,
                    after: int = _EVERYTHING) -> tuple[np.ndarray, list[UUID], np.ndarray]:
    """The agent's stored units in write order: every ``seq``, then the ids and embeddings (float32
    rows) of those written after ``after`` (of all of them by default). One statement."""
    with conn.cursor(binary=True) as cur:
        rows = cur.execute(_ROWS, {"a": agent_id, "after": after}).fetchall()
    packed = next((row[2] for row in rows if row[0] is None), None) or b""
    seqs = np.sort(np.frombuffer(packed, dtype=">i8").astype(np.int64))
    new = sorted((row for row in rows if row[0] is not None), key=lambda row: row[0])
    return seqs, [row[1] for row in new], vectors_from_send(b"".join(row[2] for row in new), len(new))


def seen_whole(conn: psycopg.Connection, agent_id: str, prepare: Prepare) -> Seen | None:
    """The agent's units as ``conn`` sees them, every embedding read (one statement), nothing held:
    what ``EmbeddingCache.seen`` gives for an agent it does not hold, for a batch large enough that
    one product in memory beats a search per unit in SQL. None when the agent has no unit."""
    seqs, ids, vectors = read_embeddings(conn, agent_id)
    if not ids:
        return None
    rows = prepare(vectors)
    return Seen(ids, seqs, np.zeros(0, dtype=np.int64), rows[:0], rows)


def _room(units: int) -> int:
    return int(units * ROOM) + 64


class _Buffer:
    """Rows with room to grow; ``filled`` rows are in use (an entry sees its first n only)."""

    def __init__(self, rows: np.ndarray, room: int) -> None:
        self.array = np.empty((max(room, len(rows)), rows.shape[1]), dtype=rows.dtype)
        self.array[:len(rows)] = rows
        self.filled = len(rows)


@dataclass(frozen=True, slots=True)
class AgentEmbeddings:
    seqs: np.ndarray  # int64, ascending
    ids: list[UUID]
    buffer: _Buffer
    count: int

    @property
    def rows(self) -> np.ndarray:
        return self.buffer.array[:self.count]


@dataclass(frozen=True, slots=True)
class Seen:
    """An agent's units as one connection sees them (``EmbeddingCache.seen``), in ``seq`` order:
    ``held[kept]``, the rows held that still exist, then ``new``, those written since."""

    ids: list[UUID]
    seqs: np.ndarray
    kept: np.ndarray
    held: np.ndarray
    new: np.ndarray


def _positions(held: AgentEmbeddings, seqs: np.ndarray) -> np.ndarray | None:
    """Where each of ``seqs`` (ascending) is among the held units, or None when one is not held."""
    at = np.searchsorted(held.seqs, seqs)
    if (at >= len(held.seqs)).any() or (held.seqs[np.minimum(at, len(held.seqs) - 1)] != seqs).any():
        return None
    return at


class EmbeddingCache:
    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._held: OrderedDict[str, AgentEmbeddings] = OrderedDict()
        self._asked: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def wanted(self, agent_id: str, units: int, dimension: int) -> bool:
        """Whether a read for a few units should go through the cache: it holds the agent, or the
        agent (of about ``units`` rows of ``dimension``) was asked for before and fits in the room
        left — a put of a few units pushes no other agent out (several agents putting in turn would
        each read all their rows again: 30–70 ms at 4,500 units, against 10–20 for the scan in
        SQL). Else this ask is remembered, and the answer is no."""
        with self._lock:
            if agent_id in self._held:
                self._asked.pop(agent_id, None)
                return True
            if agent_id in self._asked:
                held = sum(entry.buffer.array.nbytes for entry in self._held.values())
                if _room(units) * dimension * 8 <= self.max_bytes - held:  # float64 rows
                    del self._asked[agent_id]
                    return True
            self._asked[agent_id] = None
            self._asked.move_to_end(agent_id)
            if len(self._asked) > ASKED:
                self._asked.popitem(last=False)
            return False

    def rows(self, conn: psycopg.Connection, agent_id: str, prepare: Prepare) -> AgentEmbeddings:
        """The agent's stored units, as reading them all in one statement gives them."""
        with self._lock:
            held = self._held.get(agent_id)
        after = int(held.seqs[-1]) if held is not None and len(held.seqs) else _EVERYTHING
        current = self._merged(held, read_embeddings(conn, agent_id, after), after, prepare)
        if current is None:  # a unit it never held that is not newer: read everything
            current = self._merged(None, read_embeddings(conn, agent_id), _EVERYTHING, prepare)
            assert current is not None
        self._keep(agent_id, current)
        return current

    def _merged(self, held: AgentEmbeddings | None, read: tuple[np.ndarray, list[UUID], np.ndarray], after: int,
                prepare: Prepare) -> AgentEmbeddings | None:
        """What ``read`` says the agent holds, the rows of units up to ``after`` from ``held``;
        None when one of those is not held."""
        seqs, new_ids, new_vectors = read
        old = len(seqs) - len(new_ids)  # seqs[:old] are up to ``after``, the rest are new
        if old and held is None:
            return None
        fresh = prepare(new_vectors) if len(new_ids) else None
        if old:
            at = _positions(held, seqs[:old])
            if at is None:
                return None
            if old == held.count and (fresh is None or self._append(held, fresh)):
                buffer = held.buffer  # nothing deleted: the new rows went in after the held ones
            else:
                kept = held.rows[at]
                buffer = _Buffer(kept if fresh is None else np.concatenate([kept, fresh]), _room(len(seqs)))
            ids = [held.ids[i] for i in at.tolist()] + list(new_ids)
        else:
            buffer = _Buffer(fresh if fresh is not None else np.zeros((0, 0)), _room(len(seqs)))
            ids = list(new_ids)
        return AgentEmbeddings(seqs, ids, buffer, len(seqs))

    def seen(self, conn: psycopg.Connection, agent_id: str, prepare: Prepare) -> Seen | None:
        """The agent's units as ``conn`` sees them — uncommitted ones of its own transaction too —
        from what it holds and what was written since, changing nothing it holds; None when it
        does not hold the agent or holds a unit ``conn`` does not see as it (read it in SQL then)."""
        with self._lock:
            held = self._held.get(agent_id)
        if held is None or not len(held.seqs):
            return None
        seqs, new_ids, new_vectors = read_embeddings(conn, agent_id, int(held.seqs[-1]))
        old = len(seqs) - len(new_ids)
        kept = _positions(held, seqs[:old])
        if kept is None:
            return None
        return Seen([held.ids[i] for i in kept.tolist()] + list(new_ids), seqs, kept, held.rows,
                    prepare(new_vectors) if new_ids else np.zeros((0, held.rows.shape[1])))

    def _append(self, held: AgentEmbeddings, fresh: np.ndarray) -> bool:
        """Write ``fresh`` after ``held``'s rows in its buffer when no other answer took that room
        and it fits."""
        with self._lock:
            buffer = held.buffer
            end = held.count + len(fresh)
            if buffer.filled != held.count or end > len(buffer.array) or fresh.shape[1:] != buffer.array.shape[1:]:
                return False
            buffer.array[held.count:end] = fresh
            buffer.filled = end
            return True

    def _keep(self, agent_id: str, entry: AgentEmbeddings) -> None:
        with self._lock:
            self._held.pop(agent_id, None)
            if entry.buffer.array.nbytes > self.max_bytes:
                return
            self._held[agent_id] = entry
            total = sum(e.buffer.array.nbytes for e in self._held.values())
            while total > self.max_bytes:
                _, out = self._held.popitem(last=False)
                total -= out.buffer.array.nbytes
