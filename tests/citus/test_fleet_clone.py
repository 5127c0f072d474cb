"""bench/fleet.py's bulk path on the cluster: ``fleet_replicate.clone_units`` copies one agent's
rows into another living on another shard (every statement reads the source and writes the
target, both parameters: Citus runs it as INSERT ... SELECT through the coordinator), with the
workers' triggers skipped (``skip_fk_checks``, propagated) or not, the mentions' bits set either way. The check of
``tests/integration/fleet/test_replicate.py`` compares the two agents in one join, which Citus
refuses (a join between shards): here each agent is read on its own and compared in Python."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from tests.integration.fleet.checks import graph_problems

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import fleet_replicate as replicate  # noqa: E402

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
TEXTS = ["Alice Moreau started working at Orbital Labs.", "Bob Kitano flew to Lisbon with Alice Moreau.",
         "Alice Moreau adopted a dog named Biscuit.", "Bob Kitano is worried about Orbital Labs."]
COUNTS = ("SELECT (SELECT count(*) FROM memory_units WHERE agent_id = %(a)s),"
          " (SELECT count(*) FROM links WHERE agent_id = %(a)s),"
          " (SELECT count(*) FROM unit_entities WHERE agent_id = %(a)s),"
          " (SELECT count(*) FROM entities WHERE agent_id = %(a)s),"
          " (SELECT count(*) FROM documents WHERE agent_id = %(a)s)")


def _shard(conn, agent: str) -> int:
    return conn.execute("SELECT get_shard_id_for_distribution_column('memory_units', %s::text)",
                        (agent,)).fetchone()[0]


def _vectors(conn, agent: str) -> dict:
    rows = conn.execute("SELECT text, event_date, embedding FROM memory_units WHERE agent_id = %s", (agent,)).fetchall()
    return {(text, when): np.asarray(getattr(vec, "to_numpy", lambda: vec)(), dtype=np.float64)
            for text, when, vec in rows}


def test_clone_into_agents_on_other_shards(memory, db_url):
    for i, text in enumerate(TEXTS * 2):
        memory.put("pool", text, event_date=T0 + timedelta(hours=i))
    with psycopg.connect(db_url) as conn:
        register_vector(conn)
        targets = [f"copy-{i}" for i in range(12)]
        assert {_shard(conn, t) for t in targets} - {_shard(conn, "pool")}  # some live elsewhere
        pool = conn.execute(COUNTS, {"a": "pool"}).fetchone()
        size = pool[0]
        for target in targets:
            assert replicate.clone_units(conn, "pool", target, size, skip_fk_checks=True) == size
        conn.commit()  # the skipped triggers were this transaction's
        assert replicate.clone_units(conn, "pool", "twice", 2 * size + 1, offset=3) == 2 * size + 1
        conn.commit()
        source = _vectors(conn, "pool")
        for target in targets:
            assert conn.execute(COUNTS, {"a": target}).fetchone() == pool
            copy = _vectors(conn, target)
            assert copy.keys() == source.keys()
            cosines = [float(a @ copy[k] / np.linalg.norm(a) / np.linalg.norm(copy[k])) for k, a in source.items()]
            assert 0.95 < min(cosines) and max(cosines) < 1.0  # near, not equal, vectors
        twice = conn.execute(COUNTS, {"a": "twice"}).fetchone()
        assert twice[0] == 2 * size + 1 and twice[1] >= 2 * pool[1] and twice[3] == pool[3]
        for agent in ["pool", "twice", *targets]:  # the mentions' bits, by the trigger or by the clone
            assert conn.execute(
                "SELECT count(*) FILTER (WHERE ue.bits IS DISTINCT FROM binary_quantize(u.embedding)), count(*)"
                " FROM unit_entities ue JOIN memory_units u ON u.agent_id = ue.agent_id AND u.id = ue.unit_id"
                " WHERE ue.agent_id = %s", (agent,)).fetchone()[0] == 0, agent
        assert replicate.unit_counts(conn, "copy-") == {t: size for t in targets}
        assert replicate.database_bytes(conn) > 0
    for agent in ["pool", "twice", *targets]:
        assert graph_problems(db_url, agent) == []
    assert memory.search("copy-0", "Where did Bob fly?", top_k=3)
