"""Entry points read on more than one connection at once: a search's large entity channel is
ranked beside its other channels (``entry_points``), on spare connections of the pool
(``Beside``), and the parts merged (``merged``) into what one statement gives."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from uuid import UUID

import psycopg

from ..store import UnitFilter
from ..store.db.beside import Beside
from ..store.reads import candidates as cand_sql

__all__ = ["entry_points", "merged", "SPLIT_ENTITY_MENTIONS", "HALVES_ENTITY_MENTIONS"]


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

_MIDDLE = UUID("80000000-0000-0000-0000-000000000000")

CHANNELS = ("vector", "fulltext", "entity", "time")

Found = list[tuple[cand_sql.Candidate, list[str]]]


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
    """``store.reads.candidates.entries``, with an exactly ranked entity channel (not a shortlist: that
    costs a few milliseconds, ``store.reads.candidates.entity_shortlist``) beside the others when
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
