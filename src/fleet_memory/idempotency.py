"""Idempotent writes: a request retried with the same key returns the first response and stores
nothing twice (REST's ``Idempotency-Key``).

Protocol, per (agent, key): **claim** the key (insert a row with no response, committed at once);
the owner runs the write, then stores its JSON response on the row. A retry that finds the row
waits (polling every ``poll_s``, at most ``wait_s``) until the response is there and returns it;
a retry that finds the key used for a different request (another request hash) is refused. If the
write fails, the owner **releases** the key (deletes the row), so a retry runs it again. A client
whose first call timed out therefore gets the first call's result, whether it is still running or
done.

Keys expire after ``ttl`` (``LifecycleConfig.idempotency_key_ttl_hours``, 24 h by default, counted
from the first request): a retry within it returns the first response, the same key after it is a
new request. Expired keys are deleted cheaply in two places — each claim first deletes up to
``EXPIRE_BATCH`` of its agent's expired keys in the same transaction (indexed, so a write never
reads live keys and the table holds about one ``ttl`` of keys per writing agent), and ``maintain``
deletes every expired key, in batches, for agents that stopped writing. A claim whose owner died
mid-request (its row never completed) is freed by the same expiry. Deleting an agent drops its keys.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from .clock import Clock
from .errors import InvalidInputError
from .store import Database
from .store import idempotency as key_sql

__all__ = ["run_once", "request_hash", "EXPIRE_BATCH"]

EXPIRE_BATCH = 100


def request_hash(request: Any) -> str:
    """SHA-256 of the request's canonical JSON."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()


def run_once(db: Database, clock: Clock, agent_id: str, key: str, request: Any,
             produce: Callable[[], dict[str, Any]], *, ttl: timedelta, wait_s: float = 600.0,
             poll_s: float = 0.1) -> dict[str, Any]:
    """``produce()`` (a JSON-ready response) at most once per ``(agent_id, key)``; see the module.
    ``ttl``: how long a key is kept (``LifecycleConfig.idempotency_key_ttl_hours``)."""
    if not isinstance(key, str) or not 1 <= len(key) <= 255:
        raise InvalidInputError("Idempotency-Key", "must be 1 to 255 characters", "1-255 characters")
    if ttl <= timedelta(0):  # would expire the keys of requests still running: at-most-once lost
        raise InvalidInputError("idempotency_key_ttl_hours", f"is {ttl.total_seconds() / 3600:g}", "more than 0")
    digest = request_hash(request)
    deadline = time.monotonic() + wait_s
    expired = False
    while True:
        with db.transaction() as conn:
            now = clock.now()
            if not expired:  # once per request, not on every poll while another request runs
                key_sql.expire(conn, agent_id, now - ttl, EXPIRE_BATCH)
                expired = True
            owned = key_sql.claim(conn, agent_id, key, digest, now)
            found = None if owned else key_sql.read(conn, agent_id, key)
        if owned:
            break
        if found is not None:
            if found[0] != digest:
                raise InvalidInputError("Idempotency-Key", "was already used for a different request",
                                        "a new key for each new request")
            if found[1] is not None:
                return found[1]
        if time.monotonic() > deadline:
            raise InvalidInputError("Idempotency-Key", f"the first request is still running after {wait_s:.0f} s",
                                    "retry later")
        time.sleep(poll_s)
    try:
        response = produce()
    except BaseException:
        with db.transaction() as conn:
            key_sql.release(conn, agent_id, key)
        raise
    with db.transaction() as conn:
        key_sql.complete(conn, agent_id, key, response)
    return response
