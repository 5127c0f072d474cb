"""``store.db.rows.insert_rows``: a few rows as one ``INSERT`` each, a batch as one binary ``COPY``;
both write the same values."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from uuid import uuid4

import pytest

from fleet_memory.store.db.rows import COPY_FROM_ROWS
from fleet_memory.store.tables import documents as doc_sql

WHEN = datetime(2024, 5, 8, 13, 56, tzinfo=timezone.utc)


@pytest.mark.parametrize("count", [1, COPY_FROM_ROWS - 1, COPY_FROM_ROWS, 3 * COPY_FROM_ROWS])
def test_rows_read_back_as_written(memory, count) -> None:
    docs = [doc_sql.NewDocument(uuid4(), "rows", f"Note {i}: café ☕ \\ 'quoted' \t tab", WHEN + timedelta(minutes=i),
                                WHEN, context=None if i % 2 else "ctx", speaker="Ana" if i % 3 else None,
                                metadata={"i": i, "nested": {"k": [1, "two"]}}) for i in range(count)]
    with memory.db.transaction() as conn:
        doc_sql.insert_documents(conn, docs)
        rows = conn.execute("SELECT id, content, content_hash, context, speaker, event_date, metadata FROM documents"
                            " WHERE agent_id = 'rows' ORDER BY event_date").fetchall()
    assert [(r[0], r[1], r[3], r[4], r[5], r[6]) for r in rows] == [
        (d.id, d.content, d.context, d.speaker, d.event_date, d.metadata) for d in docs]
    assert [r[2] for r in rows] == [doc_sql.content_hash(d.content, d.context, d.speaker) for d in docs]
