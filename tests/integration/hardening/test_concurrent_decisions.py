"""Concurrent duplicates: identical puts at the same moment store one document
(the others answer as a sequential second put does, ``DUPLICATE``), and concurrent updates of one
unit make one new version (the others are refused as updates of a superseded unit), so ``history``
lists every version there is. Real threads against the real database."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

from fleet_memory import InvalidInputError
from tests.support.concurrency import run_together

AGENT = "racing"
WHEN = datetime(2024, 6, 10, tzinfo=timezone.utc)


def _documents(memory) -> int:
    with memory.db.transaction() as conn:
        return conn.execute("SELECT count(*) FROM documents WHERE agent_id = %s", (AGENT,)).fetchone()[0]


def test_identical_puts_at_the_same_moment_store_one_document(memory) -> None:
    def put(wait):
        wait()
        return memory.put(AGENT, "Alice moved to Porto in May.", event_date=WHEN, user_id="u1")

    results = run_together(put, count=8)
    assert _documents(memory) == 1
    assert sorted((r.skipped_reason or "").startswith("already stored") for r in results) == [False] + [True] * 7
    assert len({r.document_id for r in results}) == 1 and len({r.units for r in results}) == 1


def test_concurrent_updates_of_one_unit_make_one_version(memory) -> None:
    old = memory.put(AGENT, "Bob works at Initech.", event_date=WHEN).units[0].id
    refused: list[InvalidInputError] = []
    lock = threading.Lock()

    def update(wait):
        wait()
        try:
            return memory.update(AGENT, old, "Bob works at Globex now.")
        except InvalidInputError as exc:
            with lock:
                refused.append(exc)
            return None

    made = [r for r in run_together(update, count=6) if r is not None]
    versions = memory.history(AGENT, old)
    assert len(made) == 1 and len(refused) == 5
    assert all("superseded" in str(exc) for exc in refused)
    assert [v.id for v in versions] == [old] + [r.units[0].id for r in made]  # nothing stored outside history
    assert memory.stats(AGENT).units == 1 + len(made)
