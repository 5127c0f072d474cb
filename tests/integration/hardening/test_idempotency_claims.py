"""A retry with an ``Idempotency-Key`` whose first request still runs answers at once (``BusyError``,
409 with ``Retry-After``) instead of waiting in the server, holding a worker and polling the
database; a key whose first request is no longer running — its process died on this host, or its
heartbeat went silent — is taken over at once instead of staying stuck until it expires."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from datetime import timedelta

import psycopg
import pytest

from fleet_memory.errors import BusyError
from fleet_memory.idempotency import owner_id

AGENT = "retrying"
REQUEST = {"content": "Ines moved to Porto."}


def _once(memory, produce, key="k-1"):
    return memory.idempotent(AGENT, key, REQUEST, produce)


def _claim(db_url: str, owner: str, silent_for: timedelta = timedelta(0), key: str = "k-1") -> None:
    """A running claim as a server that died mid-request leaves it."""
    from fleet_memory.idempotency import request_hash

    with psycopg.connect(db_url) as conn:
        conn.execute("INSERT INTO idempotency_keys (agent_id, key, request_hash, response, created_at, owner,"
                     " heartbeat_at) VALUES (%s, %s, %s, NULL, now(), %s, clock_timestamp() - %s)",
                     (AGENT, key, request_hash(REQUEST), owner, silent_for))


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_retry_while_the_first_runs_answers_409_at_once(memory):
    started, release = threading.Event(), threading.Event()
    first: dict = {}

    def slow() -> dict:
        started.set()
        release.wait(30)
        return {"stored": 1}

    runner = threading.Thread(target=lambda: first.update(answer=_once(memory, slow)))
    runner.start()
    try:
        assert started.wait(30)
        retry: dict = {}
        retrier = threading.Thread(target=_capture, args=(retry, lambda: _once(memory, lambda: {"stored": 2})))
        retrier.start()
        retrier.join(10)
        assert not retrier.is_alive(), "the retry waited for the first request inside the call"
        error = retry["raised"]
        assert isinstance(error, BusyError) and error.status == 409 and error.retry_after_s >= 1
    finally:
        release.set()
        runner.join(30)
    assert first["answer"] == {"stored": 1}
    assert _once(memory, lambda: {"stored": 3}) == {"stored": 1}  # the first response, nothing run again


def _capture(into: dict, call) -> None:
    try:
        into["returned"] = call()
    except Exception as exc:  # noqa: BLE001 - the test reads what was raised
        into["raised"] = exc


@pytest.mark.parametrize("owner", [
    lambda: f"{socket.gethostname()}:{_dead_pid()}:0123456789ab",  # its process died (SIGKILL, crash)
    lambda: owner_id().rsplit(":", 1)[0] + ":earlier-life",  # this pid's earlier process (a restart)
])
def test_a_claim_whose_process_is_gone_is_taken_over_at_once(memory, db_url, owner):
    _claim(db_url, owner())
    assert _once(memory, lambda: {"stored": "again"}) == {"stored": "again"}
    assert _once(memory, lambda: {"stored": "twice"}) == {"stored": "again"}


def test_a_silent_claim_elsewhere_is_taken_over_a_live_one_is_not(memory, db_url):
    _claim(db_url, "another-host:4242:0123456789ab", silent_for=timedelta(minutes=5))
    assert _once(memory, lambda: {"stored": "again"}) == {"stored": "again"}
    _claim(db_url, "another-host:4243:0123456789ab", key="k-2")
    with pytest.raises(BusyError):
        _once(memory, lambda: {"stored": "never"}, key="k-2")
