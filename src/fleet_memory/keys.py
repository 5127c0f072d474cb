"""API keys: created with ``fleet-memory keys create``, shown once, stored as SHA-256 only.

A key is ``fm_`` + 32 random bytes (URL-safe base64). Because keys are random and long, a plain
SHA-256 is enough to store them (no slow password hash needed); lookup is by the hash. Each key
may act for a list of agent ids, or for every agent when it is an admin key. A revoked key is
refused like an unknown one. No FastAPI here: the CLI, the facade and the servers share it.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Iterable
from datetime import datetime

from .errors import AuthError, InvalidInputError, NotFoundError
from .store import Database
from .store.tables import api_keys as sql
from .store.tables.api_keys import ApiKey

__all__ = ["ApiKey", "KEY_PREFIX", "hash_key", "create_key", "list_keys", "revoke_key", "authenticate", "authorize"]

KEY_PREFIX = "fm_"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def create_key(db: Database, now: datetime, *, name: str, agent_ids: Iterable[str] = (),
               admin: bool = False) -> tuple[str, ApiKey]:
    """Return (the secret, shown once; the stored record)."""
    agents = tuple(dict.fromkeys(agent_ids))
    if not admin and not agents:
        raise InvalidInputError("agent_ids", "a key needs at least one agent id, or must be an admin key")
    if not name or not name.strip():
        raise InvalidInputError("name", "must not be empty")
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    record = ApiKey(uuid.uuid4(), name.strip(), secret[:11], agents, admin, now)
    with db.transaction() as conn:
        sql.insert_key(conn, record, hash_key(secret))
    return secret, record


def list_keys(db: Database, *, include_revoked: bool = False) -> list[ApiKey]:
    with db.transaction() as conn:
        return sql.list_keys(conn, include_revoked=include_revoked)


def revoke_key(db: Database, now: datetime, key_id_or_prefix: str) -> None:
    with db.transaction() as conn:
        if sql.revoke(conn, key_id_or_prefix, now) == 0:
            raise NotFoundError("active API key", key_id_or_prefix)


def authenticate(db: Database, now: datetime, secret: str | None) -> ApiKey:
    """The key's record, or AuthError(401) when missing, unknown or revoked."""
    if not secret:
        raise AuthError("missing API key: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'", 401)
    with db.transaction() as conn:
        record = sql.find_by_hash(conn, hash_key(secret))
        if record is None or record.revoked_at is not None:
            raise AuthError("invalid or revoked API key", 401)
        sql.touch(conn, record.id, now)
    return record


def authorize(record: ApiKey, agent_id: str) -> None:
    """AuthError(403) unless the key may act for ``agent_id``."""
    if not record.allows(agent_id):
        raise AuthError(f"this API key may not act for agent {agent_id!r}", 403)
