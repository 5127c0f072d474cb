"""What an agent already knows that helps read a new put: the people of its recent units and the stored
entities a put names (the gazetteer). One statement per (agent, user, session) group of a put,
whatever the number of pronouns or names in it.

``recent_people``: the units of the agent and the same user (``IS NOT DISTINCT FROM``: never another
user's) whose event date lies in ``[since, until]``, units of the same session first, then the most
recent — at most ``units`` of them — with, per unit, its speaker and the entities it mentions (with
their labels). ``known_names``: the agent's entities whose normalised name or an alias is one of
``names`` (``naming.lookup_forms``; with their stored label). Archived units are left out. Bounded
by ``units`` and by the number of names asked; uses the (agent_id, event_date) index, the unique
name index and the GIN alias index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from ..naming import lookup_forms
from .rows import fetch

__all__ = ["KnownName", "RecentPerson", "agent_context"]


@dataclass(frozen=True, slots=True)
class RecentPerson:
    """A person of a recent unit: ``rank`` 0 is the most relevant unit (same session, latest);
    ``position`` where the name occurs in the unit's text (-1: the unit's speaker)."""

    name: str
    rank: int
    position: int
    label: str = "PERSON"


@dataclass(frozen=True, slots=True)
class KnownName:
    name: str
    normalized_name: str
    label: str
    aliases: tuple[str, ...]


_SQL = """
WITH recent AS (
  SELECT u.id, u.text, u.speaker,
         row_number() OVER (ORDER BY (u.session_id IS NOT DISTINCT FROM %(s)s) DESC,
                                     u.event_date DESC, u.created_at DESC) - 1 AS rank
  FROM memory_units u
  WHERE u.agent_id = %(a)s AND u.archived_at IS NULL AND u.user_id IS NOT DISTINCT FROM %(u)s
    AND u.event_date BETWEEN %(since)s AND %(until)s
  ORDER BY (u.session_id IS NOT DISTINCT FROM %(s)s) DESC, u.event_date DESC, u.created_at DESC
  LIMIT %(k)s
)
SELECT 'recent' AS kind, e.name, '' AS normalized_name, e.label, r.rank,
       strpos(lower(r.text), lower(e.name)) AS position, '{}'::text[] AS aliases
FROM recent r
JOIN unit_entities ue ON ue.agent_id = %(a)s AND ue.unit_id = r.id
JOIN entities e ON e.agent_id = %(a)s AND e.id = ue.entity_id
UNION ALL
SELECT 'recent', r.speaker, '', 'PERSON', r.rank, -1, '{}'::text[] FROM recent r WHERE r.speaker IS NOT NULL
UNION ALL
SELECT 'known', e.name, e.normalized_name, e.label, 0, 0, e.aliases FROM entities e
WHERE e.agent_id = %(a)s AND (e.normalized_name = ANY(%(n)s) OR e.aliases && %(f)s)
"""


def agent_context(conn: psycopg.Connection, agent_id: str, *, user_id: str | None, session_id: str | None,
                  since: datetime, until: datetime, names: Sequence[str],
                  units: int = 8) -> tuple[list[RecentPerson], list[KnownName]]:
    """``(recent people, known names)`` as the module docstring describes; one statement."""
    normalized, surfaces = lookup_forms(names)
    rows = fetch(conn, _SQL, {"a": agent_id, "u": user_id, "s": session_id, "since": since, "until": until,
                              "n": normalized, "f": surfaces, "k": units}, _row)
    people = [RecentPerson(r["name"], int(r["rank"]), int(r["position"]), r["label"]) for r in rows
              if r["kind"] == "recent" and r["name"]]
    known = [KnownName(r["name"], r["normalized_name"], r["label"], tuple(r["aliases"] or ())) for r in rows
             if r["kind"] == "known"]
    return people, known


def _row(c: Mapping[str, Any]) -> Mapping[str, Any]:
    return c
