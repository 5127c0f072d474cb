"""Episodes stored already, found before a put does any work: the same content, context and speaker
(the document's content hash) with the same event time, for the same agent and user. Such an
episode stores nothing new and its put answers with the units stored the first time (``DUPLICATE``).
One statement checks the batch. An ``update`` (``corrects``) is never a duplicate."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import MemoryType, PutResult, StoredUnit
from ..store import Database
from ..store.tables import documents as doc_sql
from .records import Episode

__all__ = ["DUPLICATE", "stored_already"]

DUPLICATE = "already stored: the same content with the same event time (nothing new was stored)"


def stored_already(db: Database, episodes: Sequence[Episode]) -> dict[int, PutResult]:
    """The put's answer for each episode stored already, by its index in ``episodes``."""
    with db.transaction() as conn:
        known = doc_sql.find_duplicates(conn, [
            (e.agent_id, doc_sql.content_hash(e.content, e.context, e.speaker), e.event_date, e.user_id)
            for e in episodes])
    return {i: PutResult(document_id, tuple(StoredUnit(u, t, MemoryType(m)) for u, t, m in units), DUPLICATE)
            for i, (document_id, units) in known.items() if episodes[i].corrects is None}
