"""The memory graph's edges, in one place: writing temporal and semantic links for new units, and
reading every kind of edge — stored and derived — for recall's walk and for pictures.

Storage. ``links`` holds temporal and semantic edges, one row per unordered pair, stored with
``from_id < to_id`` (so a pair is never written twice); readers look in both directions.
Entity links are never stored (a hub entity with N mentions would be N² rows): they are derived
from ``unit_entities`` when read, by the one rule in ``neighbours``.

Writing (``link_units``, per batch of new units; one query per kind for the whole batch):
- Temporal: each new unit is linked to at most K (default 20) units nearest in time within the
  window (default 24 h); weight = max(0.3, 1 − Δt / window). Among units at the same time (the
  turns of one session) those written nearest (``seq``) come first (``store.linking.temporal``: one read
  for the batch, the nearest picked in memory). After a batch, every touched unit keeps at most K
  temporal links (its K strongest), so the degree bound holds for old units.
- Semantic: each new unit is linked to its top k (default 5) units with cosine ≥ 0.7 (weight =
  cosine), found in ONE query for the whole batch (``store.linking.semantic``: through the agent's own
  HNSW index from 5,000 units, exactly below) — in the transaction, or handed in by the caller,
  who read the stored units' part beside the transaction and the batch's in memory; touched
  units keep at most k semantic links.

Reading (``neighbours``, one statement per call): the stored links of the given units in both
directions, and derived entity links (weight 1.0): for each entity a unit mentions, unless it is a
hub (mentioned by more than ``hub_threshold`` units — it says little about any one of them, and its
fan-out would flood a walk with arbitrary units), the ``fanout`` other mentioning units nearest in
time to the unit (then those written nearest to it). Bounded by units × (stored degree + entities
per unit × fanout) rows. Recall's walk and graph pictures both read edges through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple
from uuid import UUID

import numpy as np
import psycopg
from psycopg import sql

from ...config import IngestConfig
from ...model import LinkKind
from ..db.database import cached_plans
from ..db.rows import slices
from ..tables.filters import UnitFilter, where_clause
from .pairs import PairColumns, strongest_per_pair
from .semantic import nearest_to_new
from .temporal import temporal_candidates

__all__ = [
    "EntityRule",
    "Neighbour",
    "neighbours",
    "link_units",
    "temporal_weight",
    "temporal_weights",
    "insert_links",
    "insert_pairs",
    "KINDS",
    "may_exceed",
    "unique_pairs",
    "unit_seqs",
    "over_cap",
    "keep_strongest",
    "cap_older",
    "incident_links",
    "delete_links",
    "degree_stats",
]


@dataclass(frozen=True, slots=True)
class EntityRule:
    """How entity links are derived: per (unit, entity), the ``fanout`` mentions nearest in time;
    an entity mentioned by more than ``hub_threshold(units)`` units is a hub and links nothing."""

    fanout: int = 10
    hub_min: int = 20
    hub_share: float = 0.05
    hub_max: int = 200

    def hub_threshold(self, units: int) -> int:
        """max(hub_min, hub_share × the agent's units), at most hub_max."""
        return min(max(self.hub_min, int(self.hub_share * units)), self.hub_max)

_STORED = (
    "SELECT l.from_id AS src, l.to_id AS dst, l.kind, l.weight::float8 AS weight FROM links l"
    " WHERE l.agent_id = %(a)s AND l.from_id = ANY(%(ids)s) AND l.kind = ANY(%(kinds)s)"
    " UNION ALL"
    " SELECT l.to_id, l.from_id, l.kind, l.weight::float8 FROM links l"
    " WHERE l.agent_id = %(a)s AND l.to_id = ANY(%(ids)s) AND l.kind = ANY(%(kinds)s)"
)
"""Stored links of the units ``%(ids)s`` in both directions, as ``(src, dst, kind, weight)`` with
``src`` among the ids; parameters ``a`` (agent), ``ids`` and ``kinds``."""

_DERIVED = (
    "SELECT DISTINCT r.src, r.id, r.seq, 'entity', 1.0::float8 FROM ("
    " SELECT s.unit_id AS src, m.id, m.seq, row_number() OVER (PARTITION BY s.unit_id, s.entity_id"
    "   ORDER BY abs(extract(epoch FROM m.event_date - s.event_date)), abs(m.seq - s.seq), m.seq) AS rank"
    " FROM pairs s JOIN mentions m ON m.entity_id = s.entity_id AND m.id <> s.unit_id) r"
    " WHERE r.rank <= %(fan)s"
)
_DERIVED_PAIRS = (
    "(SELECT s.unit_id, s.entity_id, su.event_date, su.seq FROM unit_entities s"
    " JOIN entities e ON e.agent_id = s.agent_id AND e.id = s.entity_id AND e.mention_count <= %(hub)s"
    " JOIN memory_units su ON su.agent_id = s.agent_id AND su.id = s.unit_id"
    " WHERE s.agent_id = %(a)s AND s.unit_id = ANY(%(ids)s))"
)
_DERIVED_MENTIONS = (
    "(SELECT ue.entity_id, u.id, u.seq, u.event_date FROM (SELECT DISTINCT entity_id FROM pairs) d"
    " JOIN unit_entities ue ON ue.agent_id = %(a)s AND ue.entity_id = d.entity_id"
    " JOIN memory_units u ON u.agent_id = ue.agent_id AND u.id = ue.unit_id WHERE {cond})"
)
"""Derived entity links of the units ``%(ids)s`` (see the module docstring) towards units that pass
``{cond}``, as ``(src, dst, dst seq, 'entity', 1.0)``: ``pairs`` are the (unit, entity) mentions of
the asked units whose entity is no hub, ``mentions`` every mention of those entities (each read
once, however many asked units name it: a walk's frontier often shares its entities, and reading
an entity's mentions once per unit that names it was most of a hop, 8 ms for "Which pets does Zoe
have?" on a 10,000-unit agent), and per pair the ``fan`` mentions nearest in time are kept. The hub
test runs before any mention is read (``pairs`` holds no hub): reading and sorting every mention
of a hub to drop it after was 35 ms a hop on a 2,000-unit agent."""


class Neighbour(NamedTuple):
    """One directed edge leaving a unit asked about (a tuple: hundreds are built per hop)."""

    src: UUID
    dst: UUID
    dst_seq: int  # the neighbour's write order
    kind: str
    weight: float


def neighbours(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], flt: UnitFilter | None = None, *,
               stored_kinds: Sequence[str] = (LinkKind.TEMPORAL.value, LinkKind.SEMANTIC.value),
               entity: EntityRule | None = EntityRule(), units: int = 0,
               within: Sequence[UUID] | None = None) -> list[Neighbour]:
    """Every edge leaving ``ids`` towards a unit that passes ``flt`` (and is one of ``within``, when
    given), in ONE statement: stored links of ``stored_kinds`` in both directions, and, unless
    ``entity`` is None, entity links derived by that rule (``units``: the agent's unit count, for
    the hub threshold). Rows in no given order."""
    if not ids:
        return []
    cond, params = where_clause(agent_id, flt)
    if within is not None:
        cond = sql.SQL("{cond} AND u.id = ANY(%(within)s)").format(cond=cond)
        params["within"] = list(within)
    params.update(a=agent_id, ids=list(ids), kinds=list(stored_kinds))
    parts: list[sql.Composable] = []
    if stored_kinds:
        parts.append(sql.SQL(
            "SELECT n.src, n.dst, u.seq, n.kind, n.weight FROM (" + _STORED + ") n"
            " JOIN memory_units u ON u.agent_id = %(a)s AND u.id = n.dst WHERE {cond}"
        ).format(cond=cond))
    ctes: list[sql.Composable] = []
    if entity is not None and entity.fanout > 0:
        ctes = [sql.SQL("pairs AS MATERIALIZED " + _DERIVED_PAIRS),
                sql.SQL("mentions AS MATERIALIZED " + _DERIVED_MENTIONS).format(cond=cond)]
        parts.append(sql.SQL(_DERIVED))
        params.update(fan=entity.fanout, hub=entity.hub_threshold(units))
    if not parts:
        return []
    query = sql.SQL(" UNION ALL ").join(parts)
    if ctes:
        query = sql.SQL("WITH {ctes} {query}").format(ctes=sql.SQL(", ").join(ctes), query=query)
    rows = conn.execute(query, params).fetchall()
    return [Neighbour(a, b, int(seq), kind, float(w)) for a, b, seq, kind, w in rows]


def temporal_weights(seconds_apart: np.ndarray, window_hours: float) -> np.ndarray:
    """max(0.3, 1 − Δt / window) of every element (a conversation has tens of thousands of
    candidates, weighted in one array operation)."""
    return np.maximum(0.3, 1.0 - seconds_apart / (window_hours * 3600.0))


def temporal_weight(seconds_apart: float, window_hours: float) -> float:
    """One temporal link's weight (``temporal_weights``)."""
    return float(temporal_weights(np.float64(seconds_apart), window_hours))


def link_units(conn: psycopg.Connection, agent_id: str, units: Sequence[tuple[UUID, datetime, np.ndarray]],
               config: IngestConfig, stored: Sequence[tuple[UUID, UUID, float]] | None = None) -> dict[str, int]:
    """Create the links of newly written ``(unit_id, event_date, embedding)`` units (see the module
    docstring): one query per kind for the batch, the write order of the units they touch, one
    write; per kind, the stored links of the older units they touch and one delete. Returns counts.

    The cap is applied before anything is written, with pruning's rule (``over_cap``), so that no
    row is written only to be deleted: each new unit keeps its strongest (``keep_strongest``; the
    units have no links yet — written in this transaction, every caller links them once, all
    together — so every link of theirs is among the candidates), then each older unit touched
    keeps its strongest of its stored links and the new ones (``cap_older``). For a batch that
    touches no older unit the graph is the one writing everything and pruning every touched unit
    made; otherwise a superset of it (tested): pruning after the write could make an older unit give
    up a link for one the new end then refused. Before, a conversation's put wrote a third more
    temporal rows than it kept; into an agent of near-duplicates, most new semantic links were
    written and deleted again.

    Semantic candidates: ``store.linking.semantic.nearest_to_new``, with ``stored``, the new units' nearest
    stored units, when the caller read them beside the transaction. Read on another connection,
    they can name a unit deleted since: a pair whose end no longer exists is dropped (its write
    order is unknown)."""
    if not units:
        return {"temporal": 0, "semantic": 0}
    temporal = temporal_candidates(conn, agent_id, [(u[0], u[1]) for u in units],
                                   window_hours=config.temporal_window_hours, limit=config.temporal_max_links)
    semantic = nearest_to_new(conn, agent_id, [(u[0], u[2]) for u in units], top_k=config.semantic_top_k,
                              min_similarity=config.semantic_min_similarity,
                              stored=None if stored is None else list(stored))
    new = {u[0] for u in units}
    weights = temporal_weights(np.asarray(temporal.seconds, dtype=np.float64), config.temporal_window_hours)
    by_kind = {
        "temporal": (_as_tuples(strongest_per_pair(temporal.unit, temporal.other, weights)),
                     config.temporal_max_links),
        "semantic": (unique_pairs(semantic), config.semantic_top_k),
    }
    ends = {x for pairs, _ in by_kind.values() for a, b, _ in pairs for x in (a, b)}
    seq = unit_seqs(conn, agent_id, ends)
    known = {u.int for u in seq}  # an end deleted since has no write order: its pair is dropped
    by_kind = {kind: ([p for p in pairs if p[0].int in known and p[1].int in known], keep)
               for kind, (pairs, keep) in by_kind.items()}
    kept = {kind: cap_older(conn, agent_id, kind, keep_strongest(pairs, new, keep, seq), new, keep, seq)
            for kind, (pairs, keep) in by_kind.items()}
    insert_pairs(conn, agent_id, _columns(kept), fresh=True)
    return {"temporal": len(temporal.unit), "semantic": len(semantic)}


def _columns(by_kind: dict[str, list[tuple[UUID, UUID, float]]]) -> PairColumns:
    """Each kind's pairs (unique, smaller id first, weights as stored) as one set of columns."""
    pairs = [p for kind_pairs in by_kind.values() for p in kind_pairs]
    return PairColumns([p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs],
                       [_KIND_CODES[kind] for kind, kind_pairs in by_kind.items() for _ in kind_pairs])


def unique_pairs(pairs: Iterable[tuple[UUID, UUID, float]]) -> list[tuple[UUID, UUID, float]]:
    """Each unordered pair once, as ``(smaller id, larger id, weight)`` with its largest weight,
    clamped to [0, 1] and rounded as stored (``real``), so that ranking new links beside stored
    ones sees the same ties; self-pairs dropped (``store.linking.pairs``)."""
    pairs = list(pairs)
    return _as_tuples(strongest_per_pair([p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs]))


def _as_tuples(columns: PairColumns) -> list[tuple[UUID, UUID, float]]:
    return list(zip(columns.low, columns.high, columns.weight))


def unit_seqs(conn: psycopg.Connection, agent_id: str, ids: Iterable[UUID]) -> dict[UUID, int]:
    """The write order (``seq``) of the given units. One statement."""
    ids = list(ids)
    if not ids:
        return {}
    return dict(conn.execute("SELECT id, seq FROM memory_units WHERE agent_id = %s AND id = ANY(%b)",
                             (agent_id, ids)).fetchall())


def over_cap(pairs: Sequence[tuple[UUID, UUID, float]], wanted: set[UUID], keep: int,
             seq: dict[UUID, int]) -> set[tuple[UUID, UUID]]:
    """The rule of the cap: each unit of ``wanted`` keeps its ``keep`` strongest of ``pairs``
    (unique, one kind); among equal weights the other unit written nearest (``seq``), then the
    one written first. Returns the pairs some wanted end drops. Ranked in arrays: a conversation
    has tens of thousands of (unit, link) entries, and a Python tuple per entry was a fifth of
    the link stage, with the garbage collections they set off."""
    if not pairs:
        return set()
    n = len(pairs)
    ends_a, ends_b = [a.int for a, _, _ in pairs], [b.int for _, b, _ in pairs]  # ints hash in C, UUIDs in Python
    seq_of, wanted_ints = {k.int: v for k, v in seq.items()}, {u.int for u in wanted}
    first = np.fromiter((seq_of.get(a, 0) for a in ends_a), dtype=np.int64, count=n)
    second = np.fromiter((seq_of.get(b, 0) for b in ends_b), dtype=np.int64, count=n)
    weight = np.fromiter((w for _, _, w in pairs), dtype=np.float64, count=n)
    owner_a = np.fromiter((a in wanted_ints for a in ends_a), dtype=bool, count=n)
    owner_b = np.fromiter((b in wanted_ints for b in ends_b), dtype=bool, count=n)
    names: dict[int, int] = {}
    name_a = np.fromiter((names.setdefault(a, len(names)) for a in ends_a), dtype=np.int64, count=n)
    name_b = np.fromiter((names.setdefault(b, len(names)) for b in ends_b), dtype=np.int64, count=n)
    pair = np.concatenate([np.flatnonzero(owner_a), np.flatnonzero(owner_b)])
    owner = np.concatenate([name_a[owner_a], name_b[owner_b]])
    mine = np.concatenate([first[owner_a], second[owner_b]])
    other = np.concatenate([second[owner_a], first[owner_b]])
    order = np.lexsort((other, np.abs(mine - other), -weight[pair], owner))
    owner, pair = owner[order], pair[order]
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    rank = np.arange(len(owner)) - np.repeat(starts, np.diff(np.r_[starts, len(owner)]))
    return {(pairs[i][0], pairs[i][1]) for i in np.unique(pair[rank >= keep]).tolist()}


def keep_strongest(pairs: Sequence[tuple[UUID, UUID, float]], new: set[UUID], keep: int,
                   seq: dict[UUID, int]) -> list[tuple[UUID, UUID, float]]:
    """The unique ``pairs`` of one kind left once each unit of ``new`` keeps its ``keep`` strongest
    (``over_cap``); for units written in this transaction, whose every link is among ``pairs``."""
    drop = over_cap(pairs, new, keep, seq)
    return [pair for pair in pairs if pair[:2] not in drop]


def cap_older(conn: psycopg.Connection, agent_id: str, kind: str, pairs: Sequence[tuple[UUID, UUID, float]],
              new: set[UUID], keep: int, seq: dict[UUID, int]) -> list[tuple[UUID, UUID, float]]:
    """The new ``pairs`` of ``kind`` (each new unit already at or under the cap) left once each older
    unit they touch keeps its ``keep`` strongest of its stored links and these (``over_cap``); its
    stored links it drops are deleted. Adds the seqs it reads to ``seq``. Three statements when an
    older unit is touched, none otherwise."""
    older = may_exceed(pairs, new, keep)
    if not older:
        return list(pairs)
    stored = incident_links(conn, agent_id, older, kind)
    seq.update(unit_seqs(conn, agent_id, {x for a, b, _ in stored for x in (a, b)} - seq.keys()))
    drop = over_cap([*stored, *pairs], set(older), keep, seq)
    delete_links(conn, agent_id, kind, [(a, b) for a, b, _ in stored if (a, b) in drop])
    return [pair for pair in pairs if pair[:2] not in drop]


def may_exceed(pairs: Sequence[tuple[UUID, UUID, float]], new: set[UUID], keep: int) -> list[UUID]:
    """The units of ``pairs`` (just linked, one kind) that can have more than ``keep`` links of that
    kind now, the only ones the cap needs to look at (``cap_older``): every older unit they touch, and the
    new units (``new``: written in this transaction, so every link of theirs is among ``pairs``) with
    more than ``keep`` distinct partners. A new unit at or under ``keep`` has nothing to prune; in a
    conversation most have about ``keep`` temporal links, the nearest turns on both sides."""
    partners: dict[int, set[int]] = {}  # by the ids' integers: they hash in C, UUIDs in Python
    units: dict[int, UUID] = {}
    for a, b, _ in pairs:
        ia, ib = a.int, b.int
        if ia != ib:
            partners.setdefault(ia, set()).add(ib)
            partners.setdefault(ib, set()).add(ia)
            units[ia], units[ib] = a, b
    new_ints = {u.int for u in new}
    return [units[u] for u, others in partners.items() if u not in new_ints or len(others) > keep]


def insert_links(conn: psycopg.Connection, agent_id: str, links: Sequence[tuple[UUID, UUID, str, float]], *,
                 fresh: bool = False) -> int:
    """Write stored links (temporal / semantic) in one statement, each pair once (``from_id < to_id``,
    the larger weight of a pair given twice); a pair already stored keeps the larger weight.
    Self-links are dropped. Returns rows written.

    ``fresh``: every pair has an end written in this transaction (``link_units``' batch: no other
    transaction sees it yet, and each batch is linked once), so no stored row can hold it: a plain
    insert. The ``ON CONFLICT`` arbiter cost 15 % of the statement (256–313 against 322–339 ms for a
    conversation's 8,961 rows); a pair stored after all fails on the primary key."""
    codes = [_KIND_CODES[str(LinkKind(link[2]).value)] for link in links]
    columns = strongest_per_pair([link[0] for link in links], [link[1] for link in links],
                                 [link[3] for link in links], codes)
    return insert_pairs(conn, agent_id, columns, fresh=fresh)


KINDS = tuple(kind.value for kind in LinkKind)
"""The link kinds by code, as ``PairColumns.kind`` holds them for ``insert_pairs``."""
_KIND_CODES = {kind: code for code, kind in enumerate(KINDS)}


def insert_pairs(conn: psycopg.Connection, agent_id: str, pairs: PairColumns, *, fresh: bool) -> int:
    """``insert_links`` for pairs already unique per kind, smaller id first, weights as stored
    (``store.linking.pairs``; ``kind``: codes of ``KINDS``): a statement per ``slices`` of pairs, nothing
    allocated per pair."""
    if not pairs.low:
        return 0
    # the arrays go binary (%b): as text each element is checked for quoting (a regex each)
    insert = ("INSERT INTO links (agent_id, from_id, to_id, kind, weight)"
              " SELECT %s, f, t, k, w FROM unnest(%b::uuid[], %b::uuid[], %b::text[], %b::real[]) AS x(f, t, k, w)"
              + ("" if fresh else " ON CONFLICT (agent_id, from_id, to_id, kind)"
                                  " DO UPDATE SET weight = GREATEST(links.weight, EXCLUDED.weight)"))
    inserted = 0
    with cached_plans(conn):  # two foreign-key checks per link
        for part in slices(len(pairs.low)):
            inserted += conn.execute(insert, (agent_id, pairs.low[part], pairs.high[part],
                                              [KINDS[k] for k in pairs.kind[part]], pairs.weight[part])).rowcount
    return inserted


def incident_links(conn: psycopg.Connection, agent_id: str, unit_ids: Sequence[UUID],
                   kind: str) -> list[tuple[UUID, UUID, float]]:
    """The stored links of ``kind`` with an end among ``unit_ids``, as ``(from_id, to_id, weight)``
    (index scans on both ends), the weight exactly as stored: ``real`` read as text is its shortest
    decimal (0.7923548), not the value a new link's ``unique_pairs`` weight has (0.79235482…), and
    ranking the two together broke equal weights the wrong way. One statement."""
    return conn.execute(
        "SELECT from_id, to_id, weight::float8 FROM links WHERE agent_id = %(a)s AND kind = %(k)s"
        " AND (from_id = ANY(%(ids)b) OR to_id = ANY(%(ids)b))",  # binary arrays: no quoting per element
        {"a": agent_id, "k": str(LinkKind(kind).value), "ids": list(unit_ids)},
    ).fetchall()


def delete_links(conn: psycopg.Connection, agent_id: str, kind: str, pairs: Sequence[tuple[UUID, UUID]]) -> int:
    """Delete stored links of ``kind`` by ``(from_id, to_id)``, by primary key. Returns rows deleted."""
    if not pairs:
        return 0
    cur = conn.execute(
        "DELETE FROM links l USING unnest(%b::uuid[], %b::uuid[]) AS d(f, t)"
        " WHERE l.agent_id = %s AND l.kind = %s AND l.from_id = d.f AND l.to_id = d.t",
        ([p[0] for p in pairs], [p[1] for p in pairs], agent_id, str(LinkKind(kind).value)),
    )
    return cur.rowcount


def degree_stats(conn: psycopg.Connection, agent_id: str) -> dict[str, dict[str, float]]:
    """Per stored link kind: rows, mean and max links per unit (over units with at least one)."""
    rows = conn.execute(
        "WITH ends AS (SELECT kind, from_id AS u FROM links WHERE agent_id = %(a)s"
        " UNION ALL SELECT kind, to_id FROM links WHERE agent_id = %(a)s),"
        " deg AS (SELECT kind, u, count(*) AS d FROM ends GROUP BY kind, u)"
        " SELECT kind, sum(d) / 2, avg(d)::float8, max(d) FROM deg GROUP BY kind",
        {"a": agent_id},
    ).fetchall()
    return {kind: {"rows": int(n), "mean_degree": float(mean), "max_degree": int(mx)} for kind, n, mean, mx in rows}
