"""What an agent's own indexes (``store.db.agent_indexes``) become on a Citus cluster: run beside
the cluster of ``tests/citus/cluster.sh`` (``tests/citus/cluster.sh --shell -c '.venv/bin/python
tests/citus/measure_indexes.py'``). Builds one agent past a lowered boundary, runs ``index-agents``
through the coordinator, then reads every worker's catalogue: how many copies of each index exist,
how big the copy on the agent's shard is and how big the empty ones are, and whether the agent's
vector statement (routed to its shard) reads its own index. Prints one JSON object."""

from __future__ import annotations

import json
import os
import time
from urllib.parse import urlsplit, urlunsplit

import psycopg

from fleet_memory import Config, FleetMemory
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support import citus

UNITS = int(os.environ.get("UNITS", "1200"))
SIZES = ("SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c WHERE c.relkind = 'i'"  # a shard's copies
         " AND c.relnamespace = current_schema()::regnamespace AND c.relname ~ '^memory_units_own_.*_[0-9]+$'")


def _fill(memory: FleetMemory) -> None:
    for start in range(0, UNITS, 200):
        memory.put_many([{"content": f"Note {i}: the deploy of service {i % 37} ran on node {i % 11}."}
                         for i in range(start, min(UNITS, start + 200))], agent_id="big")
    memory.put("small", "A small agent's only note.")


def _worker_sizes(url: str) -> list[tuple[str, int]]:
    """``(index name, bytes)`` of every copy of an own index on every worker."""
    parts = urlsplit(url)
    out = []
    for port in os.environ["CITUS_PORTS"].split()[1:]:
        worker = urlunsplit(parts._replace(netloc=f"{parts.username}@{parts.hostname}:{port}"))
        with psycopg.connect(worker) as conn:
            conn.execute("SET citus.override_table_visibility TO off")  # show the shards themselves
            out += conn.execute(SIZES).fetchall()
    return out


def main() -> None:
    with citus.schema(citus.cluster_url(), migrated=True) as url:
        with FleetMemory(Config(database_url=url), embedder=HashingEmbedder()) as memory:
            _fill(memory)
            started = time.perf_counter()
            built = memory.index_agents(min_units=UNITS // 2)
            build_s = time.perf_counter() - started
        with psycopg.connect(url) as conn:
            shards = conn.execute("SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'memory_units'::regclass"
                                  ).fetchone()[0]
            vector = conn.execute("SELECT embedding::text FROM memory_units WHERE agent_id = 'big' LIMIT 1").fetchone()[0]
            # the shard plans by its own costs; with sorting off (as store.db.database.index_order
            # does), does it read the agent's own index? SET LOCAL reaches the worker only so
            conn.execute("SET citus.propagate_set_commands TO 'local'")
            conn.execute("SET LOCAL enable_sort TO off")
            plan = "\n".join(r[0] for r in conn.execute(
                "EXPLAIN SELECT id FROM memory_units WHERE agent_id = 'big' AND archived_at IS NULL"
                " ORDER BY embedding <=> %s::vector LIMIT 10", (vector,)).fetchall())
        sizes = _worker_sizes(url)
    full = [s for _, s in sizes if s > 16384]
    print(json.dumps({"units": UNITS, "shards": shards, "built": list(built.built), "build_s": round(build_s, 2),
                      "index_copies": len(sizes), "agent_shard_bytes": sorted(full),
                      "empty_copy_bytes": sorted({s for _, s in sizes if s <= 16384}),
                      "own_index_in_plan": "memory_units_own_vec" in plan,
                      "plan": [line[:120] for line in plan.splitlines()]}, indent=1))


if __name__ == "__main__":
    main()
