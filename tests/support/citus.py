"""The test database on a real Citus cluster (``make test-citus``, ``tests/citus/cluster.sh``).

When ``FLEET_MEMORY_TEST_DATABASE_URL`` names a database (the cluster's coordinator), the fixtures
of ``tests/conftest.py`` give every test a schema of its own there instead of a database of the
embedded server: created, migrated and distributed by ``agent_id`` as ``fleet-memory db
distribute`` does, reached through a URL whose ``search_path`` is that schema and ``fm_ext`` (where
the cluster keeps pgvector; never ``public``, so nothing a test writes elsewhere is seen by the
next one), and dropped after the test. Only tests that use such a database run in that lane; the
others (no SQL, or the embedded server itself) are deselected, and so are those of ``PLAIN_ONLY``,
each with its reason.
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
EXTENSION_SCHEMA = "fm_ext"

PLAIN_ONLY = {
    "tests/integration/fleet/test_pooling.py":
        "PgBouncer does not pass the options startup parameter, so the test's search_path is lost",
    "tests/surfaces/test_cli_hardening.py::test_postgres_dying_mid_ingest_is_one_line_and_exit_4":
        "closes its database to connections: on the cluster every test shares one database, a schema each",
    "tests/integration/fleet/test_distribution.py":
        "checks the rule on an undistributed schema; tests/citus/test_distribute.py runs it on the cluster",
    "tests/integration/fleet/test_replicate.py":
        "its check joins the pool's rows to the copy's, two agents: a join between shards"
        " (the clone itself runs on the cluster: tests/citus/test_fleet_clone.py)",
    "tests/integration/store/test_planner.py":
        "reads planner estimates on the coordinator, which keeps no statistics of distributed tables",
    "tests/integration/store/test_migrations.py::test_every_table_carries_agent_id":
        "the citus extension's own tables and views are in the catalogue beside ours",
    "tests/integration/store/test_migrations.py::test_fresh_database_gets_every_migration":
        "reads the tables of the schema named public; the lane's schema is the test's own",
    "tests/integration/store/test_embedding_cache.py::test_the_seqs_come_from_the_index_alone":
        "reads a plan under a session's enable_seqscan, which does not reach the shard's planner",
    "tests/surfaces/test_noisy_neighbour.py::test_queued_writes_of_one_agent_leave_the_pool_to_the_others":
        "counts lock waits in the coordinator's pg_stat_activity; on the cluster a row lock is waited for on a worker",
    "tests/integration/fleet/test_agent_indexes.py::test_large_agents_get_their_own_indexes_and_lose_them_when_deleted":
        "reads a plan under SET LOCAL enable_seqscan, which does not reach the shard's planner"
        " (tests/citus/measure_indexes.py shows the shard reading the agent's index)",
    "tests/integration/fleet/test_agent_indexes.py::test_the_put_that_crosses_the_boundary_builds_the_agents_own_indexes":
        "the same plan reading as the test above",
    "tests/integration/ingest/test_links.py::test_fresh_links_are_a_plain_insert_that_refuses_a_stored_pair":
        "expects UniqueViolation; a shard's refusal of a multi-row insert comes back as an internal error",
    "tests/integration/ingest/test_links.py::test_semantic_candidates_exact_and_through_hnsw_agree":
        "reads a plan under its own SET LOCAL enable_sort on a plain connection, which does not reach the"
        " shard's planner (a Database transaction carries its settings there: tests/citus/test_settings.py)",
}


def cluster_url() -> str | None:
    return os.environ.get(URL_VARIABLE) or None


def _with_search_path(url: str, name: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={name},{EXTENSION_SCHEMA}')}"


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
    server's object itself) and are not ``PLAIN_ONLY``; report the rest as deselected."""
    kept, dropped = [], []
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        direct = set(getattr(getattr(item, "_fixtureinfo", None), "argnames", ()))
        plain = any(item.nodeid == key or item.nodeid.startswith((key + "::", key + "[")) for key in PLAIN_ONLY)
        uses_cluster = bool(names & _DATABASE_FIXTURES) and "pg_server" not in direct and not plain
        (kept if uses_cluster else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
