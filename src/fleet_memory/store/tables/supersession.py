"""SQL for facts that change: which older units a new unit may supersede, recording a supersession,
reading successors and a unit's history (reopening units whose successor is deleted is
``deletes.reopen``).

Storage (migration 008): ``supersessions`` holds one row per superseded unit, ``old_id → new_id``
(a unit has at most one successor; one successor may end several units), with the reason
(``rule:<slot>``, ``llm`` or ``update``). The superseded unit's ``memory_units.valid_until`` is the
successor's event time, so filters (``as_of``, ``include_superseded``) read one column of the row
they already read. Deleting either unit removes the pair (foreign keys cascade); every delete path
(``deletes``: one unit, a document, a user's units) calls ``deletes.reopen`` first: a unit whose
successor is deleted is superseded by the next version that stays, or is current again when none
does — never left ended by a unit that no longer exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import numpy as np
import psycopg

from ...errors import InvalidInputError
from ...model import MemoryUnit
from ...providers.compute import product
from ..db.database import cached_plans, index_order
from ..db.rows import fetch
from ..linking.embedding_cache import EmbeddingCache, Seen, seen_whole
from ..linking.semantic import (EXACT_BELOW, IN_MEMORY_FROM, READ_AGAIN, SLACK, best_columns, ranked_again,
                               unit_count_up_to, unit_rows)
from .units import UNIT_COLUMNS, unit_from_row

__all__ = ["SimilarUnit", "Chain", "similar_units", "supersede", "successors", "chains", "history", "end_units"]

_COLS = ", ".join(f"o.{c.strip()}" for c in UNIT_COLUMNS.split(","))


@dataclass(frozen=True, slots=True)
class SimilarUnit:
    """An existing unit close to a new one (``new_id``), with their cosine; it may be superseded
    already (the caller then supersedes the current version of its line)."""

    new_id: UUID
    unit: MemoryUnit
    similarity: float
    seq: int  # the unit's write order


def similar_units(conn: psycopg.Connection, agent_id: str, new: Sequence[tuple[UUID, np.ndarray]], *,
                  min_similarity: float, k: int, exact_below: int = EXACT_BELOW,
                  size: int | None = None, cache: EmbeddingCache | None = None) -> list[SimilarUnit]:
    """For each new unit, the ``k`` most similar other units of the agent that are not archived and at
    least ``min_similarity`` close — superseded ones too (a new value may resemble an older version of
    the fact more than its current one; the caller supersedes the line's current version, ``chains``),
    best first, ties by ``seq``. In SQL ONE statement for the batch (a LATERAL top-k per new unit). An
    agent of fewer than ``exact_below`` units is scanned exactly (deterministic, and cheap at that size)
    — in memory when ``cache`` holds its embeddings (``_in_memory``) or when ``IN_MEMORY_FROM`` units or
    more ask (one read of every embedding, ``seen_whole``: a conversation into a new agent spent 0.4 s
    of a 1.7 s supersession on the scans in SQL), else in SQL; a larger one through its own HNSW index
    (``store.db.agent_indexes``), as semantic links are (``store.linking.links``): an exact scan read
    every row of a 50,000-unit agent for each new unit stating a slot. ``size``: the agent's unit count
    as ``conn`` sees it, when the caller knows it (a put's write returns it); else counted here. Cosines
    are those of the product in memory (``semantic.ranked_again``), whichever way the candidates were
    found."""
    if not new:
        return []
    exact = (unit_count_up_to(conn, agent_id, exact_below) if size is None else size) < exact_below
    if exact:
        seen = cache.seen(conn, agent_id, unit_rows) if cache is not None else None
        if seen is None and len(new) >= IN_MEMORY_FROM:  # one read and one product beat a scan per unit
            seen = seen_whole(conn, agent_id, unit_rows)
        found = _in_memory(conn, agent_id, new, seen, min_similarity=min_similarity, k=k) if seen else None
        if found is not None:
            return found
    order = "similarity DESC, o.seq" if exact else "o.embedding <=> n.emb"
    with nullcontext() if exact else index_order(conn):  # the planner takes the index order
        rows = fetch(
            conn,
            "SELECT n.id AS new_id, " + _COLS + ", o.seq, vector_send(o.embedding) AS sent"
            " FROM unnest(%(ids)s::uuid[], %(embs)b::vector[]) AS n(id, emb)"
            " CROSS JOIN LATERAL (SELECT o.*, (1 - (o.embedding <=> n.emb))::float8 AS similarity"
            "   FROM memory_units o WHERE o.agent_id = %(a)s AND o.id <> n.id"
            "   AND o.archived_at IS NULL"
            f"   ORDER BY {order} LIMIT %(k)s) o"
            " WHERE o.similarity >= %(min)s",
            {"a": agent_id, "ids": [i for i, _ in new], "k": k * (READ_AGAIN if exact else 1),
             "min": min_similarity - SLACK, "embs": [np.asarray(e, dtype=np.float32) for _, e in new]},
            lambda r: (r["new_id"], r, r["seq"], r["sent"]),
        )
    return [SimilarUnit(n, unit_from_row(row), sim, int(row["seq"]))
            for n, row, sim in ranked_again(new, rows, k, min_similarity)]


SPARE = 10
"""Candidates ranked in memory beyond the ``k`` asked for, for those archived (they are not
candidates, and only the rows read tell): when more than these are archived among a unit's best,
the search goes in SQL."""


def _in_memory(conn: psycopg.Connection, agent_id: str, new: Sequence[tuple[UUID, np.ndarray]], seen: Seen, *,
               min_similarity: float, k: int) -> list[SimilarUnit] | None:
    """``candidates`` from the agent's units as ``conn`` sees them (``EmbeddingCache.seen``): each
    new unit's best ``k + SPARE`` by a product in memory, then their rows read by id, the archived
    ones left out. At 4,500 units 2–3 ms a put instead of a scan of every row in SQL (about 10 ms).
    None when more than ``SPARE`` of a unit's best are archived."""
    queries = unit_rows([e for _, e in new])
    sims = np.concatenate([product(queries, seen.held)[:, seen.kept], product(queries, seen.new)], axis=1)
    position = {uid: i for i, uid in enumerate(seen.ids)}
    for row, (uid, _) in enumerate(new):
        if uid in position:
            sims[row, position[uid]] = -np.inf  # never itself
    # as stored, ranked as ``semantic`` ranks; columns are in seq order, so ties go by seq
    best = best_columns(sims.astype(np.float32).astype(np.float64), k + SPARE, min_similarity)
    wanted = sorted({seen.ids[c] for cols in best for c, _ in cols})
    rows = {r["id"]: r for r in fetch(
        conn, "SELECT " + _COLS + ", o.seq FROM memory_units o"
        " WHERE o.agent_id = %(a)s AND o.id = ANY(%(ids)s::uuid[]) AND o.archived_at IS NULL",
        {"a": agent_id, "ids": wanted}, dict)} if wanted else {}
    out: list[SimilarUnit] = []
    for row, (uid, _) in enumerate(new):
        live = [(c, sim) for c, sim in best[row] if seen.ids[c] in rows][:k]
        if len(live) < k and len(best[row]) == k + SPARE:
            return None  # an archived unit took a place that the next one, unread, may fill
        out.extend(SimilarUnit(uid, unit_from_row(rows[seen.ids[c]]), sim, int(seen.seqs[c])) for c, sim in live)
    return out


_END_AT = ("UPDATE memory_units u SET valid_until = p.t FROM unnest(%(o)s::uuid[], %(t)s::timestamptz[]) AS p(o, t)"
          " WHERE u.agent_id = %(a)s AND u.id = p.o")
"""Ends units ``o`` at times ``t`` (parameters ``a``, ``o``, ``t``). The successors' event times are
read first, by primary key, not joined here: a join of the agent's units with themselves is
planned as a cross product of both when the planner's statistics predate the agent (it then
estimates the agent at one row, ``store.db.planner``), as they do in a new agent's first put. Measured
on a store of 31,000 units, a conversation's 749 units into a new agent superseding 13 of them:
the join took 1.2 s (7.3 million rows compared); this statement 1.2 ms."""


def end_units(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], until: Sequence[datetime]) -> int:
    """``valid_until`` of units ``ids`` = ``until`` (one statement, ``_END_AT``); returns the rows ended."""
    return conn.execute(_END_AT, {"a": agent_id, "o": list(ids), "t": list(until)}).rowcount


def supersede(conn: psycopg.Connection, agent_id: str, pairs: Sequence[tuple[UUID, UUID, str]],
              now: datetime) -> int:
    """Record ``(old_id, new_id, reason)`` pairs: a row each (a unit already superseded keeps its
    first successor; a pair that would close a cycle, or whose new unit began before the old one,
    is skipped by the database, migration 016) and the old unit's ``valid_until`` = the new unit's
    event time. Returns the pairs recorded. Three statements (the last ``end_units``)."""
    if not pairs:
        return 0
    with cached_plans(conn):  # two foreign-key checks per pair
        recorded = conn.execute(
            "INSERT INTO supersessions (agent_id, old_id, new_id, reason, created_at)"
            " SELECT %(a)s, p.o, p.n, p.r, %(now)s FROM unnest(%(o)s::uuid[], %(n)s::uuid[], %(r)s::text[]) AS p(o, n, r)"
            " ON CONFLICT (agent_id, old_id) DO NOTHING RETURNING old_id, new_id",
            {"a": agent_id, "now": now, "o": [p[0] for p in pairs], "n": [p[1] for p in pairs],
             "r": [p[2] for p in pairs]},
        ).fetchall()
    _check_updates(conn, agent_id, pairs, {r[0] for r in recorded})
    if recorded:
        when = dict(conn.execute("SELECT id, event_date FROM memory_units WHERE agent_id = %s AND id = ANY(%s)",
                                 (agent_id, list({r[1] for r in recorded}))).fetchall())
        ended = [(old, when[new]) for old, new in recorded if new in when]
        end_units(conn, agent_id, [e[0] for e in ended], [e[1] for e in ended])
    return len(recorded)


def _check_updates(conn: psycopg.Connection, agent_id: str, pairs: Sequence[tuple[UUID, UUID, str]],
                   recorded: set[UUID]) -> None:
    """An ``update`` pair (an explicit new version) that was not recorded fails the transaction:
    another update of the same unit committed first (the primary key decided; six concurrent
    updates each made a version that history did not list), or the new version would begin before
    the old one (a date read from its text) or close a cycle (migration 016). The old unit's row
    is never left with two versions."""
    missed = [(o, n) for o, n, r in pairs if r == "update" and o not in recorded]
    if not missed:
        return
    after = successors(conn, agent_id, [o for o, _ in missed])
    for old, new in missed:
        if after.get(old) == new:  # the rule recorded the same pair in this put
            continue
        if old in after:
            raise InvalidInputError("unit_id", f"{old} was already superseded by {after[old]}",
                                    "update the newest version (see history)")
        raise InvalidInputError("event_date", f"the new version of {old} would begin before it",
                                "the old version's event time or later")


def successors(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> dict[UUID, UUID]:
    """``{old_id: new_id}`` for those of ``ids`` that were superseded. One statement."""
    if not ids:
        return {}
    rows = conn.execute("SELECT old_id, new_id FROM supersessions WHERE agent_id = %s AND old_id = ANY(%s)",
                        (agent_id, list(ids))).fetchall()
    return {o: n for o, n in rows}


@dataclass(frozen=True, slots=True)
class Chain:
    """Where a superseded unit's line of successors leads: its direct successor and the first unit
    along the line that is still current at the time asked (``None`` when none is)."""

    successor: UUID
    current: UUID | None
    current_event_date: datetime | None = None


CHAIN_DEPTH = 32  # versions followed per unit; a longer line of successors stops there
CHAIN_ROWS = 512
"""Supersession rows a search's ``chains`` call reads at most: when many units are asked about,
each is followed fewer versions (``CHAIN_ROWS // len(ids) - 1``, at least 1; 13 for 35 units), so
a search's cost stays bounded however many stale versions of a fact it reached. On
``bench/latency.py``'s 100,000-unit agent a "Who works at ...?" search asks about 29–36 stale job
statements whose lines run to hundreds of versions: 33 levels each were 957–1,155 rows.
Ingestion, which moves a new fact onto the current end of its line, follows every unit
``CHAIN_DEPTH`` versions (``bounded=False``)."""


def chains(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], at: datetime, *,
           bounded: bool = True) -> dict[UUID, Chain]:
    """``{old_id: Chain}`` for those of ``ids`` that were superseded: the direct successor and the
    first successor (transitively, at most ``CHAIN_DEPTH`` versions; ``bounded``: fewer when more
    than 15 units are asked, ``CHAIN_ROWS``) not superseded at ``at``.
    One statement reads the supersession rows after ``ids`` once (a unit has one successor, so the
    lines are followed here): several units of one line share its rest (a walk often reaches many
    versions of one fact). Whether a version is current at ``at`` comes from its own supersession
    row — none, or one whose ``superseded_at`` (its successor's event time, which is its
    ``valid_until``; migration 012) is after ``at`` —, so a line is followed on the supersessions'
    primary key alone, one probe per version, and stops at the first current one (``OFFSET 0``
    keeps the planner from joining whole tables instead: for its guess of a line's length it
    hashed the agent's every unit, 34 ms on ``bench/latency.py``'s 10,000-unit agent). Before, each
    version's unit row was probed too, and a line was read to its end: 10–20 ms on that bench's
    100,000-unit agent, whose lines of jobs run to hundreds of versions. A line is read one version
    further per level, so levels up to the depth + 1 (each version's own row) are at most
    ``(depth + 1) × len(ids)`` rows, where the statement stops."""
    if not ids:
        return {}
    depth = max(1, min(CHAIN_DEPTH, CHAIN_ROWS // len(ids) - 1)) if bounded else CHAIN_DEPTH
    found = conn.execute(
        "WITH RECURSIVE line(old_id, new_id, t, first) AS ("
        "   SELECT old_id, new_id, superseded_at, true FROM supersessions"
        "   WHERE agent_id = %(a)s AND old_id = ANY(%(ids)s)"
        "   UNION SELECT s.old_id, s.new_id, s.superseded_at, false FROM line l CROSS JOIN LATERAL ("
        "     SELECT s.old_id, s.new_id, s.superseded_at FROM supersessions s"
        "     WHERE s.agent_id = %(a)s AND s.old_id = l.new_id OFFSET 0) s"
        "   WHERE l.first OR l.t <= %(at)s)"  # a version current at ``at`` ends its line's walk
        " SELECT old_id, new_id, t FROM line LIMIT %(cap)s",  # level by level: every unit's first levels are in
        {"a": agent_id, "ids": list(ids), "at": at, "cap": len(ids) * (depth + 1)},
    ).fetchall()
    after = {old: (new, t) for old, new, t in found}
    out: dict[UUID, Chain] = {}
    for start in ids:
        if start not in after:
            continue
        successor, unit, chain = after[start][0], start, None
        for _ in range(depth):
            version, took_over = after[unit]
            following = after.get(version)
            if following is None or following[1] > at:  # never superseded, or only after ``at``
                chain = Chain(successor, version, took_over)
                break
            unit = version
        out[start] = chain or Chain(successor, None)
    return out


def history(conn: psycopg.Connection, agent_id: str, unit_id: UUID) -> list[MemoryUnit]:
    """Every version of the fact ``unit_id`` belongs to — its predecessors (transitively), itself and
    its successors — oldest first (event time, then write order). One statement; empty when the
    unit does not exist."""
    return fetch(
        conn,
        "WITH RECURSIVE back(id) AS (SELECT %(u)s::uuid UNION"
        "   SELECT s.old_id FROM supersessions s JOIN back b ON s.agent_id = %(a)s AND s.new_id = b.id),"
        " fwd(id) AS (SELECT %(u)s::uuid UNION"
        "   SELECT s.new_id FROM supersessions s JOIN fwd f ON s.agent_id = %(a)s AND s.old_id = f.id)"
        " SELECT " + _COLS + " FROM memory_units o"
        " WHERE o.agent_id = %(a)s AND o.id IN (SELECT id FROM back UNION SELECT id FROM fwd)"
        " ORDER BY o.event_date, o.seq",
        {"a": agent_id, "u": unit_id},
        unit_from_row,
    )
