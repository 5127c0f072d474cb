"""SQL for ``idempotency_keys``: claim a key (a NULL response = running, with its owner and
heartbeat), read it, renew the claim, take over a dead owner's claim, complete it, release it after
a failure, expire old keys, forget the keys whose response names deleted rows. One statement each;
see ``fleet_memory.idempotency`` for the protocol. Heartbeats use the database's clock, the one
every process sharing the database agrees on; an update stamps ``statement_timestamp()`` (its own
statement's start: one short statement each, so within its run of ``clock_timestamp()``),
which Citus evaluates on the coordinator, where it refuses a volatile function in
an update of a distributed table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg.types.json import Jsonb

__all__ = ["Claim", "claim", "read_key", "beat", "take_over", "complete", "release", "expire", "forget_naming"]


@dataclass(frozen=True, slots=True)
class Claim:
    """A key's row: the request it was first used for, its response (None while running), who runs
    it, and whether that claim went without a heartbeat for longer than the reader allows."""

    request_hash: str
    response: Any
    owner: str | None
    silent: bool


def claim(conn: psycopg.Connection, agent_id: str, key: str, request_hash: str, now: datetime, owner: str) -> bool:
    """True when this call now owns the key (no row existed)."""
    return conn.execute(
        "INSERT INTO idempotency_keys (agent_id, key, request_hash, response, created_at, owner, heartbeat_at)"
        " VALUES (%s, %s, %s, NULL, %s, %s, clock_timestamp()) ON CONFLICT (agent_id, key) DO NOTHING",
        (agent_id, key, request_hash, now, owner)).rowcount == 1


def read_key(conn: psycopg.Connection, agent_id: str, key: str, silent_after_s: float) -> Claim | None:
    """The key's row, or None when the key is free. A claim renewed longer than ``silent_after_s``
    ago (or never: written before claims had owners) is ``silent``."""
    row = conn.execute(
        "SELECT request_hash, response, owner,"
        " coalesce(heartbeat_at, '-infinity') < clock_timestamp() - make_interval(secs => %s)"
        " FROM idempotency_keys WHERE agent_id = %s AND key = %s", (silent_after_s, agent_id, key)).fetchone()
    return None if row is None else Claim(*row)


def beat(conn: psycopg.Connection, agent_id: str, key: str, owner: str) -> None:
    """Renew the owner's claim on a running key."""
    conn.execute("UPDATE idempotency_keys SET heartbeat_at = statement_timestamp()"
                 " WHERE agent_id = %s AND key = %s AND owner = %s AND response IS NULL", (agent_id, key, owner))


def take_over(conn: psycopg.Connection, agent_id: str, key: str, old_owner: str | None, owner: str) -> bool:
    """Make ``owner`` the owner of a running key still held by ``old_owner``; False when someone
    else took it first or it completed meanwhile."""
    return conn.execute(
        "UPDATE idempotency_keys SET owner = %s, heartbeat_at = statement_timestamp() WHERE agent_id = %s AND key = %s"
        " AND response IS NULL AND owner IS NOT DISTINCT FROM %s", (owner, agent_id, key, old_owner)).rowcount == 1


def complete(conn: psycopg.Connection, agent_id: str, key: str, response: Any) -> None:
    conn.execute("UPDATE idempotency_keys SET response = %s WHERE agent_id = %s AND key = %s",
                 (Jsonb(response), agent_id, key))


def release(conn: psycopg.Connection, agent_id: str, key: str, owner: str) -> None:
    """Free a running key this owner still holds (its request failed)."""
    conn.execute("DELETE FROM idempotency_keys WHERE agent_id = %s AND key = %s AND response IS NULL AND owner = %s",
                 (agent_id, key, owner))


def expire(conn: psycopg.Connection, agent_id: str | None, before: datetime, limit: int) -> int:
    """Delete at most ``limit`` keys created before ``before`` (of one agent, or of all): indexed on
    ``created_at`` (migration 009), so live keys are never read. Returns how many went.
    ``agent_id`` is named in both halves, so a Citus coordinator routes one agent's expiry to its
    shard; for all agents, a multi-shard delete of the keys a multi-shard read chose (by primary
    key: Citus cannot delete by ``ctid`` across shards)."""
    agent = "agent_id = %(a)s AND " if agent_id is not None else ""
    return conn.execute(
        f"DELETE FROM idempotency_keys WHERE {agent}(agent_id, key) IN (SELECT agent_id, key FROM idempotency_keys"
        f" WHERE {agent}created_at < %(b)s LIMIT %(n)s)",
        {"a": agent_id, "b": before, "n": limit},
    ).rowcount


def forget_naming(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> int:
    """Delete the agent's completed keys whose stored response names one of ``ids`` (units and
    documents being deleted) anywhere as a string: a retry with such a key would return what was
    deleted (``deletes.forget_user``: a forgotten user's texts). A response is the write's own
    result, which names every unit and document it stored. Reads the agent's keys (about one TTL
    of them, ``fleet_memory.idempotency``). Returns how many went."""
    if not ids:
        return 0
    return conn.execute(
        "DELETE FROM idempotency_keys k WHERE k.agent_id = %s AND k.response IS NOT NULL AND EXISTS ("
        " SELECT 1 FROM jsonb_path_query(k.response, 'strict $.**') v"
        " WHERE jsonb_typeof(v) = 'string' AND v #>> '{}' = ANY(%s::text[]))",
        (agent_id, [str(i) for i in ids])).rowcount
