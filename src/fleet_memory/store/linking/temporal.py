"""Temporal link candidates of a batch of new units: for each, the units of its agent nearest in
time within the window (``links.link_units`` writes them).

The rule: a new unit's candidates are the ``limit`` other units of the agent whose event falls
within ``window`` of its own, nearest first by (|Δt|, |Δseq|, seq) — among units at the same time
(the turns of one session share a timestamp) those written nearest to it come first, then the one
written first, so the same input always gives the same links.

One statement reads what the rule can pick: the new units themselves (their write order), and per
distinct event time of the batch, the ``limit`` older units nearest on each side. The nearest are
then found here (``nearest_in_time``, pure). Older units are all written before the batch, so among
them "written nearest" is "written last" for every new unit of one time: ``limit`` per side and time
is enough. Before, one LATERAL query per new unit read its nearest rows from the
``(agent_id, event_date)`` index: a conversation's units share a few dozen times, so that read the
same rows hundreds of times over (0.4 s of a 1,076-unit conversation's put).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import NamedTuple
from uuid import UUID

import psycopg

__all__ = ["Candidates", "Timed", "nearest_in_time", "temporal_candidates"]


class Timed(NamedTuple):
    id: UUID
    at: datetime
    seq: int


class Candidates(NamedTuple):
    """Candidates as parallel columns, each new unit's nearest first: ``unit[i]``'s candidate
    ``other[i]``, ``seconds[i]`` apart. Columns, not a tuple per candidate: a conversation has tens
    of thousands, and their tuples set off the interpreter's full garbage collections
    (``store.linking.pairs``)."""

    unit: list[UUID]
    other: list[UUID]
    seconds: list[float]


def temporal_candidates(conn: psycopg.Connection, agent_id: str, units: Sequence[tuple[UUID, datetime]], *,
                        window_hours: float, limit: int) -> Candidates:
    """For each new ``(unit_id, time)`` (written in this transaction): up to ``limit`` units of the
    agent whose stored ``event_date`` is nearest that time within ``window_hours`` (itself
    excluded), nearest first. The time may differ from
    the unit's own ``event_date``: ingestion links a unit dated by its text ("two days ago") at the
    time it was said. One statement."""
    if not units or limit <= 0:
        return Candidates([], [], [])
    ids = [u[0] for u in units]
    rows = conn.execute(
        "SELECT true, u.id, u.event_date, u.seq FROM memory_units u WHERE u.agent_id = %(a)s AND u.id = ANY(%(ids)b)"
        " UNION ALL"
        " SELECT false, c.id, c.event_date, c.seq FROM unnest(%(ts)s::timestamptz[]) AS n(t) CROSS JOIN LATERAL ("
        "  (SELECT u.id, u.event_date, u.seq FROM memory_units u WHERE u.agent_id = %(a)s"
        "    AND u.event_date <= n.t AND u.event_date >= n.t - %(w)s * interval '1 hour' AND u.id <> ALL(%(ids)b)"
        "    ORDER BY u.event_date DESC, u.seq DESC LIMIT %(k)s)"
        "  UNION ALL"
        "  (SELECT u.id, u.event_date, u.seq FROM memory_units u WHERE u.agent_id = %(a)s"
        "    AND u.event_date > n.t AND u.event_date <= n.t + %(w)s * interval '1 hour' AND u.id <> ALL(%(ids)b)"
        "    ORDER BY u.event_date ASC, u.seq DESC LIMIT %(k)s)"
        " ) c",
        {"a": agent_id, "ids": ids, "ts": sorted({u[1] for u in units}), "w": window_hours, "k": limit},
    ).fetchall()
    seq = {uid: s for is_new, uid, _, s in rows if is_new}
    pool = {uid: Timed(uid, at, s) for _, uid, at, s in rows}  # as candidates: at their stored time
    asked = [Timed(uid, at, seq[uid]) for uid, at in dict(units).items() if uid in seq]  # at the time given
    return nearest_in_time(asked, list(pool.values()), timedelta(hours=window_hours), limit)


def nearest_in_time(asked: Sequence[Timed], pool: Sequence[Timed], window: timedelta,
                    limit: int) -> Candidates:
    """For each unit of ``asked``: the ``limit`` units of ``pool`` (itself excluded) within
    ``window`` of it, nearest by (|Δt|, |Δseq|, seq).

    The pool is grouped by time, each group in write order; a unit visits the groups from its own
    time outwards, taking from each only the ``limit`` written nearest on either side (no more can
    be picked from one group), and stops once it has ``limit``: every group after is farther than
    each unit found. O(limit) groups of O(limit) units each, however many units share a time."""
    groups: dict[datetime, list[Timed]] = {}
    for unit in pool:
        groups.setdefault(unit.at, []).append(unit)
    times = sorted(groups)
    seqs = {}
    for at, members in groups.items():
        members.sort(key=lambda u: u.seq)
        seqs[at] = [u.seq for u in members]
    out = Candidates([], [], [])
    for unit in asked:
        found = _nearest(unit, groups, seqs, times, window, limit)
        out.unit.extend([unit.id] * len(found))
        out.other.extend([f[3].id for f in found])
        out.seconds.extend([f[0] for f in found])
    return out


def _nearest(unit: Timed, groups: dict[datetime, list[Timed]], seqs: dict[datetime, list[int]],
             times: list[datetime], window: timedelta, limit: int) -> list[tuple[float, int, int, Timed]]:
    """The nearest ``limit``, nearest first: groups come in order of their distance in time, each
    group's units in order of their distance in writing (``_closest_written``); two groups as far
    before as after are merged."""
    found: list[tuple[float, int, int, Timed]] = []
    right = bisect_left(times, unit.at)
    left = right - 1
    while len(found) < limit:
        before = unit.at - times[left] if left >= 0 else None
        after = times[right] - unit.at if right < len(times) else None
        gap = min(g for g in (before, after) if g is not None) if before is not None or after is not None else None
        if gap is None or gap > window:
            break
        taken: list[tuple[float, int, int, Timed]] = []
        if before == gap:
            taken += _closest_written(unit, groups[times[left]], seqs[times[left]], limit, gap)
            left -= 1
        if after == gap:
            taken += _closest_written(unit, groups[times[right]], seqs[times[right]], limit, gap)
            right += 1
        if before == after:
            taken.sort(key=lambda f: f[:3])
        found += taken
    return found[:limit]


def _closest_written(unit: Timed, members: list[Timed], seqs: list[int], limit: int,
                     gap: timedelta) -> list[tuple[float, int, int, Timed]]:
    """Up to ``limit`` members of one time group (in write order) written nearest to ``unit``,
    nearest first (equally near: the one written first), with their sort keys; ``unit`` itself
    left out. Outwards from ``unit``'s place in the group."""
    dt, n = gap.total_seconds(), len(seqs)
    hi = bisect_left(seqs, unit.seq)
    lo = hi - 1
    if hi < n and seqs[hi] == unit.seq:
        hi += 1
    out: list[tuple[float, int, int, Timed]] = []
    while len(out) < limit and (lo >= 0 or hi < n):
        if hi >= n or (lo >= 0 and unit.seq - seqs[lo] <= seqs[hi] - unit.seq):
            member, lo = members[lo], lo - 1
        else:
            member, hi = members[hi], hi + 1
        out.append((dt, abs(member.seq - unit.seq), member.seq, member))
    return out
