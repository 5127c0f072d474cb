"""Bulk replication of one agent's memory into others, for fleet benchmarks.

The ingestion pipeline (parse, entities, coreference, embeddings, links) is far too slow on a
small machine to fill a fleet of a million units, so a benchmark ingests a pool of conversations
through the real pipeline once, into a source agent, and then copies that agent's rows into many
target agents with ``clone_units``: exactly the rows the pipeline stored (documents, units,
entities with their aliases, mentions, temporal and semantic links, term statistics), under new
ids, so every target has the same kind of graph the pipeline builds.

A target of ``units`` units takes the source's units in write order from ``offset`` on, wrapping
around (targets differ in content); a target larger than the source repeats it in blocks, each
block shifted later in time by the source's time span plus a day, and each copy's embedding gets
uniform noise of amplitude ``noise`` per dimension (so copies are near, not equal, vectors).
Links are copied within a block (both ends in the same block, as the pipeline links units that
arrived together); entities are the agent's, so mentions of one name across blocks share one
entity, as they would. Ids are ``md5(target, block, source id)``: deterministic.

``deferred_indexes`` drops the unit table's HNSW and GIN indexes for the duration of a bulk load
and rebuilds them once after (as a bulk load should), restoring the exact definitions.

On a Citus coordinator (tables distributed by ``agent_id``) the same statements run: each reads
one agent, the source, and writes one other, the target, both given as parameters, so Citus plans
the read for the source's shard and inserts what it returns into the target's through the
coordinator (INSERT ... SELECT through the coordinator; ``tests/citus/test_fleet_clone.py``). The
index rebuild's ``maintenance_work_mem`` is then a propagated ``SET LOCAL``, so the shards' builds
on the workers get it too, and ``database_bytes`` sums the distributed and reference tables over
every node.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import psycopg

__all__ = ["clone_units", "deferred_indexes", "restore_indexes", "database_bytes", "unit_counts", "latest_event"]

_COPIES = (
    "WITH pool AS (SELECT id, row_number() OVER (ORDER BY seq) - 1 AS r FROM memory_units WHERE agent_id = %(src)s),"
    " c AS MATERIALIZED (SELECT k / %(p)s AS b, p.id, k FROM generate_series(0, %(n)s - 1) k"
    "   JOIN pool p ON p.r = (k + %(off)s) %% %(p)s)"
)
_NEW = "md5(%(dst)s || ':' || c.b || ':' || {col})::uuid"
_EMBEDDING = "u.embedding + (%(nv)b::vector[])[1 + c.k %% %(nn)s]"  # a copy's vector: the source unit's, plus noise


_NOISE_VECTORS = 61


def _noise(amplitude: float, dim: int) -> list[np.ndarray]:
    """A fixed set of uniform noise vectors (``±amplitude`` per dimension); unit k of a copy gets
    vector ``k mod 61``, so neighbouring units never share one. pgvector adds them in C."""
    rng = np.random.default_rng(0)
    return [rng.uniform(-amplitude, amplitude, dim).astype(np.float32) for _ in range(_NOISE_VECTORS)]


def clone_units(conn: psycopg.Connection, source: str, target: str, units: int, *, offset: int = 0,
                noise: float = 0.01, skip_fk_checks: bool = False) -> int:
    """Copy ``units`` units of ``source`` (with their documents, entities, mentions and links)
    into the empty agent ``target``; returns the units written. Seven statements, in the caller's
    transaction. ``skip_fk_checks``: the copy is consistent by construction, so a bulk load may
    skip the per-row foreign-key triggers for this transaction (``session_replication_role``,
    superuser only: the embedded server's; on a Citus coordinator propagated to the workers, where
    the shards' triggers fire). That role skips every trigger, migration 011's too, so the copied
    mentions' ``bits`` are written here, from the copied units' embeddings, as that trigger would
    set them (it sets the same when it fires)."""
    if skip_fk_checks:
        if _is_citus(conn):
            conn.execute("SET LOCAL citus.propagate_set_commands = 'local'")
        conn.execute("SET LOCAL session_replication_role = replica")
    p = {"src": source, "dst": target, "n": units, "off": offset, "noise": noise}
    span, size, dim = conn.execute(
        "SELECT coalesce(extract(epoch FROM max(event_date) - min(event_date)), 0) + 86400, count(*),"
        " (SELECT vector_dims(embedding) FROM memory_units WHERE agent_id = %(src)s LIMIT 1)"
        " FROM memory_units WHERE agent_id = %(src)s", p).fetchone()
    if not size:
        return 0
    p.update(span=float(span), p=int(size), nn=_NOISE_VECTORS, nv=_noise(noise, int(dim)))
    shift = "c.b * %(span)s * interval '1 second'"
    conn.execute(
        _COPIES + " INSERT INTO documents (agent_id, id, content, content_hash, context, source, speaker,"
        " event_date, created_at, metadata)"
        " SELECT DISTINCT ON (1, 2) %(dst)s, " + _NEW.format(col="d.id") + ", d.content, d.content_hash, d.context,"
        " d.source, d.speaker, d.event_date + " + shift + ", d.created_at, d.metadata"
        " FROM c JOIN memory_units u ON u.agent_id = %(src)s AND u.id = c.id"
        " JOIN documents d ON d.agent_id = %(src)s AND d.id = u.document_id", p)
    written = conn.execute(
        _COPIES + " INSERT INTO memory_units (agent_id, id, document_id, text, memory_type, context, event_date,"
        " created_at, last_accessed, access_count, importance, importance_set_at, embedding, tags, user_id,"
        " session_id, source, speaker, metadata)"
        " SELECT %(dst)s, " + _NEW.format(col="u.id") + ", CASE WHEN u.document_id IS NOT NULL THEN "
        + _NEW.format(col="u.document_id") + " END, u.text, u.memory_type, u.context, u.event_date + " + shift
        + ", u.created_at, u.last_accessed, u.access_count, u.importance, u.importance_set_at,"
        " " + _EMBEDDING + ","
        " u.tags, u.user_id, u.session_id, u.source, u.speaker, u.metadata"
        " FROM c JOIN memory_units u ON u.agent_id = %(src)s AND u.id = c.id ORDER BY c.k", p).rowcount
    conn.execute(
        _COPIES + " INSERT INTO entities (agent_id, id, name, normalized_name, label, aliases, first_seen,"
        " last_seen, mention_count)"
        " SELECT %(dst)s, md5(%(dst)s || ':e:' || e.id)::uuid, e.name, e.normalized_name, e.label, e.aliases,"
        " e.first_seen, e.last_seen + (SELECT max(b) FROM c) * %(span)s * interval '1 second', 0"
        " FROM entities e WHERE e.agent_id = %(src)s AND EXISTS (SELECT 1 FROM unit_entities ue JOIN c ON"
        "  c.id = ue.unit_id WHERE ue.agent_id = %(src)s AND ue.entity_id = e.id)", p)
    conn.execute(
        _COPIES + " , m AS (INSERT INTO unit_entities (agent_id, unit_id, entity_id, surface, bits)"
        " SELECT %(dst)s, " + _NEW.format(col="ue.unit_id") + ", md5(%(dst)s || ':e:' || ue.entity_id)::uuid,"
        f" ue.surface, binary_quantize({_EMBEDDING})::bit({int(dim)})"
        " FROM c JOIN unit_entities ue ON ue.agent_id = %(src)s AND ue.unit_id = c.id"
        " JOIN memory_units u ON u.agent_id = %(src)s AND u.id = c.id RETURNING entity_id)"
        " UPDATE entities e SET mention_count = x.n FROM (SELECT entity_id, count(*) AS n FROM m GROUP BY 1) x"
        " WHERE e.agent_id = %(dst)s AND e.id = x.entity_id", p)
    conn.execute(
        _COPIES + " INSERT INTO links (agent_id, from_id, to_id, kind, weight)"
        " SELECT %(dst)s, least(f, t), greatest(f, t), kind, weight FROM ("
        "  SELECT " + _NEW.format(col="l.from_id") + " AS f, md5(%(dst)s || ':' || c.b || ':' || l.to_id)::uuid AS t,"
        "   l.kind, l.weight FROM links l JOIN c ON c.id = l.from_id"
        "   JOIN c c2 ON c2.id = l.to_id AND c2.b = c.b WHERE l.agent_id = %(src)s) x"
        " ON CONFLICT DO NOTHING", p)
    _count_terms(conn, target)
    return written


def _count_terms(conn: psycopg.Connection, agent_id: str) -> None:
    """The agent's ``term_df`` rows, counted from its units (the agent had none before)."""
    conn.execute(
        "INSERT INTO term_df (agent_id, lexeme, df)"
        " SELECT %(a)s, lex, count(*) FROM memory_units u, unnest(tsvector_to_array(u.tsv)) lex"
        " WHERE u.agent_id = %(a)s GROUP BY lex"
        " UNION ALL SELECT %(a)s, '', count(*) FROM memory_units WHERE agent_id = %(a)s", {"a": agent_id})


@contextmanager
def deferred_indexes(conn: psycopg.Connection) -> Iterator[None]:
    """Drop ``memory_units``' HNSW and GIN indexes, yield, and create them again as they were.
    ``conn`` in autocommit mode (index builds run outside the load's transactions)."""
    restore_indexes(conn)  # an earlier load that was killed before rebuilding them
    with conn.transaction():
        defs = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
            " AND tablename = 'memory_units' AND (indexdef LIKE '%% USING hnsw %%' OR indexdef LIKE '%% USING gin %%')"
        ).fetchall()
        for name, definition in defs:  # remembered in the database until rebuilt
            conn.execute("INSERT INTO fm_settings (key, value) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING",
                         (_DEFERRED + name, definition))
            conn.execute(f'DROP INDEX IF EXISTS "{name}"')
    try:
        yield
    finally:
        restore_indexes(conn)


_DEFERRED = "deferred_index:"


def restore_indexes(conn: psycopg.Connection) -> None:
    """Build the indexes ``deferred_indexes`` dropped and has not rebuilt yet."""
    pending = conn.execute("SELECT key, value FROM fm_settings WHERE key LIKE %s", (_DEFERRED + "%",)).fetchall()
    if not pending:
        return
    citus = _is_citus(conn)
    for key, definition in pending:
        with conn.transaction():
            if citus:  # the shards' builds run on the workers: the setting goes there too
                conn.execute("SET LOCAL citus.propagate_set_commands = 'local'")
            conn.execute("SET LOCAL maintenance_work_mem = '2GB'")
            conn.execute(definition.replace("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1))
            conn.execute("DELETE FROM fm_settings WHERE key = %s", (key,))


def _is_citus(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')").fetchone()[0]


def database_bytes(conn: psycopg.Connection) -> int:
    """The database's size; on a Citus coordinator the current schema's distributed and reference
    tables summed over every node (their shards are on the workers, not in the coordinator's database)."""
    if _is_citus(conn):
        return int(conn.execute(
            "SELECT coalesce(sum(citus_total_relation_size(p.logicalrelid)), 0) FROM pg_dist_partition p"
            " JOIN pg_class c ON c.oid = p.logicalrelid WHERE c.relnamespace = current_schema()::regnamespace"
        ).fetchone()[0])
    return int(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])


def unit_counts(conn: psycopg.Connection, prefix: str) -> dict[str, int]:
    """Units per agent whose id starts with ``prefix`` (from ``term_df``, one index range)."""
    rows = conn.execute("SELECT agent_id, df FROM term_df WHERE agent_id LIKE %s AND lexeme = ''",
                        (prefix.replace("%", r"\%") + "%",)).fetchall()
    return {agent: int(df) for agent, df in rows}


def latest_event(conn: psycopg.Connection, agent_id: str):
    return conn.execute("SELECT max(event_date) FROM memory_units WHERE agent_id = %s", (agent_id,)).fetchone()[0]
