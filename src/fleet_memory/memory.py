"""The ``FleetMemory`` facade. Each method validates its arguments through the stage that owns
them and delegates; no SQL and no algorithm live here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any
from uuid import UUID

from .clock import Clock, SystemClock
from .config import Config
from .errors import NotFoundError
from .ingest import Ingestor
from .ingest.request import build_episode, build_episodes
from .model import AgentStats, MemoryUnit, PutResult, SearchResult, UnitPage
from .providers.embedder import Embedder, SentenceTransformerEmbedder
from .recall import Recaller, build_request
from .store import Database, UnitFilter
from .store import documents as doc_sql
from .store import units as unit_sql
from .validation import check_agent_id, check_positive_int, check_uuid

__all__ = ["FleetMemory", "TemporalSemanticMemory"]


class FleetMemory:
    """Long-term memory for agents. Embedded PostgreSQL by default; use as a context manager."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        database_url: str | None = None,
        home: str | Path | None = None,
        embedder: Embedder | None = None,
        clock: Clock | None = None,
    ) -> None:
        config = config if config is not None else Config.from_env()
        if database_url is not None:
            config = replace(config, database_url=database_url)
        if home is not None:
            config = replace(config, home=Path(home))
        self.config = config
        self.clock = clock or SystemClock()
        self.embedder = embedder or SentenceTransformerEmbedder(config.embedding_model, dimension=config.embedding_dim)
        self.db = Database.open(
            url=config.database_url, home=config.data_dir, embedding_dim=self.embedder.dimension,
            min_size=config.pool_min_size, max_size=config.pool_max_size,
        )
        self._ingest = Ingestor(self.db, self.embedder, config, self.clock)
        self._recall = Recaller(self.db, self.embedder, config)

    # lifecycle of the object -------------------------------------------------------------
    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> FleetMemory:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # storing -----------------------------------------------------------------------------
    def put(self, agent_id: str, content: str, *, context: str | None = None, event_date: datetime | str | None = None,
            memory_type: str = "episodic", importance: float | None = None, tags: Iterable[str] = (),
            user_id: str | None = None, session_id: str | None = None, source: str | None = None,
            speaker: str | None = None, metadata: Mapping[str, Any] | None = None) -> PutResult:
        """Store ``content`` as a document and its sentence-level units, in one transaction."""
        episode = build_episode(
            self.config.limits, self.clock.now(), agent_id, content, context=context, event_date=event_date,
            memory_type=memory_type, importance=importance, tags=tags, user_id=user_id, session_id=session_id,
            source=source, speaker=speaker, metadata=metadata,
        )
        return self._ingest.put_many([episode])[0]

    def put_many(self, items: Iterable[Mapping[str, Any]], *, agent_id: str | None = None) -> list[PutResult]:
        """Store many items (mappings with ``put``'s keywords, or conversation turns with ``speaker``,
        ``text``, ``timestamp``, ``turn_id``) with batched embedding, in one transaction."""
        episodes = build_episodes(self.config.limits, self.clock.now(), items, agent_id)
        return self._ingest.put_many(episodes)

    # recalling ---------------------------------------------------------------------------
    def search(self, agent_id: str, query: str, *, top_k: int = 10, thinking_budget: int = 100,
               **options: Any) -> list[SearchResult]:
        """Recall what the agent knows about ``query``; see ``recall.request.build_request`` for options."""
        request = build_request(self.config.limits, self.clock.now(), agent_id, query, top_k=top_k,
                                thinking_budget=thinking_budget, **options)
        return self._recall.search(request)

    # reading and removing ------------------------------------------------------------------
    def get(self, agent_id: str, unit_id: UUID | str) -> MemoryUnit:
        agent, uid = self._agent(agent_id), check_uuid(unit_id, "unit_id")
        with self.db.transaction() as conn:
            found = unit_sql.get_units(conn, agent, [uid])
        if not found:
            raise NotFoundError("memory unit", uid, agent)
        return found[0]

    def delete(self, agent_id: str, unit_id: UUID | str) -> None:
        agent, uid = self._agent(agent_id), check_uuid(unit_id, "unit_id")
        with self.db.transaction() as conn:
            if not unit_sql.delete_unit(conn, agent, uid):
                raise NotFoundError("memory unit", uid, agent)

    def delete_document(self, agent_id: str, document_id: UUID | str) -> None:
        agent, did = self._agent(agent_id), check_uuid(document_id, "document_id")
        with self.db.transaction() as conn:
            if not doc_sql.delete_document(conn, agent, did):
                raise NotFoundError("document", did, agent)

    def delete_agent(self, agent_id: str) -> int:
        """Remove everything one agent has stored; return the number of units removed."""
        agent = self._agent(agent_id)
        with self.db.transaction() as conn:
            return doc_sql.delete_agent(conn, agent)

    def list_units(self, agent_id: str, *, limit: int = 100, offset: int = 0,
                   include_archived: bool = False) -> UnitPage:
        agent = self._agent(agent_id)
        size = check_positive_int(limit, "limit", self.config.limits.max_top_k)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            from .errors import InvalidInputError

            raise InvalidInputError("offset", f"must be a non-negative integer, got {offset!r}")
        with self.db.transaction() as conn:
            rows = unit_sql.list_units(conn, agent, limit=size + 1, offset=offset,
                                       flt=UnitFilter(include_archived=include_archived))
        return UnitPage(tuple(rows[:size]), offset + size if len(rows) > size else None)

    def stats(self, agent_id: str) -> AgentStats:
        agent = self._agent(agent_id)
        with self.db.transaction() as conn:
            return unit_sql.stats(conn, agent)

    def _agent(self, agent_id: object) -> str:
        return check_agent_id(agent_id, self.config.limits)


TemporalSemanticMemory = FleetMemory
"""The seed's name for the same class: ``TemporalSemanticMemory().put(agent_id=..., content=...)``."""
