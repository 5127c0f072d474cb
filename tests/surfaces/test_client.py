"""``fleet_memory.client``: the same scenario through the library and through a real server
(uvicorn on a socket, over its own database), with ``Client`` and with ``AsyncClient``; every
result compared field by field (ids are compared by order of first appearance, since each store
makes its own). ``PutResult.stage_seconds`` is timing and not sent by the server."""

from __future__ import annotations

import dataclasses
import inspect
import re
import uuid
from contextlib import contextmanager

import anyio
import psycopg
import pytest

from fleet_memory import Config, FixedClock, FleetMemory
from fleet_memory.client import AsyncClient, Client
from fleet_memory.errors import AuthError, InvalidInputError, NotFoundError
from fleet_memory.providers.embedder import HashingEmbedder
from fleet_memory.model import plain
from tests.support.servers import real_server

from ..conftest import TEMPLATE

UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TURNS = [{"role": "user", "content": "The deploy failed yesterday. I prefer rollbacks over hotfixes."},
         {"role": "assistant", "content": "The fix is to clear the build cache first."}]


@contextmanager
def fresh_memory(pg_server):
    name = f"c_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    try:
        with FleetMemory(Config(database_url=pg_server.get_uri(database=name)), embedder=HashingEmbedder(),
                         clock=FixedClock()) as memory:
            yield memory
    finally:
        with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


async def _(value):
    return await value if inspect.isawaitable(value) else value


async def scenario(m) -> list:
    """Every facade method the client has, in an order where each one has something to act on."""
    seen = [await _(m.put("a1", "Alice works at Google as a software engineer. She joined Google last year.",
                          context="Career", tags=["work"], user_id="u1", metadata={"team": "search"}))]
    seen.append(await _(m.search("a1", "What does Alice do?", explain=True)))
    seen.append(await _(m.put_many([{"content": f"The billing deploy failed with a critical error on day {d}.",
                                     "importance": 0.9, "user_id": "u2", "event_date": f"2024-12-0{d + 1}T12:00:00Z"}
                                    for d in range(3)], agent_id="a1")))
    seen.append(await _(m.search("a1", "deploy failed", top_k=2, metadata={"team": "search"}, reinforce=False)))
    first = seen[0].units[0].id
    seen += [await _(m.get("a1", first)), await _(m.list_units("a1", limit=2)), await _(m.stats("a1"))]
    seen.append(await _(m.build_context("a1", "How do I deploy billing?")))
    seen.append(await _(m.process_conversation("a1", TURNS, user_id="u3")))
    seen.append(await _(m.consolidate("a1")))
    semantic = seen[-1].created[0].id
    seen.append(await _(m.sources("a1", semantic)))
    seen.append(await _(m.maintain("a1", now="2026-06-01T00:00:00+00:00")))
    archived = (await _(m.list_units("a1", include_archived=True, limit=50))).units
    seen.append(await _(m.restore("a1", next(u.id for u in archived if u.archived_at))))
    seen.append(await _(m.list_entities("a1")))
    seen.append(await _(m.get_entity("a1", "Alice")))
    seen.append(await _(m.rename_entity("a1", "Google", "Google LLC")))
    seen.append(await _(m.merge_entities("a1", "Alice", "Google LLC")))
    seen.append(await _(m.delete_entity("a1", "Alice")))
    seen.append(await _(m.forget_user("a1", "u2")))
    seen.append(await _(m.list_agents()))
    seen.append(await _(m.delete("a1", first)))
    seen.append(await _(m.delete_agent("a1")))
    seen.append(await _(m.list_agents()))
    return seen


def normalized(value, ids: dict) -> object:
    """``plain`` with each id replaced by its order of first appearance."""
    value = plain(value)
    if isinstance(value, dict):  # source ids come in database order (by id): compared as a set
        value = {k: v for k, v in value.items() if k != "stage_seconds"}
        return {k: sorted(normalized(v, ids)) if k == "source_ids" else normalized(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [normalized(v, ids) for v in value]
    if isinstance(value, str):
        return UUID_TEXT.sub(lambda m: f"<id{ids.setdefault(m.group(0), len(ids))}>", value)
    return value


def assert_same(library: list, served: list) -> None:
    lib_ids, served_ids = {}, {}
    assert len(library) == len(served)
    for step, (a, b) in enumerate(zip(library, served)):
        assert type(a) is type(b), (step, type(a), type(b))
        items = list(zip(a, b)) if isinstance(a, list) else [(a, b)]
        for x, y in items:
            assert type(x) is type(y), (step, x, y)
            if dataclasses.is_dataclass(x):
                for f in dataclasses.fields(x):
                    if f.name == "stage_seconds":
                        continue
                    want, got = (normalized({f.name: getattr(r, f.name)}, ids) for r, ids in
                                  ((x, lib_ids), (y, served_ids)))
                    assert want == got, (step, type(x).__name__, f.name)
            else:
                assert normalized(x, lib_ids) == normalized(y, served_ids), step


def test_library_and_server_give_the_same_results(pg_server):
    with fresh_memory(pg_server) as library:
        expected = anyio.run(scenario, library)
    with fresh_memory(pg_server) as served, real_server(served) as url:
        key, _ = served.create_api_key("admin", admin=True)
        with Client(url, api_key=key) as client:
            got = anyio.run(scenario, client)
    assert_same(expected, got)
    assert isinstance(got[1][0]["text"], str) and got[1][0].explanation  # mapping access and explain, as the library


def test_async_client_gives_the_same_results(pg_server):
    with fresh_memory(pg_server) as library:
        expected = anyio.run(scenario, library)
    with fresh_memory(pg_server) as served, real_server(served) as url:
        key, _ = served.create_api_key("admin", admin=True)

        async def run() -> list:
            async with AsyncClient(url, api_key=key) as client:
                return await scenario(client)

        got = anyio.run(run)
    assert_same(expected, got)


def test_errors_are_the_facade_exceptions(pg_server):
    with fresh_memory(pg_server) as served, real_server(served) as url:
        key, _ = served.create_api_key("a1 only", agent_ids=["a1"])
        with Client(url, api_key=key) as client:
            with pytest.raises(InvalidInputError, match="query"):
                client.search("a1", "   ")
            with pytest.raises(NotFoundError):
                client.get("a1", "00000000-0000-0000-0000-000000000000")
            with pytest.raises(AuthError) as refused:
                client.search("b1", "anything")
            assert refused.value.status == 403
        with Client(url) as anonymous, pytest.raises(AuthError):
            anonymous.stats("a1")
    assert {name for name in dir(Client) if not name.startswith("_")} == \
        {name for name in dir(AsyncClient) if not name.startswith("_")}
