"""An agent's own indexes: recall cost that depends on the agent, not on the fleet.

Why. ``memory_units`` holds every agent's rows. A fleet-wide HNSW index on ``embedding`` mostly
holds other agents' rows: measured on a fleet store (300 agents, 370,000 units), a 50,000-unit
agent's vector top-30 was planned as an exact scan of its 50,000 rows (the planner judged the
fleet-wide HNSW scan filtered to one agent eight times dearer): 81 ms warm, 470 ms cold. And every
write paid for it: inserting a unit into a fleet-wide HNSW cost 1.3 ms in a store of a few
thousand units and over 10 ms in a fleet of 700,000 — most of a put's write, for an index that
served only agents of 5,000–10,000 units. There is no fleet-wide HNSW (migration 010 dropped it);
the fleet-wide GIN on ``tsv`` stays (cheap to write, pending-list inserts).

The design, by agent size (one boundary, ``OWN_INDEX_UNITS`` = 5,000 units):

- below it, every recall statement reaches the agent's rows through B-tree indexes led by
  ``agent_id`` and ranks them exactly (``store.reads.candidates``; 0.8 ms at 1,000 units, where an
  index is no faster, and deterministic);
- from it on, the agent has its own partial indexes, an HNSW on ``embedding`` and a GIN on ``tsv``
  ``WHERE agent_id = '<agent>'``, which hold only its rows. Every statement names the agent and
  runs with a custom plan (``plan_cache_mode``, ``store.db.database``), so the planner proves the
  predicate and takes them: the same 50,000-unit agent's vector top-30 went from 81 ms to 3 ms, as
  alone. Until they exist (a build failed, rows came in by another path), the same statements
  rank the agent's rows exactly: the right answer, slower.

The put that takes an agent across the boundary builds them after it commits (``crossed_own_index``,
``ensure``: about 1 s for 5,000 units here, once in an agent's life, waiting at most
``PUT_BUILD_WAIT_S`` for other sessions; a failure is logged and the put stands). ``refresh`` —
maintenance, never inside a request — builds whatever is missing (agents grown through an import, a
failed or interrupted build) and drops the indexes of agents that have gone. Both use
``CREATE/DROP INDEX CONCURRENTLY`` (writes go on meanwhile) and need a connection in autocommit
mode. An interrupted build leaves an invalid index, which the next ``refresh`` drops and builds
again. Each index carries its agent id as its comment, so the agent of an index is read back
without parsing its predicate.

Partial indexes are cheap for the planner only while there are few of them (each is tested
against each statement): a fleet of thousands of agents above the boundary wants the next step of
``docs/deploy.md`` (Citus, distributed by ``agent_id``), where every shard's indexes hold only its
agents' rows; an agent's own indexes are created on every shard there (empty, 16 kB each, but for
the agent's own shard), so the count of large agents weighs on each shard's planner as here.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import psycopg
from psycopg import sql

from ...errors import FleetMemoryError
from . import planner

if TYPE_CHECKING:
    from .database import Database

__all__ = ["OWN_INDEX_UNITS", "PUT_BUILD_WAIT_S", "IndexRefresh", "after_growth", "build_after_write",
           "crossed_own_index", "drop", "ensure", "has_vector_index", "index_names", "own_indexes", "refresh"]

_log = logging.getLogger(__name__)

OWN_INDEX_UNITS = 5_000
"""Agents of at least this many units have their own indexes; smaller ones are ranked exactly.
Migration 010 builds the missing ones with the same number."""
_PREFIX = "memory_units_own_"
_KINDS = {"vec": "hnsw (embedding vector_cosine_ops)", "tsv": "gin (tsv)"}


@dataclass(frozen=True, slots=True)
class IndexRefresh:
    """What one ``refresh`` did: the agents whose indexes were built and those whose were dropped."""

    built: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


def index_names(agent_id: str) -> dict[str, str]:
    """The names of the agent's own indexes by kind (a digest: agent ids are free text)."""
    digest = hashlib.sha256(agent_id.encode("utf-8")).hexdigest()[:20]
    return {kind: f"{_PREFIX}{kind}_{digest}" for kind in _KINDS}


def own_indexes(conn: psycopg.Connection) -> dict[str, dict[str, bool]]:
    """``{agent: {index name: valid}}`` for every own index on ``memory_units``. A build that failed
    or was killed leaves its index without the comment (set after the build): such an index is
    filed under the living agent whose name it has, else under ``""`` (an agent gone)."""
    rows = conn.execute(
        "SELECT obj_description(i.indexrelid, 'pg_class'), c.relname, i.indisvalid FROM pg_index i"
        " JOIN pg_class c ON c.oid = i.indexrelid"
        " WHERE i.indrelid = 'memory_units'::regclass AND c.relname LIKE %s",
        (_PREFIX + "%",),
    ).fetchall()
    by_name: dict[str, str] = {}
    if any(not agent for agent, _, _ in rows):
        by_name = {name: agent for agent in _large_agents(conn, 1) for name in index_names(agent).values()}
    found: dict[str, dict[str, bool]] = {}
    for agent, name, valid in rows:
        found.setdefault(agent or by_name.get(name, ""), {})[name] = bool(valid)
    return found


def has_vector_index(conn: psycopg.Connection, agent_id: str) -> bool:
    """Whether the agent's own vector index exists and is valid (the planner uses only those). One
    catalogue lookup by name."""
    row = conn.execute("SELECT EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass(%s) AND indisvalid)",
                       (index_names(agent_id)["vec"],)).fetchone()
    return bool(row and row[0])


def _large_agents(conn: psycopg.Connection, min_units: int) -> list[str]:
    rows = conn.execute("SELECT agent_id FROM term_df WHERE lexeme = '' AND df >= %s ORDER BY agent_id",
                        (min_units,)).fetchall()
    return [agent for (agent,) in rows]


def _build(conn: psycopg.Connection, agent_id: str, have: dict[str, bool], *, if_not_exists: bool = False) -> None:
    for kind, name in index_names(agent_id).items():
        if have.get(name) or (if_not_exists and name in have):
            continue
        if name in have:  # an interrupted build: invalid, never used; build it again
            conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))
        create = "CREATE INDEX CONCURRENTLY IF NOT EXISTS " if if_not_exists else "CREATE INDEX CONCURRENTLY "
        conn.execute(sql.SQL(create + "{name} ON memory_units USING " + _KINDS[kind]
                             + " WHERE agent_id = {agent}").format(name=sql.Identifier(name),
                                                                   agent=sql.Literal(agent_id)))
        conn.execute(sql.SQL("COMMENT ON INDEX {} IS {}").format(sql.Identifier(name), sql.Literal(agent_id)))


def crossed_own_index(counts: Mapping[str, int], added: Mapping[str, int], min_units: int | None = None) -> list[str]:
    """The agents a write took across ``min_units`` (default ``OWN_INDEX_UNITS``): ``counts`` after
    it, ``added`` units it wrote."""
    limit = OWN_INDEX_UNITS if min_units is None else min_units
    return [agent for agent, after in sorted(counts.items()) if after - added.get(agent, 0) < limit <= after]


PUT_BUILD_WAIT_S = 5.0
"""How long the build after a put may wait on other sessions (``lock_timeout``): a concurrent
build waits for every transaction older than it, and an idle open transaction elsewhere would
otherwise hold the put for as long as it stays open. Past it the build fails, the put stands, and
maintenance (``refresh``) builds the index (dropping the invalid one the failed build left)."""


def ensure(conn: psycopg.Connection, agent_id: str, *, wait_s: float | None = None) -> bool:
    """Build the agent's own indexes that do not exist (``CREATE INDEX CONCURRENTLY IF NOT EXISTS``:
    a build another process has started is left to it), waiting at most ``wait_s`` for other
    sessions' locks when given. Returns whether one was built. ``conn`` in autocommit mode."""
    if not conn.autocommit:
        raise ValueError("agent_indexes.ensure needs a connection in autocommit mode")
    have = own_indexes(conn).get(agent_id, {})
    if all(name in have for name in index_names(agent_id).values()):
        return False
    if wait_s is None:
        _build(conn, agent_id, have, if_not_exists=True)
        return True
    # a session setting (a concurrent build runs outside any transaction), reset right after: the
    # connection may be a pooler's, shared with other clients once this one lets it go
    conn.execute(sql.SQL("SET lock_timeout = {}").format(sql.Literal(f"{max(1, round(wait_s * 1000))}ms")))
    try:
        _build(conn, agent_id, have, if_not_exists=True)
    finally:
        if not conn.closed:
            conn.execute("RESET lock_timeout")
    return True


def build_after_write(db: Database, agent_id: str) -> bool:
    """The agent's own indexes, built right after a write took it across the boundary (a put, an
    import), on a connection of their own, waiting at most ``PUT_BUILD_WAIT_S`` for other sessions.
    A failure is logged, never raised: the write stands, recall ranks the agent exactly meanwhile,
    and maintenance (``refresh``) builds them. Returns whether one was built."""
    try:
        with db.autocommit() as conn:
            return ensure(conn, agent_id, wait_s=PUT_BUILD_WAIT_S)
    except (FleetMemoryError, psycopg.Error) as exc:
        _log.warning("agent %r's own indexes were not built (maintenance builds them): %s", agent_id, exc)
        return False


def after_growth(db: Database, counts: Mapping[str, int], added: Mapping[str, int]) -> None:
    """After a put committed (``counts``: units per agent after it, ``added``: units it wrote):
    fresh planner statistics for agents whose size doubled (``planner``), and the own indexes of
    agents it took across ``OWN_INDEX_UNITS`` (once in an agent's life, seconds: ``build_after_write``)."""
    if grown := planner.crossed_checkpoints(counts, added):
        with db.transaction() as conn:
            if stale := planner.refresh_if_stale(conn, grown, counts):
                _log.info("planner statistics refreshed after agents %s grew", stale)
    for agent in crossed_own_index(counts, added):
        build_after_write(db, agent)


def drop(conn: psycopg.Connection, agent_id: str, names: list[str] | None = None) -> None:
    """Drop the agent's own indexes (autocommit connection)."""
    for name in names if names is not None else list(index_names(agent_id).values()):
        conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))


def refresh(conn: psycopg.Connection, min_units: int = OWN_INDEX_UNITS) -> IndexRefresh:
    """Give every agent of at least ``min_units`` units its own indexes; drop those of agents with
    no units left. ``conn`` must be in autocommit mode (concurrent index builds)."""
    if not conn.autocommit:
        raise ValueError("agent_indexes.refresh needs a connection in autocommit mode")
    have = own_indexes(conn)
    built = []
    for agent in _large_agents(conn, min_units):
        wanted = index_names(agent)
        if not all(have.get(agent, {}).get(name) for name in wanted.values()):
            _build(conn, agent, have.get(agent, {}))
            built.append(agent)
    living = set(_large_agents(conn, 1))
    gone = sorted(agent for agent in have if agent not in living)
    for agent in gone:
        drop(conn, agent, list(have[agent]))
    return IndexRefresh(tuple(built), tuple(gone))
