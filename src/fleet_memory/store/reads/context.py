"""What an agent already knows that helps read a new put: the people of its recent units and the
stored entities the put names (the gazetteer). ONE statement per agent of a put (``store.db.routing``),
for all its (user, session) groups together, whatever the number of pronouns or names in it.

Per group (``ContextQuery``): ``recent`` (unless the group asks for no people) — the units of the
agent and the same user (``IS NOT DISTINCT FROM``: never another user's) said in ``[since, until]``:
their event date lies there, or their document's does (a unit that names an earlier date, "We
reported it in January, the letting agent (a guy called Darren Pike) came", carries January, though
it was said today; only the latest ``units`` documents of the user are read for that: a unit of an
older one would rank below theirs, unless it is of the put's session); units of the same session
first, then the latest said (the last written first), at most ``units`` of them — with, per unit,
its speaker and the entities it mentions (with their labels), each with the unit's text, and the
text once more with no name (``UNIT_TEXT``: a unit that names no one may still say "Kai says he
…") and the first ``MESSAGE_CHARS`` of the message it came from as it was put (its document: the
pronouns a put's coreference rewrote are still there, "I saw Dr Haddad … She seemed really
thorough.");
``relatives`` (when the group asks, ``ContextQuery.relatives``: its texts name someone by a family
relation alone) — the texts of the user's own words (no speaker: a speaker's "our son" is theirs)
that match the group's pattern, without case (a relation with a name beside it, "my daughter Aoife":
``ingest.kin``), among the agent's latest ``RELATIVE_SCAN`` units at any date (a family tie holds
for years, past the people's window; read backwards on the (agent_id, event_date) index, so the
cost is bounded however long the agent's history), as rows of position ``RELATIVE_TEXT``;
``known`` — the agent's entities whose normalised name or an alias is one of the group's
``names`` (``naming.lookup_forms``), with their stored label.
Archived units are left out. Bounded by ``units`` per group and by the names asked; uses the
(agent_id, event_date) indexes of units and of documents, the unique name index and the GIN alias
index (per group, the names through the name index and the surface forms through the alias index,
one lookup each: one join with ``OR`` compared every asked form with every entity of the agent,
0.77 s for 829 forms against 2,300 entities).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from ...naming import lookup_forms
from ..db.rows import fetch
from ..db.routing import by_agent

__all__ = ["ContextQuery", "KnownName", "MESSAGE_CHARS", "RELATIVE_SCAN", "RELATIVE_TEXT", "RecentPerson",
           "UNIT_TEXT", "agent_context"]


@dataclass(frozen=True, slots=True)
class ContextQuery:
    agent_id: str
    user_id: str | None
    session_id: str | None
    since: datetime
    until: datetime
    names: tuple[str, ...]
    people: bool = True  # read the recent units' people (False: the known names alone)
    relatives: str | None = None  # a PostgreSQL regex: the user's units that match it, of the latest RELATIVE_SCAN


UNIT_TEXT = -2  # the ``position`` of a recent unit's own row: its text, no person
RELATIVE_TEXT = -3  # the ``position`` of a row that only gives a text matching ``ContextQuery.relatives``
RELATIVE_SCAN = 2_000  # how many of the agent's latest units are read for ``ContextQuery.relatives``
MESSAGE_CHARS = 4_000  # how much of a recent unit's message (its document) is read


@dataclass(frozen=True, slots=True)
class RecentPerson:
    """A person of a recent unit: ``rank`` 0 is the most relevant unit (same session, latest);
    ``position`` where the name occurs in the unit's text (-1: the unit's speaker; ``RELATIVE_TEXT``: a
    text that may name a relative, ``ContextQuery.relatives``, rank -1; ``UNIT_TEXT``:
    no person, ``name`` is empty); ``text`` the unit's text (how memory refers to the person: "my
    sister Priya", "her flat")."""

    name: str
    rank: int
    position: int
    label: str = "PERSON"
    text: str = ""
    at: datetime | None = None  # when the unit was said: its event date, or its document's (the SQL's branches)
    message: str = ""  # on a ``UNIT_TEXT`` row: the start of the message the unit came from, as it was put


@dataclass(frozen=True, slots=True)
class KnownName:
    name: str
    normalized_name: str
    label: str
    aliases: tuple[str, ...]


_SQL = """
WITH g AS (
  SELECT * FROM unnest(%(gi)s::int[], %(u)s::text[], %(s)s::text[], %(since)s::timestamptz[],
                       %(until)s::timestamptz[], %(k)s::int[]) AS g(gi, user_id, session_id, since, until, k)
), recent AS (
  SELECT g.gi, r.id, r.text, r.speaker, r.rank, r.said AS event_date, r.document_id FROM g CROSS JOIN LATERAL (
    SELECT u.id, u.text, u.speaker, u.said, u.document_id,
           row_number() OVER (ORDER BY (u.session_id IS NOT DISTINCT FROM g.session_id) DESC,
                                       u.said DESC, u.created_at DESC, u.seq DESC) - 1 AS rank
    FROM (
      SELECT u.id, u.text, u.speaker, u.event_date AS said, u.document_id, u.session_id, u.created_at, u.seq
      FROM memory_units u
      WHERE u.agent_id = %(a)s AND u.archived_at IS NULL AND u.user_id IS NOT DISTINCT FROM g.user_id
        AND u.event_date BETWEEN g.since AND g.until
      UNION ALL
      SELECT u.id, u.text, u.speaker, d.event_date, u.document_id, u.session_id, u.created_at, u.seq
      FROM (SELECT d.id, d.event_date FROM documents d
            WHERE d.agent_id = %(a)s AND d.user_id IS NOT DISTINCT FROM g.user_id
              AND d.event_date BETWEEN g.since AND g.until
            ORDER BY d.event_date DESC LIMIT g.k) d
      JOIN memory_units u ON u.agent_id = %(a)s AND u.document_id = d.id
      WHERE u.event_date < g.since AND u.archived_at IS NULL AND u.user_id IS NOT DISTINCT FROM g.user_id
    ) u
    ORDER BY (u.session_id IS NOT DISTINCT FROM g.session_id) DESC, u.said DESC, u.created_at DESC, u.seq DESC
    LIMIT g.k) r
), asked AS (
  SELECT * FROM unnest(%(ni)s::int[], %(n)s::text[], %(f)s::text[]) AS x(gi, norm, surface)
), kin AS (
  SELECT * FROM unnest(%(ki)s::int[], %(kre)s::text[]) AS x(gi, pattern)
)
SELECT 'recent' AS kind, r.gi, e.name, '' AS normalized_name, e.label, r.rank,
       strpos(lower(r.text), lower(e.name)) AS position, '{}'::text[] AS aliases, r.text, r.event_date,
       '' AS message
FROM recent r
JOIN unit_entities ue ON ue.agent_id = %(a)s AND ue.unit_id = r.id
JOIN entities e ON e.agent_id = %(a)s AND e.id = ue.entity_id
UNION ALL
SELECT 'recent', r.gi, r.speaker, '', 'PERSON', r.rank, -1, '{}'::text[], r.text, r.event_date, '' FROM recent r
WHERE r.speaker IS NOT NULL
UNION ALL
SELECT 'recent', r.gi, '', '', '', r.rank, -2, '{}'::text[], r.text, r.event_date, coalesce(left(d.content, %(m)s), '')
FROM recent r LEFT JOIN documents d ON d.agent_id = %(a)s AND d.id = r.document_id
UNION ALL
SELECT 'recent', g.gi, '', '', '', -1, -3, '{}'::text[], r.text, r.said, '' FROM g JOIN kin ON kin.gi = g.gi
CROSS JOIN LATERAL (
  SELECT u.text, u.said FROM (
    SELECT u.text, u.event_date AS said, u.user_id, u.speaker, u.archived_at FROM memory_units u
    WHERE u.agent_id = %(a)s AND u.event_date <= g.until
    ORDER BY u.event_date DESC LIMIT %(ks)s) u
  WHERE u.archived_at IS NULL AND u.user_id IS NOT DISTINCT FROM g.user_id AND u.speaker IS NULL
    AND u.text ~* kin.pattern) r
UNION ALL
SELECT DISTINCT 'known', k.gi, k.name, k.normalized_name, k.label, 0, 0, k.aliases, '', NULL::timestamptz, '' FROM (
  SELECT g.gi, e.name, e.normalized_name, e.label, e.aliases FROM g
  JOIN (SELECT gi, array_agg(norm) AS ns FROM asked WHERE norm <> '' GROUP BY gi) x ON x.gi = g.gi
  CROSS JOIN LATERAL (SELECT * FROM entities e WHERE e.agent_id = %(a)s AND e.normalized_name = ANY(x.ns)) e
  UNION ALL
  SELECT g.gi, e.name, e.normalized_name, e.label, e.aliases FROM g
  JOIN (SELECT gi, array_agg(surface) AS fs FROM asked WHERE surface <> '' GROUP BY gi) x ON x.gi = g.gi
  CROSS JOIN LATERAL (SELECT * FROM entities e WHERE e.agent_id = %(a)s AND e.aliases && x.fs) e
) k
"""


def agent_context(conn: psycopg.Connection, queries: Sequence[ContextQuery],
                  units: int = 8) -> list[tuple[list[RecentPerson], list[KnownName]]]:
    """Per query, in order: ``(recent people, known names)`` as the module docstring describes;
    one statement per agent."""
    out: list[tuple[list[RecentPerson], list[KnownName]]] = [([], []) for _ in queries]
    for agent_id, at in by_agent(q.agent_id for q in queries).items():
        for r in fetch(conn, _SQL, _params(agent_id, at, queries, units), _row):
            people, known = out[r["gi"]]
            if r["kind"] == "recent" and (r["name"] or r["position"] in (UNIT_TEXT, RELATIVE_TEXT)):
                people.append(RecentPerson(r["name"], int(r["rank"]), int(r["position"]), r["label"], r["text"],
                                           r["event_date"], r["message"]))
            elif r["kind"] == "known":
                known.append(KnownName(r["name"], r["normalized_name"], r["label"], tuple(r["aliases"] or ())))
    return out


def _params(agent_id: str, at: Sequence[int], queries: Sequence[ContextQuery], units: int) -> dict[str, Any]:
    """The statement's parameters for the groups ``at`` (positions in ``queries``) of one agent."""
    mine = [queries[gi] for gi in at]
    asked: list[tuple[int, str, str]] = []
    for gi, q in zip(at, mine):
        normalized, surfaces = lookup_forms(q.names)
        asked += [(gi, n, "") for n in normalized] + [(gi, "", f) for f in surfaces]
    return {
        "a": agent_id, "gi": list(at), "u": [q.user_id for q in mine], "s": [q.session_id for q in mine],
        "since": [q.since for q in mine], "until": [q.until for q in mine],
        "k": [units if q.people else 0 for q in mine], "m": MESSAGE_CHARS,
        "ni": [a[0] for a in asked], "n": [a[1] for a in asked], "f": [a[2] for a in asked],
        "ki": [gi for gi, q in zip(at, mine) if q.relatives], "kre": [q.relatives for q in mine if q.relatives],
        "ks": RELATIVE_SCAN,
    }


def _row(c: Mapping[str, Any]) -> Mapping[str, Any]:
    return c
