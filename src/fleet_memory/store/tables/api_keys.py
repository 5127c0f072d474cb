"""SQL for ``api_keys``: keys are stored as their SHA-256 only, with the agents they may act for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from ..db.rows import fetch, fetch_one

__all__ = ["ApiKey", "insert_key", "list_keys", "find_by_hash", "revoke", "touch"]

_COLUMNS = "id, name, prefix, agent_ids, admin, created_at, revoked_at, last_used_at"


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key (never the secret itself)."""

    id: UUID
    name: str
    prefix: str
    agent_ids: tuple[str, ...]
    admin: bool
    created_at: datetime
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None

    def allows(self, agent_id: str) -> bool:
        return self.revoked_at is None and (self.admin or agent_id in self.agent_ids)


def _key(c: Mapping[str, Any]) -> ApiKey:
    return ApiKey(c["id"], c["name"], c["prefix"], tuple(c["agent_ids"] or ()), bool(c["admin"]), c["created_at"],
                  c["revoked_at"], c["last_used_at"])


def insert_key(conn: psycopg.Connection, key: ApiKey, key_hash: str) -> None:
    conn.execute(
        "INSERT INTO api_keys (id, name, key_hash, prefix, agent_ids, admin, created_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (key.id, key.name, key_hash, key.prefix, list(key.agent_ids), key.admin, key.created_at),
    )


def list_keys(conn: psycopg.Connection, *, include_revoked: bool = False) -> list[ApiKey]:
    return fetch(conn, f"SELECT {_COLUMNS} FROM api_keys WHERE %s OR revoked_at IS NULL ORDER BY created_at, id",
                 (include_revoked,), _key)


def find_by_hash(conn: psycopg.Connection, key_hash: str) -> ApiKey | None:
    return fetch_one(conn, f"SELECT {_COLUMNS} FROM api_keys WHERE key_hash = %s", (key_hash,), _key)


def revoke(conn: psycopg.Connection, key_id_or_prefix: str, now: datetime) -> int:
    cur = conn.execute(
        "UPDATE api_keys SET revoked_at = %s WHERE revoked_at IS NULL AND (id::text = %s OR prefix = %s)",
        (now, key_id_or_prefix, key_id_or_prefix),
    )
    return cur.rowcount


def touch(conn: psycopg.Connection, key_id: UUID, now: datetime) -> None:
    conn.execute("UPDATE api_keys SET last_used_at = %s WHERE id = %s", (now, key_id))
