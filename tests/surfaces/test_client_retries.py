"""``Client``/``AsyncClient`` with ``idempotency_key``: while the first request with the key still
runs, the server answers 409 with ``Retry-After`` at once and the client asks again until the first
response is there; ``update`` and ``history`` go through the server like the facade's."""

from __future__ import annotations

import threading
import time

import anyio
import psycopg
from psycopg.types.json import Jsonb

from fleet_memory.client import AsyncClient, Client
from fleet_memory.idempotency import request_hash
from tests.support.servers import real_server

AGENT = "retrying"


def _running_claim(db_url: str, key: str, body: dict) -> None:
    fingerprint = request_hash(["put", {**_defaults(), **body}])
    with psycopg.connect(db_url) as conn:
        conn.execute("INSERT INTO idempotency_keys (agent_id, key, request_hash, response, created_at, owner,"
                     " heartbeat_at) VALUES (%s, %s, %s, NULL, now(), 'another-host:1:0123456789ab',"
                     " clock_timestamp())", (AGENT, key, fingerprint))


def _defaults() -> dict:
    from fleet_memory.rest.schemas import PutIn

    return PutIn(content="x").model_dump(mode="json", exclude={"content"})


def _complete_later(db_url: str, key: str, response: dict, after_s: float) -> threading.Thread:
    def complete() -> None:
        time.sleep(after_s)
        with psycopg.connect(db_url) as conn:
            conn.execute("UPDATE idempotency_keys SET response = %s WHERE agent_id = %s AND key = %s",
                         (Jsonb(response), AGENT, key))

    thread = threading.Thread(target=complete)
    thread.start()
    return thread


def test_clients_wait_out_a_running_first_request(memory, db_url):
    first = memory.put(AGENT, "Ines moved to Porto in February.")
    stored = {"document_id": str(first.document_id), "units": [], "skipped_reason": None}
    body = {"content": "Ines moved to Porto in February."}
    with real_server(memory) as url:
        for key, client_call in (("sync", _sync_put), ("async", _async_put)):
            _running_claim(db_url, key, body)
            finisher = _complete_later(db_url, key, stored, after_s=1.5)
            result = client_call(url, memory, key, body)
            finisher.join()
            assert str(result.document_id) == stored["document_id"]  # the first request's response
    assert memory.stats(AGENT).units == len(first.units)  # the retries stored nothing


def _sync_put(url, memory, key, body):
    api_key, _ = memory.create_api_key(f"k-{key}", agent_ids=[AGENT])
    with Client(url, api_key=api_key, timeout=30) as client:
        return client.put(AGENT, body["content"], idempotency_key=key)


def _async_put(url, memory, key, body):
    api_key, _ = memory.create_api_key(f"k-{key}", agent_ids=[AGENT])

    async def put():
        async with AsyncClient(url, api_key=api_key, timeout=30) as client:
            return await client.put(AGENT, body["content"], idempotency_key=key)

    return anyio.run(put)


def test_update_and_history_through_the_client(memory):
    first = memory.put(AGENT, "Ines lives in Lisbon.", event_date="2024-01-01T00:00:00Z")
    api_key, _ = memory.create_api_key("k", agent_ids=[AGENT])
    with real_server(memory) as url, Client(url, api_key=api_key) as client:
        newer = client.update(AGENT, first.units[0].id, "Ines lives in Porto.", event_date="2024-06-01T00:00:00Z",
                              idempotency_key="u-1")
        again = client.update(AGENT, first.units[0].id, "Ines lives in Porto.", event_date="2024-06-01T00:00:00Z",
                              idempotency_key="u-1")
        assert again.unit_ids == newer.unit_ids
        versions = client.history(AGENT, newer.units[0].id)
    assert [v.text for v in versions] == ["Ines lives in Lisbon.", "Ines lives in Porto."]
