"""Recall for one request. For now: vector top-k with the request's filters, then reinforcement."""

from __future__ import annotations

from ..config import Config
from ..model import SearchResult
from ..providers.embedder import Embedder
from ..store import Database, UnitFilter
from ..store import units as unit_sql
from .request import SearchRequest

__all__ = ["Recaller", "unit_filter"]


def unit_filter(request: SearchRequest, config: Config) -> UnitFilter:
    return UnitFilter(
        types=tuple(t.value for t in request.types) if request.types else None,
        min_importance=request.min_importance,
        since=request.since,
        until=request.until,
        tags=request.tags,
        user_id=request.user_id,
        session_id=request.session_id,
        include_archived=request.include_archived,
        now=request.now,
        decay_rate=config.lifecycle.decay_rate,
        procedural_decay_rate=config.lifecycle.procedural_decay_rate,
    )


class Recaller:
    def __init__(self, db: Database, embedder: Embedder, config: Config) -> None:
        self.db = db
        self.embedder = embedder
        self.config = config

    def search(self, request: SearchRequest) -> list[SearchResult]:
        query_vector = self.embedder.embed([request.query])[0]
        with self.db.transaction() as conn:
            hits = unit_sql.vector_search(
                conn, request.agent_id, query_vector, limit=request.top_k, flt=unit_filter(request, self.config)
            )
            if request.reinforce:
                unit_sql.reinforce(conn, request.agent_id, [u.id for u, _ in hits], request.now)
        return [
            SearchResult(
                id=u.id, text=u.text, weight=sim, memory_type=u.memory_type, event_date=u.event_date,
                context=u.context, document_id=u.document_id, importance=u.importance, speaker=u.speaker,
                tags=u.tags, metadata=u.metadata,
                explanation={"channels": ["vector"], "similarity": sim} if request.explain else None,
            )
            for u, sim in hits
        ]
