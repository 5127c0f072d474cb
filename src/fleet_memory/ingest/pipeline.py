"""The ingestion pipeline: episodes → sentence-level facts → embeddings → one transaction that
writes the documents and their units.

Everything for one ``put_many`` call is embedded in one batch and written in one transaction:
after a crash there is either the whole call or none of it.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Sequence

from ..clock import Clock
from ..config import Config
from ..model import MemoryType, PutResult, StoredUnit
from ..providers.embedder import Embedder
from ..store import Database
from ..store import documents as doc_sql
from ..store import units as unit_sql
from .records import EmbeddedFact, Episode, ExtractedFact
from .sentences import split_sentences

__all__ = ["Ingestor"]

_log = logging.getLogger(__name__)

ImportanceFn = Callable[[str, tuple[str, ...]], float]


def _default_importance(text: str, tags: tuple[str, ...]) -> float:
    return 0.5


class Ingestor:
    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        config: Config,
        clock: Clock,
        importance: ImportanceFn = _default_importance,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.config = config
        self.clock = clock
        self.importance = importance

    def extract(self, episodes: Sequence[Episode]) -> list[ExtractedFact]:
        facts = []
        for index, episode in enumerate(episodes):
            for sentence in split_sentences(episode.content):
                facts.append(
                    ExtractedFact(index, sentence, episode.memory_type, episode.importance, episode.speaker)
                )
        return facts

    def put_many(self, episodes: Sequence[Episode]) -> list[PutResult]:
        timings: dict[str, float] = {}
        started = time.perf_counter()
        facts = self.extract(episodes)
        timings["extract"] = time.perf_counter() - started

        started = time.perf_counter()
        vectors = self.embedder.embed([f.text for f in facts])
        embedded = [EmbeddedFact(f, uuid.uuid4(), v) for f, v in zip(facts, vectors)]
        timings["embed"] = time.perf_counter() - started

        started = time.perf_counter()
        now = self.clock.now()
        doc_ids = [uuid.uuid4() for _ in episodes]
        docs = [
            doc_sql.NewDocument(
                id=doc_id, agent_id=e.agent_id, content=e.content, event_date=e.event_date, created_at=now,
                context=e.context, source=e.source, speaker=e.speaker, metadata=dict(e.metadata),
            )
            for doc_id, e in zip(doc_ids, episodes)
        ]
        units = [self._new_unit(item, episodes[item.fact.episode_index], doc_ids, now) for item in embedded]
        unit_episode = {item.unit_id: item.fact.episode_index for item in embedded}
        with self.db.transaction() as conn:
            doc_sql.insert_documents(conn, docs)
            unit_sql.insert_units(conn, units)
        timings["store"] = time.perf_counter() - started
        _log.debug("put_many of %d episodes: %s", len(episodes), timings)

        per_episode: list[list[StoredUnit]] = [[] for _ in episodes]
        for unit in units:
            per_episode[unit_episode[unit.id]].append(StoredUnit(unit.id, unit.text, MemoryType(unit.memory_type)))
        return [
            PutResult(
                document_id=doc_id,
                units=tuple(stored),
                skipped_reason=None if stored else "no sentence with substance was found",
                stage_seconds=dict(timings),
            )
            for doc_id, stored in zip(doc_ids, per_episode)
        ]

    def _new_unit(self, item: EmbeddedFact, episode: Episode, doc_ids: list[uuid.UUID], now) -> unit_sql.NewUnit:
        fact = item.fact
        importance = fact.importance if fact.importance is not None else self.importance(fact.text, episode.tags)
        return unit_sql.NewUnit(
            id=item.unit_id, agent_id=episode.agent_id, text=fact.text, embedding=item.embedding,
            event_date=episode.event_date, created_at=now, memory_type=fact.memory_type, importance=importance,
            context=episode.context, document_id=doc_ids[fact.episode_index], tags=episode.tags,
            user_id=episode.user_id, session_id=episode.session_id, source=episode.source,
            speaker=fact.speaker or episode.speaker, metadata=dict(episode.metadata),
        )
