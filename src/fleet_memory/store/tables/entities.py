"""SQL for ``entities`` and ``unit_entities`` (mentions): candidates for resolution, creation
without duplicates, mention bookkeeping, and the entity operations (list, get, rename, merge,
delete).

No duplicates under concurrency: entity resolution for one agent runs under a transaction-level
advisory lock (``lock_entities``), and creation is ``INSERT … ON CONFLICT (agent_id,
normalized_name) DO UPDATE … RETURNING id`` on the unique index, so two puts that both see no
entity named "Alice" end with one entity and both mentions on it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from ...model import Entity
from ...naming import lookup_forms, normalize_name
from ..db.database import cached_plans
from ..db.rows import fetch, fetch_one, slices

__all__ = [
    "NewEntity",
    "Mention",
    "lock_entities",
    "resolution_candidates",
    "cooccurring_names",
    "create_entities",
    "record_mentions",
    "list_entities",
    "get_entity",
    "lookup_entities",
    "entity_unit_ids",
    "rename_entity",
    "merge_entities",
    "delete_entity",
    "mentioned_in",
    "recount",
]

_ENTITY_COLUMNS = "id, agent_id, name, label, aliases, first_seen, last_seen, mention_count"


@dataclass(frozen=True, slots=True)
class NewEntity:
    id: UUID
    name: str
    normalized_name: str
    label: str
    first_seen: datetime
    last_seen: datetime


@dataclass(frozen=True, slots=True)
class Mention:
    unit_id: UUID
    entity_id: UUID
    surface: str
    event_date: datetime


def _entity(c: Mapping[str, Any]) -> Entity:
    return Entity(c["id"], c["agent_id"], c["name"], c["label"], tuple(c["aliases"] or ()), c["first_seen"],
                  c["last_seen"], int(c["mention_count"]))


def lock_entities(conn: psycopg.Connection, agent_id: str) -> None:
    """Serialise entity resolution per agent until the transaction ends."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('fm-entities:' || %s, 0))", (agent_id,))


def resolution_candidates(conn: psycopg.Connection, agent_id: str, names: Sequence[str],
                          tokens: Sequence[str]) -> list[Entity]:
    """Entities whose normalised name or an alias is one of ``names`` (exact), or whose name shares
    a word with ``tokens`` (for fuzzy scoring in Python). One query per ``slices`` of the longer list."""
    names, tokens = list(names), list(tokens)
    found: dict[UUID, Entity] = {}
    for part in slices(max(len(names), len(tokens)) if names else 0):
        for e in fetch(
            conn,
            f"SELECT {_ENTITY_COLUMNS} FROM entities WHERE agent_id = %(a)s AND ("
            " normalized_name = ANY(%(n)s) OR aliases && %(n)s"
            " OR string_to_array(normalized_name, ' ') && %(t)s)",
            {"a": agent_id, "n": names[part], "t": tokens[part]},
            _entity,
        ):
            found.setdefault(e.id, e)
    return list(found.values())


def cooccurring_names(conn: psycopg.Connection, agent_id: str, entity_ids: Sequence[UUID],
                      *, per_entity: int = 200) -> dict[UUID, set[str]]:
    """For each entity, the normalised names of entities mentioned in the same units (over at most
    ``per_entity`` of its mentions, so a hub entity stays cheap). One query per ``slices`` of ids."""
    if not entity_ids:
        return {}
    ids = list(entity_ids)
    out: dict[UUID, set[str]] = {}
    for part in slices(len(ids)):
        for eid, name in conn.execute(
            "SELECT s.entity_id, e.normalized_name FROM unnest(%(ids)s::uuid[]) AS s(entity_id)"
            " CROSS JOIN LATERAL (SELECT ue.unit_id FROM unit_entities ue WHERE ue.agent_id = %(a)s"
            "   AND ue.entity_id = s.entity_id ORDER BY ue.unit_id DESC LIMIT %(k)s) m"
            " JOIN unit_entities o ON o.agent_id = %(a)s AND o.unit_id = m.unit_id AND o.entity_id <> s.entity_id"
            " JOIN entities e ON e.agent_id = %(a)s AND e.id = o.entity_id",
            {"a": agent_id, "ids": ids[part], "k": per_entity},
        ).fetchall():
            out.setdefault(eid, set()).add(name)
    return out


def create_entities(conn: psycopg.Connection, agent_id: str, new: Sequence[NewEntity]) -> dict[str, UUID]:
    """Create entities (mention_count 0; ``record_mentions`` counts); a name that already exists
    (a concurrent put) keeps its row. Returns normalised name → id for all of ``new``."""
    if not new:
        return {}
    created: dict[str, UUID] = {}
    for part in slices(len(new)):
        chunk = new[part]
        created.update(conn.execute(
            "INSERT INTO entities (agent_id, id, name, normalized_name, label, first_seen, last_seen, mention_count)"
            " SELECT %s, i, n, nn, l, f, s, 0"
            " FROM unnest(%s::uuid[], %s::text[], %s::text[], %s::text[], %s::timestamptz[], %s::timestamptz[])"
            " AS x(i, n, nn, l, f, s)"
            " ON CONFLICT (agent_id, normalized_name) DO UPDATE SET last_seen = GREATEST(entities.last_seen,"
            " EXCLUDED.last_seen)"
            " RETURNING normalized_name, id",
            (agent_id, [e.id for e in chunk], [e.name for e in chunk], [e.normalized_name for e in chunk],
             [e.label for e in chunk], [e.first_seen for e in chunk], [e.last_seen for e in chunk]),
        ).fetchall())
    return created


_COUNT_MENTIONS = (  # aliases: the surface forms joined in when one is new, never the name itself
    "UPDATE entities e SET mention_count = e.mention_count + %(c)s,"
    " first_seen = LEAST(e.first_seen, %(f)s), last_seen = GREATEST(e.last_seen, %(l)s),"
    " aliases = array_remove(CASE WHEN %(al)s::text[] <@ (e.aliases || ARRAY[e.name]) THEN e.aliases"
    "   ELSE ARRAY(SELECT DISTINCT a FROM unnest(e.aliases || %(al)s::text[]) AS a ORDER BY a) END, e.name)"
    " WHERE e.agent_id = %(a)s AND e.id = %(i)s")
"""One entity's new mentions, by primary key. Sent once per entity (pipelined) rather than as one
join with the put's arrays: the join was planned as a nested loop over the agent's entities when
the planner's statistics predate the agent (``store.db.planner``), and a put naming thousands of new
entities then compared every pair (minutes for a put of 1.5 MB of capitalised fragments). The
primary-key plan is the same whatever the statistics say."""


def record_mentions(conn: psycopg.Connection, agent_id: str, mentions: Sequence[Mention]) -> int:
    """Insert the mention rows and update, per entity, mention_count (+ new mention rows),
    first/last seen and aliases (surface forms other than the name): inserts in ``slices``, then one update
    per entity in id order (``_COUNT_MENTIONS``)."""
    if not mentions:
        return 0
    first: dict[UUID, datetime] = {}
    last: dict[UUID, datetime] = {}
    aliases: dict[UUID, set[str]] = {}
    surfaces = [" ".join(m.surface.split()) for m in mentions]
    for m, surface in zip(mentions, surfaces):
        first[m.entity_id] = min(first.get(m.entity_id, m.event_date), m.event_date)
        last[m.entity_id] = max(last.get(m.entity_id, m.event_date), m.event_date)
        aliases.setdefault(m.entity_id, set()).add(surface)
    with cached_plans(conn):  # two foreign-key checks per mention, then the same update per entity
        inserted: Counter[UUID] = Counter()
        for part in slices(len(mentions)):
            inserted.update(eid for (eid,) in conn.execute(
                "INSERT INTO unit_entities (agent_id, unit_id, entity_id, surface)"
                " SELECT %s, u, e, s FROM unnest(%s::uuid[], %s::uuid[], %s::text[]) AS x(u, e, s)"
                " ON CONFLICT DO NOTHING RETURNING entity_id",
                (agent_id, [m.unit_id for m in mentions[part]], [m.entity_id for m in mentions[part]],
                 surfaces[part]),
            ).fetchall())
        conn.cursor().executemany(_COUNT_MENTIONS, [
            {"a": agent_id, "i": i, "c": inserted[i], "f": first[i], "l": last[i], "al": sorted(aliases[i])}
            for i in sorted(first)])
    return sum(inserted.values())


def list_entities(conn: psycopg.Connection, agent_id: str, *, limit: int, offset: int = 0,
                  label: str | None = None) -> list[Entity]:
    """Entities by mention count (most mentioned first), then name."""
    return fetch(
        conn,
        f"SELECT {_ENTITY_COLUMNS} FROM entities WHERE agent_id = %s AND (%s::text IS NULL OR label = %s)"
        " ORDER BY mention_count DESC, name, id LIMIT %s OFFSET %s",
        (agent_id, label, label, limit, offset),
        _entity,
    )


def get_entity(conn: psycopg.Connection, agent_id: str, entity_id: UUID) -> Entity | None:
    return fetch_one(
        conn,
        f"SELECT {_ENTITY_COLUMNS} FROM entities WHERE agent_id = %s AND id = %s", (agent_id, entity_id), _entity,
    )


def lookup_entities(conn: psycopg.Connection, agent_id: str, keys: Sequence[str]) -> list[Entity]:
    """The one lookup rule for names typed by someone: entities whose id is one of ``keys``, whose
    normalised name is a key's normalised form, or that have an alias among a key's surface forms
    (``naming.lookup_forms``) — most mentioned first. One statement, on the primary key, the unique
    name index and the GIN alias index."""
    ids = []
    for key in keys:
        try:
            ids.append(UUID(key))
        except ValueError:
            pass
    normalized, surfaces = lookup_forms(keys)
    if not ids and not normalized:
        return []
    return fetch(
        conn,
        f"SELECT {_ENTITY_COLUMNS} FROM entities WHERE agent_id = %(a)s"
        " AND (id = ANY(%(i)s::uuid[]) OR normalized_name = ANY(%(n)s) OR aliases && %(s)s)"
        " ORDER BY mention_count DESC, name, id",
        {"a": agent_id, "i": ids, "n": normalized, "s": surfaces},
        _entity,
    )


def entity_unit_ids(conn: psycopg.Connection, agent_id: str, entity_id: UUID, *, limit: int) -> list[UUID]:
    """Units mentioning the entity, most recent first."""
    rows = conn.execute(
        "SELECT u.id FROM unit_entities ue JOIN memory_units u ON u.agent_id = ue.agent_id AND u.id = ue.unit_id"
        " WHERE ue.agent_id = %s AND ue.entity_id = %s ORDER BY u.event_date DESC, u.seq DESC LIMIT %s",
        (agent_id, entity_id, limit),
    ).fetchall()
    return [r[0] for r in rows]


def rename_entity(conn: psycopg.Connection, agent_id: str, entity_id: UUID, new_name: str) -> Entity | None:
    """Give the entity a new canonical name; the old one becomes an alias. ``None`` if the entity
    does not exist; raises ``psycopg.errors.UniqueViolation`` if another entity has the name."""
    return fetch_one(
        conn,
        "UPDATE entities SET name = %(n)s, normalized_name = %(nn)s,"
        " aliases = array_remove(ARRAY(SELECT DISTINCT a FROM unnest(aliases || name) a ORDER BY a), %(n)s)"
        f" WHERE agent_id = %(a)s AND id = %(i)s RETURNING {_ENTITY_COLUMNS}",
        {"n": new_name, "nn": normalize_name(new_name), "a": agent_id, "i": entity_id},
        _entity,
    )


def merge_entities(conn: psycopg.Connection, agent_id: str, keep_id: UUID, drop_id: UUID) -> Entity | None:
    """Move every mention of ``drop_id`` to ``keep_id``, fold in its name, aliases and seen dates,
    recount mentions, and delete ``drop_id``. ``None`` if either does not exist."""
    if keep_id == drop_id:
        return get_entity(conn, agent_id, keep_id)
    found = conn.execute(
        "SELECT id FROM entities WHERE agent_id = %s AND id = ANY(%s) FOR UPDATE", (agent_id, [keep_id, drop_id])
    ).fetchall()
    if len(found) != 2:
        return None
    conn.execute(
        "INSERT INTO unit_entities (agent_id, unit_id, entity_id, surface)"
        " SELECT agent_id, unit_id, %s, surface FROM unit_entities"
        " WHERE agent_id = %s AND entity_id = %s ON CONFLICT DO NOTHING",
        (keep_id, agent_id, drop_id),
    )
    conn.execute(
        "UPDATE entities k SET aliases = array_remove(ARRAY(SELECT DISTINCT a FROM unnest(k.aliases || d.aliases"
        " || d.name) a ORDER BY a), k.name), first_seen = LEAST(k.first_seen, d.first_seen),"
        " last_seen = GREATEST(k.last_seen, d.last_seen)"
        " FROM entities d WHERE k.agent_id = %(a)s AND k.id = %(k)s AND d.agent_id = %(a)s AND d.id = %(d)s",
        {"a": agent_id, "k": keep_id, "d": drop_id},
    )
    conn.execute("DELETE FROM entities WHERE agent_id = %s AND id = %s", (agent_id, drop_id))
    conn.execute(
        "UPDATE entities SET mention_count = (SELECT count(*) FROM unit_entities WHERE agent_id = %(a)s"
        " AND entity_id = %(k)s) WHERE agent_id = %(a)s AND id = %(k)s",
        {"a": agent_id, "k": keep_id},
    )
    return get_entity(conn, agent_id, keep_id)


def delete_entity(conn: psycopg.Connection, agent_id: str, entity_id: UUID) -> bool:
    """Remove the entity and its mentions (the units stay)."""
    return conn.execute("DELETE FROM entities WHERE agent_id = %s AND id = %s", (agent_id, entity_id)).rowcount > 0


def mentioned_in(conn: psycopg.Connection, agent_id: str, unit_ids: Sequence[UUID]) -> dict[UUID, set[str | None]]:
    """The entities the units mention, each with the surfaces it was found under there (None: not
    known), read before the units are deleted, for ``recount``."""
    named: dict[UUID, set[str | None]] = {}
    if unit_ids:
        for entity_id, surface in conn.execute(
                "SELECT DISTINCT entity_id, surface FROM unit_entities WHERE agent_id = %s AND unit_id = ANY(%s)",
                (agent_id, list(unit_ids))).fetchall():
            named.setdefault(entity_id, set()).add(surface)
    return named


def recount(conn: psycopg.Connection, agent_id: str, named: Mapping[UUID, set[str | None]]) -> int:
    """After units were deleted (``named``: what ``mentioned_in`` read of them): each entity they
    mentioned gets its mention count and first/last seen from the mentions that remain (their
    units' event times), loses the aliases that only the deleted mentions carried (a surface no
    remaining mention has, when every remaining mention's surface is known), and is deleted when no
    mention remains, as an entity nobody else named. Rows locked in id order, as merges lock them.
    Returns the entities deleted. Three statements."""
    if not named:
        return 0
    ids = sorted(named)
    conn.execute(
        "WITH held AS (SELECT id FROM entities WHERE agent_id = %(a)s AND id = ANY(%(i)s) ORDER BY id FOR UPDATE),"
        " left_over AS (SELECT ue.entity_id, count(*) AS n, min(u.event_date) AS f, max(u.event_date) AS l"
        "   FROM unit_entities ue JOIN memory_units u ON u.agent_id = ue.agent_id AND u.id = ue.unit_id"
        "   WHERE ue.agent_id = %(a)s AND ue.entity_id = ANY(%(i)s) GROUP BY ue.entity_id)"
        " UPDATE entities e SET mention_count = o.n, first_seen = o.f, last_seen = o.l"
        " FROM left_over o, held h WHERE e.agent_id = %(a)s AND e.id = o.entity_id AND h.id = e.id",
        {"a": agent_id, "i": ids})
    gone = [(i, s) for i in ids for s in sorted(named[i] - {None})]
    if gone:
        conn.execute(
            "WITH gone AS (SELECT i, s FROM unnest(%(gi)s::uuid[], %(gs)s::text[]) AS x(i, s)),"
            " dropped AS (SELECT g.i, array_agg(g.s) AS s FROM gone g WHERE NOT EXISTS"
            "   (SELECT 1 FROM unit_entities ue WHERE ue.agent_id = %(a)s AND ue.entity_id = g.i"
            "    AND (ue.surface = g.s OR ue.surface IS NULL)) GROUP BY g.i)"
            " UPDATE entities e SET aliases = ARRAY(SELECT a FROM unnest(e.aliases) a WHERE a <> ALL(d.s) ORDER BY a)"
            " FROM dropped d WHERE e.agent_id = %(a)s AND e.id = d.i AND e.aliases && d.s",
            {"a": agent_id, "gi": [g[0] for g in gone], "gs": [g[1] for g in gone]})
    return conn.execute(
        "DELETE FROM entities e WHERE e.agent_id = %(a)s AND e.id = ANY(%(i)s) AND NOT EXISTS"
        " (SELECT 1 FROM unit_entities ue WHERE ue.agent_id = %(a)s AND ue.entity_id = e.id)",
        {"a": agent_id, "i": ids}).rowcount
