"""The fleet benchmark's bulk path copies exactly what the pipeline stored, under new ids."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import sys
from pathlib import Path

import psycopg
from pgvector.psycopg import register_vector

from .checks import graph_problems

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
import fleet_replicate as replicate  # noqa: E402

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
TEXTS = ["Alice Moreau started working at Orbital Labs.", "Bob Kitano flew to Lisbon with Alice Moreau.",
         "Alice Moreau adopted a dog named Biscuit.", "Bob Kitano is worried about Orbital Labs."]


def _counts(conn, agent):
    return conn.execute(
        "SELECT (SELECT count(*) FROM memory_units WHERE agent_id = %(a)s),"
        " (SELECT count(*) FROM links WHERE agent_id = %(a)s),"
        " (SELECT count(*) FROM unit_entities WHERE agent_id = %(a)s),"
        " (SELECT count(*) FROM entities WHERE agent_id = %(a)s),"
        " (SELECT count(*) FROM documents WHERE agent_id = %(a)s)", {"a": agent}).fetchone()


def _mentions(db_url, agent):
    """Each mention as (unit text, entity name, surface), sorted."""
    with psycopg.connect(db_url) as conn:
        return sorted(conn.execute(
            "SELECT u.text, e.name, ue.surface FROM unit_entities ue"
            " JOIN memory_units u ON u.agent_id = ue.agent_id AND u.id = ue.unit_id"
            " JOIN entities e ON e.agent_id = ue.agent_id AND e.id = ue.entity_id WHERE ue.agent_id = %s",
            (agent,)).fetchall())


def _stale_bits(db_url, agent):
    """Mentions whose bits are not their unit's quantized embedding (what a put's trigger writes)."""
    with psycopg.connect(db_url) as conn:
        return conn.execute(
            "SELECT count(*) FROM unit_entities ue JOIN memory_units u ON u.agent_id = ue.agent_id"
            " AND u.id = ue.unit_id WHERE ue.agent_id = %s"
            " AND ue.bits IS DISTINCT FROM binary_quantize(u.embedding)::bit(384)", (agent,)).fetchone()[0]


def test_clone_copies_the_pipelines_rows(memory, db_url):
    for i, text in enumerate(TEXTS * 2):
        memory.put("pool", text, event_date=T0 + timedelta(hours=i))
    with psycopg.connect(db_url) as conn:
        register_vector(conn)
        size = _counts(conn, "pool")[0]
        assert replicate.clone_units(conn, "pool", "copy", size) == size
        assert replicate.clone_units(conn, "pool", "twice", 2 * size + 1, offset=3) == 2 * size + 1
        conn.commit()
        pool, copy, twice = (_counts(conn, a) for a in ("pool", "copy", "twice"))
        near = conn.execute(
            "SELECT min(1 - (a.embedding <=> b.embedding)) FROM memory_units a JOIN memory_units b"
            " ON b.agent_id = 'copy' AND b.text = a.text AND b.event_date = a.event_date WHERE a.agent_id = 'pool'"
        ).fetchone()[0]
    assert copy == pool
    assert twice[0] == 2 * size + 1 and twice[1] >= 2 * pool[1] and twice[3] == pool[3]
    assert 0.95 < near < 1.0  # near, not equal, vectors
    assert _mentions(db_url, "copy") == _mentions(db_url, "pool")
    assert _stale_bits(db_url, "copy") == _stale_bits(db_url, "twice") == 0
    for agent in ("pool", "copy", "twice"):
        assert graph_problems(db_url, agent) == []
    assert memory.search("copy", "Where did Bob fly?", top_k=3)


def test_a_bulk_clone_writes_what_the_skipped_triggers_would(memory, db_url):
    for i, text in enumerate(TEXTS):
        memory.put("pool", text, event_date=T0 + timedelta(hours=i))
    with psycopg.connect(db_url) as conn:
        register_vector(conn)
        size = _counts(conn, "pool")[0]
        assert replicate.clone_units(conn, "pool", "bulk", size, skip_fk_checks=True) == size
        conn.commit()
    assert _mentions(db_url, "bulk") == _mentions(db_url, "pool")
    assert _stale_bits(db_url, "bulk") == 0
    assert graph_problems(db_url, "bulk") == []
