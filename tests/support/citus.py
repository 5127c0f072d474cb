"""The test database on a real Citus cluster (``make test-citus``, ``tests/citus/cluster.sh``).

When ``FLEET_MEMORY_TEST_DATABASE_URL`` names a database (the cluster's coordinator), the fixtures
of ``tests/conftest.py`` give every test a schema of its own there instead of a database of the
embedded server: created, migrated and distributed by ``agent_id`` as ``fleet-memory db
distribute`` does, reached through a URL whose ``search_path`` is that schema, and dropped after
the test. Only tests that use such a database run in that lane; the others (no SQL, or the
embedded server itself) are deselected.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote

import psycopg
import pytest

from fleet_memory.store.db import distribution, migrations

__all__ = ["URL_VARIABLE", "cluster_url", "schema", "deselect_embedded"]

URL_VARIABLE = "FLEET_MEMORY_TEST_DATABASE_URL"
_DATABASE_FIXTURES = {"db_url", "empty_db_url"}


def cluster_url() -> str | None:
    return os.environ.get(URL_VARIABLE) or None


def _with_search_path(url: str, name: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={name},public')}"


@contextmanager
def schema(base_url: str, *, migrated: bool, embedding_dim: int = 384) -> Iterator[str]:
    """A fresh schema on the cluster for one test (migrated and distributed, or empty); yields
    the URL that works in it."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    url = _with_search_path(base_url, name)
    try:
        if migrated:
            with psycopg.connect(url, autocommit=True) as conn:
                migrations.migrate(conn, embedding_dim)
                distribution.distribute(conn)
        yield url
    finally:
        with psycopg.connect(base_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


def deselect_embedded(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests that take a database from the fixtures (and do not reach for the embedded
    server's object itself); report the rest as deselected."""
    kept, dropped = [], []
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        direct = set(getattr(getattr(item, "_fixtureinfo", None), "argnames", ()))
        uses_cluster = bool(names & _DATABASE_FIXTURES) and "pg_server" not in direct
        (kept if uses_cluster else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
