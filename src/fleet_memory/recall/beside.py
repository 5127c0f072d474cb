"""Entry points read on more than one connection at once: a search's large entity channel, and
its time channel over a wide window, are ranked beside its other channels (``entry_points``), on
spare connections of the pool (``Beside``), and the parts merged (``merged``) into what one
statement gives."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from uuid import UUID

import psycopg

from ..store import UnitFilter
from ..store import candidates as cand_sql
from ..store.beside import Beside

__all__ = ["Beside", "entry_points", "merged", "SPLIT_ENTITY_MENTIONS", "HALVES_ENTITY_MENTIONS", "SPLIT_WINDOW_UNITS"]


SPLIT_ENTITY_MENTIONS = 300
"""The entity channel runs beside the other channels, on a spare connection (``Beside``), when the
entities the query names have at least this many mentions: ranking them is then the largest part
of the entry statement (about 3 µs a mention, against about 1 ms for the vector channel), and the
statements run on the machine's cores at once. Below, a second transaction costs more than it
saves."""

SPLIT_WINDOW_UNITS = 1_000
"""The time channel runs beside the other channels, on a spare connection, when the window the
query names holds at least this many units (counted while the query is embedded,
``store.candidates.window_units``): the channel ranks every one of them exactly, about 1.2 µs a
unit (3.7 ms of a 50,000-unit agent's entry statement for "two years ago", 3,070 units).
Below, a second transaction costs more than it saves."""

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


def _channels_beside(features: cand_sql.Features, limits: cand_sql.EntryLimits,
                     ) -> list[tuple[cand_sql.EntryLimits, list[cand_sql.EntryLimits]]]:
    """The channels worth a spare connection, each as (the whole channel, the parts read beside):
    an exactly ranked entity channel (not a shortlist: that costs a few milliseconds,
    ``store.candidates.entity_shortlist``) when the named entities have enough mentions between
    them (``SPLIT_ENTITY_MENTIONS``), in two halves when they have more still
    (``HALVES_ENTITY_MENTIONS``); the time channel when its window holds ``SPLIT_WINDOW_UNITS``
    units or more. Only while the vector or full-text channel stays for the caller's statement."""
    if not (limits.vector or limits.fulltext):
        return []
    groups = []
    if (limits.entity and features.entity_ids and not limits.entity_index and not limits.entity_shortlist
            and features.entity_mentions >= SPLIT_ENTITY_MENTIONS):
        entity = replace(limits, vector=0, fulltext=0, time=0)
        parts = [entity]
        if features.entity_mentions >= HALVES_ENTITY_MENTIONS:
            parts = [replace(entity, mention_ids=(None, _MIDDLE)), replace(entity, mention_ids=(_MIDDLE, None))]
        groups.append((entity, parts))
    if limits.time and limits.window is not None and features.window_units >= SPLIT_WINDOW_UNITS:
        time = replace(limits, vector=0, fulltext=0, entity=0)
        groups.append((time, [time]))
    return groups


def entry_points(conn: psycopg.Connection, agent: str, features: cand_sql.Features, flt: UnitFilter,
                 limits: cand_sql.EntryLimits, beside: Beside | None) -> Found:
    """``store.candidates.entries``, with the channels that cost the most (``_channels_beside``)
    ranked beside the others on spare connections. Whatever did not run beside runs here, after
    the rest: a channel none of whose parts ran beside, in one statement."""
    groups = _channels_beside(features, limits) if beside is not None else []
    if not groups:
        return cand_sql.entries(conn, agent, features, flt, limits)

    def read(side: cand_sql.EntryLimits) -> Callable[[psycopg.Connection], Found]:
        return lambda c: cand_sql.entries(c, agent, features, flt, side)

    pending = [[beside.submit(read(part)) for part in parts] for _, parts in groups]
    rest = replace(limits, **{ch: 0 for whole, _ in groups for ch in ("entity", "time") if getattr(whole, ch)})
    try:
        founds = [cand_sql.entries(conn, agent, features, flt, rest)]
    except BaseException:
        beside.cancel([future for futures in pending for future in futures])
        raise
    for (whole, parts), futures in zip(groups, pending):
        got = [beside.outcome(future) for future in futures]
        if all(part is None for part in got):
            founds.append(read(whole)(conn))  # none ran beside: the whole channel in one statement here
        else:
            founds += [part if part is not None else read(side)(conn) for side, part in zip(parts, got)]
    return merged(founds, limits.entity)
