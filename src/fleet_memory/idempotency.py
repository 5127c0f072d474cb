"""Idempotent writes: a request retried with the same key returns the first response and stores
nothing twice (REST's ``Idempotency-Key``).

Protocol, per (agent, key): **claim** the key (insert a row with no response, its owner and a
heartbeat, committed at once); the owner runs the write, renewing the heartbeat every
``HEARTBEAT_S`` while it runs, then stores its JSON response on the row. If the write fails, the
owner **releases** the key (deletes the row), so a retry runs it again.

A retry never waits inside the server: it holds neither a worker nor a connection while the first
request runs. It finds the key and

- returns the stored response when the first request is done;
- is refused (``InvalidInputError``) when the key was used for a different request (another hash);
- takes the claim over and runs the write itself when the first request is no longer running: its
  process is gone (an owner on this host whose process is dead, or an earlier incarnation of this
  very process) or its heartbeat went silent for ``SILENT_S`` (a server elsewhere that crashed);
- otherwise answers ``BusyError`` with status 409 and a ``Retry-After`` (``IN_PROGRESS_RETRY_S``).

A retry that reaches the process running its first request is answered 409 before its body is
even read, after a short hold (``running_here``; REST's ``rest.limits.InProgress``): a client
that re-sends a 2 MB put back to back, ignoring ``Retry-After``, otherwise costs the server a
parse and a hash of 2 MB each time, in the process that serves everyone else. Its body is then
compared with the first request's only once that is done (a different body is refused then).

A client whose first call timed out therefore gets the first call's result by retrying until it is
done (``fleet_memory.client`` does so by itself), and a key whose server was killed is free for a
retry at once on the same host, within ``SILENT_S`` elsewhere.

Keys expire after ``ttl`` (``LifecycleConfig.idempotency_key_ttl_hours``, 24 h by default, counted
from the first request): a retry within it returns the first response, the same key after it is a
new request. Expired keys are deleted cheaply in two places — each claim first deletes up to
``EXPIRE_BATCH`` of its agent's expired keys in the same transaction (indexed, so a write never
reads live keys and the table holds about one ``ttl`` of keys per writing agent), and ``maintain``
deletes every expired key, in batches, for agents that stopped writing. Deleting an agent drops
its keys.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from .clock import Clock
from .errors import BusyError, InvalidInputError
from .store import Database
from .store.tables import idempotency as key_sql

__all__ = ["run_once", "in_progress", "running_here", "request_hash", "owner_id", "EXPIRE_BATCH", "HEARTBEAT_S", "MAX_KEY_CHARS",
           "SILENT_S"]

MAX_KEY_CHARS = 255  # the longest Idempotency-Key (the REST schema states it too)

_log = logging.getLogger(__name__)

EXPIRE_BATCH = 100
HEARTBEAT_S = 5.0
SILENT_S = 30.0  # six missed heartbeats: the owner is taken for dead
IN_PROGRESS_RETRY_S = 2.0

_TOKEN = uuid.uuid4().hex[:12]  # tells this process from an earlier one that had the same pid
_running: dict[tuple[str, str], int] = {}  # (agent, key) of the requests this process is running
_running_lock = threading.Lock()


def in_progress(key: str) -> str:
    """What a retry is told while the first request with ``key`` still runs."""
    return (f"Idempotency-Key {key!r}: the first request with this key is still running; retry after"
            f" {IN_PROGRESS_RETRY_S:g} s to get its response")


def running_here(agent_id: str, key: str) -> bool:
    """Whether this process is running the first request with ``key`` for ``agent_id``."""
    with _running_lock:
        return (agent_id, key) in _running


@contextmanager
def _running_as(agent_id: str, key: str) -> Iterator[None]:
    with _running_lock:
        _running[(agent_id, key)] = _running.get((agent_id, key), 0) + 1
    try:
        yield
    finally:
        with _running_lock:
            if (left := _running.pop((agent_id, key)) - 1) > 0:
                _running[(agent_id, key)] = left


def owner_id() -> str:
    """``host:pid:token`` of the calling process."""
    return f"{socket.gethostname()}:{os.getpid()}:{_TOKEN}"


def _gone(owner: str | None) -> bool:
    """Whether a claim's owner is known not to run any more (only knowable on this host)."""
    parts = (owner or "").rsplit(":", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return parts[2] != _TOKEN
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, under another user
    return False  # alive (or a recycled pid: the heartbeat decides)


def request_hash(request: Any) -> str:
    """SHA-256 of the request's canonical JSON."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()


def run_once(db: Database, clock: Clock, agent_id: str, key: str, request: Any,
             produce: Callable[[], dict[str, Any]], *, ttl: timedelta) -> dict[str, Any]:
    """``produce()`` (a JSON-ready response) at most once per ``(agent_id, key)``; see the module.
    ``ttl``: how long a key is kept (``LifecycleConfig.idempotency_key_ttl_hours``)."""
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_CHARS:
        raise InvalidInputError("Idempotency-Key", f"must be 1 to {MAX_KEY_CHARS} characters",
                                f"1-{MAX_KEY_CHARS} characters")
    if ttl <= timedelta(0):  # would expire the keys of requests still running: at-most-once lost
        raise InvalidInputError("idempotency_key_ttl_hours", f"is {ttl.total_seconds() / 3600:g}", "more than 0")
    digest, me = request_hash(request), owner_id()
    with db.transaction() as conn:
        now = clock.now()
        key_sql.expire(conn, agent_id, now - ttl, EXPIRE_BATCH)
        owned = key_sql.claim(conn, agent_id, key, digest, now, me)
        found = None if owned else key_sql.read_key(conn, agent_id, key, SILENT_S)
        if found is not None:
            if found.request_hash != digest:
                raise InvalidInputError("Idempotency-Key", "was already used for a different request",
                                        "a new key for each new request")
            if found.response is not None:
                return found.response
            owned = (found.silent or _gone(found.owner)) and key_sql.take_over(conn, agent_id, key, found.owner, me)
    if not owned:
        raise BusyError(in_progress(key), retry_after_s=IN_PROGRESS_RETRY_S, status=409)
    try:
        with _running_as(agent_id, key), _heartbeat(db, agent_id, key, me):
            response = produce()
    except BaseException:
        with db.transaction() as conn:
            key_sql.release(conn, agent_id, key, me)
        raise
    with db.transaction() as conn:
        key_sql.complete(conn, agent_id, key, response)
    return response


@contextmanager
def _heartbeat(db: Database, agent_id: str, key: str, owner: str) -> Iterator[None]:
    """Inside: a thread renews the claim every ``HEARTBEAT_S`` (one short transaction each)."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(HEARTBEAT_S):
            try:
                with db.transaction() as conn:
                    key_sql.beat(conn, agent_id, key, owner)
            except Exception as exc:  # noqa: BLE001 - a missed beat only lets a retry take over sooner
                _log.debug("idempotency heartbeat of %r missed: %s", key, exc)

    thread = threading.Thread(target=beat, name="fleet-memory-idempotency-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
