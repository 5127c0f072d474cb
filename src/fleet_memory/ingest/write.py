"""The steps of a put inside its transaction, before supersession: write the documents and units,
record the entity mentions, make the links.

- ``write_put``: one document per episode and one unit row per embedded unit (importance, metadata,
  the heading path of structured text under the put's own context), two bulk inserts.
- ``record_mentions``: entity resolution (``ingest.resolve``) and the mention rows, agent by agent.
- ``link_put``: temporal links (at the time the unit was said) and semantic links — the stored
  part from the reads beside (``ingest.nearby``) when they are good, else searched here; the
  batch's own in memory (``store.linking.links.link_units``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

import numpy as np
import psycopg

from ..config import Config, IngestConfig
from ..ids import new_ids
from ..store.linking.links import link_units
from ..store.tables import documents as doc_sql
from ..store.tables import entities as entity_sql
from ..store.tables import units as unit_sql
from .nearby import Read, stored_pairs
from .records import EmbeddedUnit, Episode, WrittenPut, WrittenUnit
from .resolve import UnitMentions, resolve_entities

__all__ = ["ImportanceFn", "link_put", "record_mentions", "write_put"]

ImportanceFn = Callable[[str, tuple[str, ...]], float]


def write_put(conn: psycopg.Connection, episodes: Sequence[Episode], embedded: Sequence[EmbeddedUnit],
              now: datetime, importance: ImportanceFn, config: Config) -> WrittenPut:
    """The documents and units of the put, written; the agents' unit counts after the write."""
    doc_ids = tuple(new_ids(len(episodes)))
    docs = [
        doc_sql.NewDocument(
            id=doc_id, agent_id=e.agent_id, content=e.content, event_date=e.event_date, created_at=now,
            context=e.context, source=e.source, speaker=e.speaker, metadata=dict(e.metadata), user_id=e.user_id,
            deduplicated=e.corrects is None,
        )
        for doc_id, e in zip(doc_ids, episodes)
    ]
    units = tuple(
        WrittenUnit(item.draft.episode_index, _new_unit(item, episodes, doc_ids, now, importance, config),
                    item.draft.mentions, item.draft.parse)
        for item in embedded
    )
    doc_sql.insert_documents(conn, docs)
    counts = unit_sql.insert_units(conn, [u.row for u in units])
    return WrittenPut(doc_ids, units, counts)


def record_mentions(conn: psycopg.Connection, written: WrittenPut, config: IngestConfig) -> int:
    """Resolve the units' entity mentions and record them, agent by agent; how many rows."""
    by_agent: dict[str, list[UnitMentions]] = {}
    for unit in written.units:
        if unit.mentions:
            row = unit.row
            by_agent.setdefault(row.agent_id, []).append(UnitMentions(row.id, row.event_date, unit.mentions))
    recorded = 0
    for agent_id in sorted(by_agent):
        mentions = resolve_entities(conn, agent_id, by_agent[agent_id], config)
        recorded += entity_sql.record_mentions(conn, agent_id, mentions)
    return recorded


def link_put(conn: psycopg.Connection, episodes: Sequence[Episode], written: WrittenPut, reads: Sequence[Read],
             config: IngestConfig) -> dict[str, int]:
    """Temporal and semantic links of the written units, agent by agent; link rows made, by kind."""
    by_agent: dict[str, list[tuple[uuid.UUID, datetime, np.ndarray]]] = {}
    for unit in written.units:
        row = unit.row
        # linked at the time it was said: a unit dated by its text ("yesterday") stays next to its turn
        said = episodes[unit.episode_index].event_date
        by_agent.setdefault(row.agent_id, []).append((row.id, said, row.embedding))
    counts = {"temporal": 0, "semantic": 0}
    for agent_id in sorted(by_agent):
        units = by_agent[agent_id]
        before = written.unit_counts.get(agent_id, 0) - len(units)
        made = link_units(conn, agent_id, units, config, stored_pairs(reads, agent_id, before, len(units)))
        for kind, n in made.items():
            counts[kind] += n
    return counts


def _new_unit(item: EmbeddedUnit, episodes: Sequence[Episode], doc_ids: Sequence[uuid.UUID], now: datetime,
              importance: ImportanceFn, config: Config) -> unit_sql.NewUnit:
    draft = item.draft
    episode = episodes[draft.episode_index]
    weight = draft.importance if draft.importance is not None else importance(draft.text, episode.tags)
    metadata = dict(episode.metadata)
    metadata.update(draft.metadata)
    if draft.category:
        metadata.setdefault("category", draft.category)
    if draft.kind != "text":
        metadata["kind"] = draft.kind
    if draft.links:
        metadata["links"] = [{"text": text, "url": url} for text, url in draft.links]
    context = episode.context
    if draft.context:  # the heading path of structured text, under the put's own context
        context = f"{episode.context} > {draft.context}" if episode.context else draft.context
        context = context[: config.limits.max_context_chars]
    return unit_sql.NewUnit(
        id=item.unit_id, agent_id=episode.agent_id, text=draft.text, embedding=item.embedding,
        event_date=draft.event_date or episode.event_date, created_at=now, memory_type=draft.memory_type,
        importance=weight,
        context=context, document_id=doc_ids[draft.episode_index], tags=episode.tags,
        user_id=episode.user_id, session_id=episode.session_id, source=episode.source,
        speaker=draft.speaker or episode.speaker, metadata=metadata,
    )
