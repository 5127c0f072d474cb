"""SQL for ``documents`` (raw input and its provenance); deleting them is ``deletes``."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg.types.json import Jsonb

from ..db.rows import insert_rows
from ..db.routing import by_agent, violates

__all__ = ["NewDocument", "StoredConcurrently", "content_hash", "insert_documents", "existing_hashes",
           "find_duplicates", "stored_identities"]


@dataclass(frozen=True, slots=True)
class NewDocument:
    id: UUID
    agent_id: str
    content: str
    event_date: datetime
    created_at: datetime
    context: str | None = None
    source: str | None = None
    speaker: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    user_id: str | None = None  # the put's user: ``deletes.forget_user`` removes the document by it
    deduplicated: bool = False  # a put's (not an update's): unique per hash, event time and user (migration 017)


def content_hash(content: str, context: str | None = None, speaker: str | None = None) -> str:
    digest = hashlib.sha256()
    for part in (content, context or "", speaker or ""):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()


_COLUMNS = (("id", "uuid"), ("agent_id", "text"), ("content", "text"), ("content_hash", "text"),
            ("context", "text"), ("source", "text"), ("speaker", "text"), ("event_date", "timestamptz"),
            ("created_at", "timestamptz"), ("metadata", "jsonb"), ("user_id", "text"), ("deduplicated", "bool"))


class StoredConcurrently(Exception):
    """A document of the put was committed meanwhile by an identical put (migration 017): the
    transaction is lost; the put answers again, finding it a duplicate."""


def insert_documents(conn: psycopg.Connection, docs: Sequence[NewDocument]) -> None:
    """Write the documents (``rows.insert_rows``: one ``COPY`` for a batch), in the order of their
    deduplication keys, so two puts that share documents wait for each other in one order, never
    crosswise. Of identical documents within the batch only the first is ``deduplicated`` (the
    others are stored as before). Raises ``StoredConcurrently`` when an identical put committed one
    of them after this put checked for duplicates."""
    rows, seen = [], set()
    for d in docs:
        digest = content_hash(d.content, d.context, d.speaker)
        key = (d.agent_id, digest, d.event_date, d.user_id)
        rows.append((d.id, d.agent_id, d.content, digest, d.context, d.source, d.speaker, d.event_date,
                     d.created_at, Jsonb(d.metadata), d.user_id, d.deduplicated and key not in seen))
        seen.add(key)
    rows.sort(key=lambda r: (not r[-1], r[1], r[3], r[7], r[10] or ""))
    try:
        insert_rows(conn, "documents", _COLUMNS, rows)
    except (psycopg.errors.UniqueViolation, psycopg.errors.InternalError_) as exc:
        if violates(exc, "documents_put_once_idx"):
            raise StoredConcurrently(str(exc)) from exc
        raise


def existing_hashes(conn: psycopg.Connection, agent_id: str, hashes: Sequence[str]) -> set[str]:
    rows = conn.execute(
        "SELECT content_hash FROM documents WHERE agent_id = %s AND content_hash = ANY(%s)", (agent_id, list(hashes))
    ).fetchall()
    return {r[0] for r in rows}


def stored_identities(conn: psycopg.Connection, agent_id: str,
                      hashes: Sequence[str]) -> list[tuple[str, str | None, datetime, str | None]]:
    """``(content hash, source, event date, turn id)`` of the agent's documents with these hashes."""
    return [tuple(r) for r in conn.execute(
        "SELECT content_hash, source, event_date, metadata->>'turn_id' FROM documents"
        " WHERE agent_id = %s AND content_hash = ANY(%s)", (agent_id, list(set(hashes)))
    ).fetchall()]


_DUPLICATES = (
    "SELECT k.i, d.id, u.id, u.text, u.memory_type"
    " FROM unnest(%(h)s::text[], %(e)s::timestamptz[], %(u)s::text[]) WITH ORDINALITY AS k(h, e, usr, i)"
    " CROSS JOIN LATERAL (SELECT id FROM documents x WHERE x.agent_id = %(a)s AND x.content_hash = k.h"
    "   AND x.event_date = k.e AND NOT EXISTS (SELECT 1 FROM memory_units m WHERE m.agent_id = %(a)s"
    "   AND m.document_id = x.id AND m.user_id IS DISTINCT FROM k.usr)"
    "   ORDER BY x.created_at, x.id LIMIT 1) d"
    " LEFT JOIN memory_units u ON u.agent_id = %(a)s AND u.document_id = d.id ORDER BY k.i, u.seq"
)


def find_duplicates(conn: psycopg.Connection, keys: Sequence[tuple[str, str, datetime, str | None]]
                    ) -> dict[int, tuple[UUID, list[tuple[UUID, str, str]]]]:
    """For each ``(agent_id, content_hash, event_date, user_id)`` (by position) already stored for
    that user: the first such document and its units ``(id, text, memory_type)`` in write order —
    never another user's units. One statement per agent (``store.db.routing``)."""
    found: dict[int, tuple[UUID, list[tuple[UUID, str, str]]]] = {}
    for agent_id, at in by_agent(k[0] for k in keys).items():
        rows = conn.execute(_DUPLICATES, {"a": agent_id, "h": [keys[p][1] for p in at],
                                          "e": [keys[p][2] for p in at], "u": [keys[p][3] for p in at]}).fetchall()
        for i, doc_id, uid, text, mtype in rows:
            entry = found.setdefault(at[int(i) - 1], (doc_id, []))
            if uid is not None:
                entry[1].append((uid, text, mtype))
    return dict(sorted(found.items()))
