"""The ``FleetMemory`` facade. Each method validates its arguments through the stage that owns
them and delegates; no SQL and no algorithm live here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any
from uuid import UUID

from .clock import Clock, SystemClock
from .config import Config, LLMConfig
from .errors import InvalidInputError, NotFoundError
from .ingest import Ingestor
from .ingest.asked_holder import LaterValue
from . import entities as entity_ops
from . import facts
from .idempotency import run_once
from .listing import listing_filter
from . import sizing
from .sizing import AgentSize
from .lifecycle.decay import effective_importance
from . import fact_timeline
from .fact_timeline import FactTimeline
from . import unit_views
from .unit_views import SourceDocument, UnitLink
from .ingest.request import build_episode, build_episodes
from .lifecycle import importance_function
from .lifecycle.importance import ranking_importance
from .lifecycle.consolidation import Consolidator
from .lifecycle.context import check_budget, render_context
from .lifecycle.conversation import (
    build_turns,
    extract_conversation_offline,
    extract_conversation_with_llm,
    memory_items,
)
from .lifecycle.maintenance import Maintainer
from .lifecycle.scheduler import LifecycleScheduler, standard_jobs
from .model import AgentStats, AgentSummary, Entity, EntityDetail, MemoryUnit, PutResult, SearchResult, UnitPage
from .model import ConsolidationReport, ConversationReport, MaintenanceReport
from .providers.embedder import Embedder, SentenceTransformerEmbedder
from .providers.llm import LLM, OpenAICompatibleLLM
from .providers.nlp import NLP
from .recall import Recaller, build_request
from .store import Database
from .store.db import agent_indexes as agent_index_sql
from .store.db.agent_indexes import IndexRefresh
from .store.tables import agents as agent_sql
from .store.tables import deletes as delete_sql
from .store.tables import provenance as prov_sql
from .store.tables import units as unit_sql
from .turns import AgentTurns
from .validation import check_agent_id, check_path_segment, check_positive_int, check_uuid
from .validation import check_date, check_offset, check_optional_text, check_text, check_user_id

if TYPE_CHECKING:  # imported lazily at run time: pictures, files, transfer and keys load on first use
    from .ingest.files import IngestProgress
    from .store.tables.api_keys import ApiKey
    from .transfer import TransferReport
    from .viz.graph import GraphData

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
        llm: LLM | LLMConfig | None = None,
        nlp: NLP | None = None,
    ) -> None:
        """``llm``: an ``LLM`` object, or an ``LLMConfig`` for an OpenAI-compatible endpoint; without
        it, ``config.llm`` (from ``FLEET_MEMORY_LLM*`` when no config is given) or none at all."""
        config = config if config is not None else Config.from_env()
        if isinstance(llm, LLMConfig):
            config, llm = replace(config, llm=llm), None
        if database_url is not None:
            config = replace(config, database_url=database_url)
        if home is not None:
            config = replace(config, home=Path(home))
        self.config = config
        self.clock = clock or SystemClock()
        self.embedder = embedder or SentenceTransformerEmbedder(
            config.embedding_model, dimension=config.embedding_dim, precision=config.embedding_precision)
        self.db = Database.open(
            url=config.database_url, home=config.data_dir, embedding_dim=self.embedder.dimension,
            min_size=min(config.pool_min_size, config.pool_max_size), max_size=config.pool_max_size,
            shared_buffers_mb=config.embedded_shared_buffers_mb, prepared_statements=config.prepared_statements,
            statement_timeout_s=config.statement_timeout_s,
        )
        self._writes = AgentTurns(config.writes_per_agent, config.waiting_writes_per_agent, config.write_wait_s)
        self.llm = llm if llm is not None else (OpenAICompatibleLLM(config.llm) if config.llm else None)
        self._importance = importance_function(config.lifecycle)
        self._ingest = Ingestor(self.db, self.embedder, config, self.clock, importance=self._importance,
                                nlp=nlp, llm=self.llm)
        self._maintainer = Maintainer(self.db, config.lifecycle)
        self._consolidator = Consolidator(self.db, self.embedder, config, self._importance, self.llm)
        self._schedulers: list[LifecycleScheduler] = []
        self._recall = Recaller(self.db, self.embedder, config, ranking_importance(config.lifecycle),
                                same_fact=LaterValue(self._ingest.candidate_nlp))

    # lifecycle of the object -------------------------------------------------------------
    def warm_up(self, on_loaded: Callable[[str], None] | None = None) -> None:
        """Load the models now (embedder and spaCy, in parallel) rather than on the first put or
        search; ``on_loaded(name)`` is told as each is ready (``providers.warm``)."""
        from .providers.warm import load_models

        load_models(self.embedder, self._ingest.nlp, on_loaded or (lambda name: None))

    def close(self) -> None:
        for scheduler in self._schedulers:
            scheduler.stop()
        self._recall.close()
        self._ingest.close()
        self.db.close()

    def __enter__(self) -> FleetMemory:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # storing -----------------------------------------------------------------------------
    def put(self, agent_id: str, content: str, *, context: str | None = None, event_date: datetime | str | None = None,
            memory_type: str = "episodic", importance: float | None = None, tags: Iterable[str] = (),
            user_id: str | None = None, session_id: str | None = None, source: str | None = None,
            speaker: str | None = None, metadata: Mapping[str, Any] | None = None,
            progress: Callable[[int, int], None] | None = None, format: str = "auto",
            keep_code: bool = False) -> PutResult:
        """Store ``content`` as a document and its sentence-level units, in one transaction.
        ``progress(done, total)`` reports LLM extraction chunks. ``format`` (auto, text, markdown,
        rst) says how ``content`` is read, ``keep_code`` keeps code blocks as units of their own
        (``ingest.request``)."""
        episode = build_episode(
            self.config.limits, self.clock.now(), agent_id, content, context=context, event_date=event_date,
            memory_type=memory_type, importance=importance, tags=tags, user_id=user_id, session_id=session_id,
            source=source, speaker=speaker, metadata=metadata, format=format, keep_code=keep_code,
        )
        with self._writes.turn([episode.agent_id]):
            return self._ingest.put_many([episode], progress=progress)[0]

    def put_many(self, items: Iterable[Mapping[str, Any]], *, agent_id: str | None = None,
                 progress: Callable[[int, int], None] | None = None) -> list[PutResult]:
        """Store many items (mappings with ``put``'s keywords, or conversation turns with ``speaker``,
        ``text``, ``timestamp``, ``turn_id``) with batched embedding, in one transaction."""
        episodes = build_episodes(self.config.limits, self.clock.now(), items, agent_id)
        with self._writes.turn(e.agent_id for e in episodes):
            return self._ingest.put_many(episodes, progress=progress)

    # entities ----------------------------------------------------------------------------
    def list_entities(self, agent_id: str, *, limit: int = 100, offset: int = 0,
                      label: str | None = None) -> list[Entity]:
        """Entities with their mention counts, most mentioned first."""
        size = check_positive_int(limit, "limit", self.config.limits.max_top_k)
        check_offset(offset)
        return entity_ops.list_entities(self.db, self._agent(agent_id), limit=size, offset=offset,
                                        label=check_optional_text(label, "label", 32))

    def get_entity(self, agent_id: str, name_or_id: UUID | str, *, unit_limit: int = 100) -> EntityDetail:
        """One entity (by id, name or alias) and the units that mention it, most recent first."""
        size = check_positive_int(unit_limit, "unit_limit", self.config.limits.max_top_k)
        return entity_ops.get_entity(self.db, self._agent(agent_id), self._entity_key(name_or_id), unit_limit=size)

    def rename_entity(self, agent_id: str, name_or_id: UUID | str, new_name: str) -> Entity:
        """Give an entity a new canonical name; the old name becomes an alias."""
        name = check_text(new_name, "new_name", self.config.limits.max_tag_chars)
        return entity_ops.rename_entity(self.db, self._agent(agent_id), self._entity_key(name_or_id), name)

    def merge_entities(self, agent_id: str, keep: UUID | str, drop: UUID | str) -> Entity:
        """Fold ``drop`` into ``keep``: its mentions move, its names become aliases, it is deleted."""
        return entity_ops.merge_entities(self.db, self._agent(agent_id), self._entity_key(keep, "keep"),
                                         self._entity_key(drop, "drop"))

    def delete_entity(self, agent_id: str, name_or_id: UUID | str) -> None:
        """Remove an entity and its mentions; the units stay."""
        entity_ops.delete_entity(self.db, self._agent(agent_id), self._entity_key(name_or_id))

    def _entity_key(self, key: object, field: str = "name_or_id") -> UUID | str:
        if isinstance(key, UUID):
            return key
        return check_text(key, field, self.config.limits.max_tag_chars)

    # recalling ---------------------------------------------------------------------------
    def search(self, agent_id: str, query: str, *, top_k: int = 10, thinking_budget: int = 100,
               **options: Any) -> list[SearchResult]:
        """Recall what the agent knows about ``query``: entry points (vector, full text, named
        entities, time words) → spreading activation over the memory graph, exploring at most
        ``thinking_budget`` units → scored by relevance × recency × frequency × importance.

        Options (see ``recall.request.build_request``): ``limit``, ``types``, ``min_importance``,
        ``max_age_days``, ``since``, ``until``, ``tags``, ``user_id``, ``session_id``,
        ``include_archived``, ``metadata`` (equality on metadata keys: ``{"project": "billing"}``)
        (filters, applied before ranking), ``reinforce`` (default True),
        ``explain``, ``preset`` (name or ``RecallSettings``), ``now`` (reference time), ``as_of``
        (what was current then) and ``include_superseded`` (``recall.current``)."""
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

    def update(self, agent_id: str, unit_id: UUID | str, content: str, **options: Any) -> PutResult:
        """Store ``content`` as a new version of the unit, superseding it (``facts.update``); options
        are ``put``'s (context, event_date, tags, …), inherited from the old unit when not given."""
        agent = self._agent(agent_id)
        with self._writes.turn([agent]):
            return facts.update(self.db, self._ingest, self.config.limits, self.clock.now(), agent,
                                check_uuid(unit_id, "unit_id"), content, options)

    def idempotent(self, agent_id: str, key: str, request: Any,
                   produce: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``produce()`` once per (agent, key); a retry returns the first JSON response
        (``idempotency.run_once``)."""
        return run_once(self.db, self.clock, self._agent(agent_id), key, request, produce,
                        ttl=timedelta(hours=self.config.lifecycle.idempotency_key_ttl_hours))

    def history(self, agent_id: str, unit_id: UUID | str) -> list[MemoryUnit]:
        """Every version of the fact the unit belongs to, oldest first (``facts.history``)."""
        return facts.history(self.db, self._agent(agent_id), check_uuid(unit_id, "unit_id"))

    def delete(self, agent_id: str, unit_id: UUID | str) -> None:
        agent, uid = self._agent(agent_id), check_uuid(unit_id, "unit_id")
        with self.db.transaction() as conn:
            if not delete_sql.delete_unit(conn, agent, uid):
                raise NotFoundError("memory unit", uid, agent)

    def delete_document(self, agent_id: str, document_id: UUID | str) -> None:
        agent, did = self._agent(agent_id), check_uuid(document_id, "document_id")
        with self.db.transaction() as conn:
            if not delete_sql.delete_document(conn, agent, did):
                raise NotFoundError("document", did, agent)

    def delete_agent(self, agent_id: str) -> int:
        """Remove everything one agent has stored; return the number of units removed."""
        agent = self._agent(agent_id)
        with self.db.transaction() as conn:
            return delete_sql.delete_agent(conn, agent)

    def forget_user(self, agent_id: str, user_id: str) -> int:
        """Forget one user of one agent in one call: every unit stored with that ``user_id``, the
        semantic units consolidated from them and the raw documents left empty. Returns the number
        of units removed (0 when the user has none)."""
        agent = self._agent(agent_id)
        user = check_path_segment(check_text(user_id, "user_id", self.config.limits.max_agent_id_chars), "user_id")
        with self.db.transaction() as conn:
            return delete_sql.forget_user(conn, agent, user)

    def list_agents(self, *, limit: int = 100, offset: int = 0) -> list[AgentSummary]:
        """The agents in the store, by id: units, documents and the last write of each."""
        size = check_positive_int(limit, "limit", self.config.limits.max_top_k)
        check_offset(offset)
        with self.db.transaction() as conn:
            return agent_sql.list_agents(conn, limit=size, offset=offset)

    def list_units(self, agent_id: str, *, limit: int = 100, offset: int = 0, **filters: Any) -> UnitPage:
        """A page of the agent's units, oldest event first. ``filters`` (``listing.listing_filter``):
        ``types``, ``user_id``, ``session_id``, ``since`` / ``until`` (event date), ``tags``,
        ``metadata``, ``include_archived`` (False), ``include_superseded`` (True), ``q`` (full text)."""
        agent = self._agent(agent_id)
        size = check_positive_int(limit, "limit", self.config.limits.max_top_k)
        check_offset(offset)
        flt = listing_filter(self.config.limits, self.clock.now(), **filters)
        with self.db.transaction() as conn:
            rows = unit_sql.list_units(conn, agent, limit=size + 1, offset=offset, flt=flt)
        return UnitPage(tuple(rows[:size]), offset + size if len(rows) > size else None)

    def agent_size(self, agent_id: str) -> AgentSize:
        """The agent's size class (``sizing``: small below ``OWN_INDEX_UNITS`` units, large from it,
        with its own indexes), whether its own indexes are built, and its last write."""
        return sizing.agent_size(self.db, self._agent(agent_id))

    def effective_importance(self, unit: MemoryUnit, now: datetime | str | None = None) -> float:
        """The unit's importance decayed along the forgetting curve at ``now`` (default: the clock),
        the value maintenance archives by and ``min_importance`` filters on (``lifecycle.decay``)."""
        at = check_date(now, "now") or self.clock.now()
        return effective_importance(unit, at, self.config.lifecycle)

    def stats(self, agent_id: str) -> AgentStats:
        agent = self._agent(agent_id)
        with self.db.transaction() as conn:
            return unit_sql.stats(conn, agent)

    # pictures, export / import, database status, API keys (front doors) -------------------
    def graph(self, agent_id: str, *, entity: str | None = None, query: str | None = None,
              since: datetime | str | None = None, until: datetime | str | None = None, limit: int = 200,
              top_k: int = 10) -> GraphData:
        """Graph data (``viz.GraphData``) of a bounded neighbourhood: an entity, one search (with its
        trace), or a time range; at most ``limit`` nodes."""
        from .viz import graph as viz

        agent, size = self._agent(agent_id), check_positive_int(limit, "limit", 5_000)
        start, end = check_date(since, "since"), check_date(until, "until")
        if query is None:
            return viz.build_graph(self.db, agent, limit=size, entity=entity, since=start, until=end)
        hits = self.search(agent, query, top_k=min(top_k, size), explain=True, reinforce=False)
        return viz.build_graph(self.db, agent, limit=size, seed_ids=[h.id for h in hits], query=query,
                               trace=viz.trace_from_results(hits))

    def ingest(self, agent_id: str, items: Iterable[Mapping[str, Any]], *, batch_size: int = 64) -> Iterator[IngestProgress]:
        """Store put items in batches, skipping documents already stored (resumable); yields one
        ``ingest.files.IngestProgress`` per batch. Read files with ``ingest.files.read_items``."""
        from .ingest.files import ingest_batches

        size = check_positive_int(batch_size, "batch_size", self.config.limits.max_batch_items)
        return ingest_batches(self.db, self.put_many, self._agent(agent_id), items, batch_size=size)

    def export_agent(self, agent_id: str, out: IO[str]) -> TransferReport:
        """Write the agent's whole memory to the text stream ``out`` as JSON Lines (lossless)."""
        from .transfer import export_agent

        return export_agent(self.db, self._agent(agent_id), out)

    def import_agent(self, agent_id: str, lines: Iterable[str]) -> TransferReport:
        """Load an export into ``agent_id`` (which must be empty), in one transaction; an agent of
        ``store.db.agent_indexes.OWN_INDEX_UNITS`` units or more then gets its own indexes."""
        from .transfer import import_agent

        agent = self._agent(agent_id)
        report = import_agent(self.db, agent, lines)
        if report.rows.get("memory_units", 0) >= agent_index_sql.OWN_INDEX_UNITS:  # as a put across it would
            agent_index_sql.build_after_write(self.db, agent)
        return report

    def database_status(self) -> dict[str, Any]:
        from .store.db.status import database_status

        with self.db.transaction() as conn:
            status = database_status(conn)
        return {"url": self.db.display_url, "embedded": self.db.embedded,
                "home": str(self.config.data_dir) if self.db.embedded else None, **status}

    def distribution_check(self) -> dict[str, list[str]]:
        """Is the schema distributable by agent (Citus)? ``violations``: each table or constraint
        that breaks the rule (empty when none); ``statements``: the SQL that distributes it."""
        from .store.db import distribution

        with self.db.transaction() as conn:
            return {"violations": distribution.violations(conn), "statements": distribution.citus_statements(conn)}

    def create_api_key(self, name: str, *, agent_ids: Iterable[str] = (), admin: bool = False) -> tuple[str, ApiKey]:
        """Return (the key, shown only now; its stored record)."""
        from . import keys

        agents = [self._agent(a) for a in agent_ids]
        return keys.create_key(self.db, self.clock.now(), name=name, agent_ids=agents, admin=admin)

    def list_api_keys(self, *, include_revoked: bool = False) -> list[ApiKey]:
        from . import keys

        return keys.list_keys(self.db, include_revoked=include_revoked)

    def revoke_api_key(self, key_id_or_prefix: str) -> None:
        from . import keys

        keys.revoke_key(self.db, self.clock.now(), key_id_or_prefix)

    def authenticate(self, key: str | None, agent_id: str | None = None) -> ApiKey:
        """The key's record; AuthError 401 for a missing / unknown / revoked key, 403 when it may not
        act for ``agent_id``."""
        from . import keys

        record = keys.authenticate(self.db, self.clock.now(), key)
        if agent_id is not None:
            keys.authorize(record, agent_id)
        return record

    # lifecycle: forgetting, consolidation, context, conversation extraction -------------
    def maintain(self, agent_id: str | None = None, *, now: datetime | str | None = None) -> MaintenanceReport:
        """Archive units (of one agent, or all) whose effective importance on the forgetting curve is
        below ``LifecycleConfig.archive_below`` at ``now`` (default: the clock). Idempotent; bounded
        batches; safe to run from two processes at once. See ``lifecycle.maintenance``."""
        agent = None if agent_id is None else self._agent(agent_id)
        return self._maintainer.run(agent, check_date(now, "now") or self.clock.now())

    def index_agents(self, *, min_units: int | None = None) -> IndexRefresh:
        """Give every agent of at least ``min_units`` units (default
        ``store.db.agent_indexes.OWN_INDEX_UNITS``) its own vector and full-text indexes, so its recall
        reads only its own rows however large the fleet; drop those of deleted agents. Builds run
        concurrently with writes (about half a minute per 50,000 units): a maintenance job."""
        limit = agent_index_sql.OWN_INDEX_UNITS if min_units is None else check_positive_int(
            min_units, "min_units", 10**9)
        with self.db.autocommit() as conn:
            return agent_index_sql.refresh(conn, limit)

    def restore(self, agent_id: str, unit_id: UUID | str) -> MemoryUnit:
        """Bring an archived unit back into recall; its forgetting curve starts afresh now."""
        agent, uid = self._agent(agent_id), check_uuid(unit_id, "unit_id")
        unit = self._maintainer.restore(agent, uid, self.clock.now())
        if unit is None:
            raise NotFoundError("memory unit", uid, agent)
        return unit

    def consolidate(self, agent_id: str, *, now: datetime | str | None = None) -> ConsolidationReport:
        """Turn clusters of similar important episodes into semantic units, linked to their sources
        (whose importance is halved). Re-running never consolidates a source twice.
        See ``lifecycle.consolidation``."""
        agent = self._agent(agent_id)
        return self._consolidator.run(agent, check_date(now, "now") or self.clock.now())

    def sources(self, agent_id: str, unit_id: UUID | str) -> list[MemoryUnit]:
        """The units a consolidated unit was made from (empty for any other unit)."""
        agent, uid = self._agent(agent_id), check_uuid(unit_id, "unit_id")
        with self.db.transaction() as conn:
            if not unit_sql.get_units(conn, agent, [uid]):
                raise NotFoundError("memory unit", uid, agent)
            return prov_sql.sources_of(conn, agent, uid)

    # one memory seen from around it (the memory browser's memory page: ``unit_views``) ----------
    def unit_entities(self, agent_id: str, unit_id: UUID | str) -> list[Entity]:
        """The entities the unit mentions, by name."""
        return unit_views.entities(self.db, self._agent(agent_id), check_uuid(unit_id, "unit_id"))

    def unit_links(self, agent_id: str, unit_id: UUID | str, *, limit: int = 100) -> list[UnitLink]:
        """The unit's links (semantic, entity, temporal; strongest first within a kind), at most ``limit``."""
        size = check_positive_int(limit, "limit", self.config.limits.max_top_k)
        return unit_views.links(self.db, self._agent(agent_id), check_uuid(unit_id, "unit_id"), limit=size)

    def unit_document(self, agent_id: str, unit_id: UUID | str) -> SourceDocument | None:
        """The document the unit was split from, with the unit's sentence located in it (``None``
        for a unit without one)."""
        return unit_views.source_document(self.db, self._agent(agent_id), check_uuid(unit_id, "unit_id"))

    def archive(self, agent_id: str, unit_id: UUID | str) -> MemoryUnit:
        """Archive the unit by hand: out of recall until ``restore``; already archived ones stay as they are."""
        return unit_views.archive(self.db, self._agent(agent_id), check_uuid(unit_id, "unit_id"), self.clock.now())

    def fact_timeline(self, agent_id: str, *, entity: str | None = None, user_id: str | None = None,
                      limit: int = 100) -> FactTimeline:
        """Facts that change, for one holder: ``entity`` (id, name or alias) or ``user_id`` (one of
        them). Each line of versions that holds a unit of theirs, versions oldest first with when
        each was stated and replaced (``fact_timeline``); at most ``limit`` lines, the latest kept."""
        if (entity is None) == (user_id is None):
            raise InvalidInputError("entity", "name one holder: an entity or a user_id", "exactly one of the two")
        size = check_positive_int(limit, "limit", self.config.limits.max_top_k)
        return fact_timeline.timeline(
            self.db, self._agent(agent_id), limit=size,
            entity=None if entity is None else check_text(entity, "entity", self.config.limits.max_tag_chars),
            user_id=check_user_id(user_id, self.config.limits))

    def build_context(self, agent_id: str, message: str, *, user_id: str | None = None, limit: int = 10,
                      min_importance: float = 0.3, max_chars: int | None = None) -> str:
        """The prompt block for ``message``: the ``limit`` best memories (of ``user_id`` when given)
        with effective importance >= ``min_importance``, grouped by type and fenced as data (see
        ``lifecycle.context``), within ``max_chars`` when given."""
        text = check_text(message, "message", self.config.limits.max_query_chars)
        budget = None if max_chars is None else check_positive_int(max_chars, "max_chars",
                                                                    self.config.limits.max_content_chars)
        check_budget(text, budget)
        results = self.search(agent_id, text, limit=limit, min_importance=min_importance, user_id=user_id)
        return render_context(text, results, max_chars=budget)

    def process_conversation(self, agent_id: str, turns: Iterable[Mapping[str, Any]], *, user_id: str | None = None,
                             session_id: str | None = None) -> ConversationReport:
        """Extract typed memories from a finished conversation (``{role, content, time?}`` turns) —
        with the LLM when one is configured, else by offline rules — and store them, tagged
        ``auto_extracted``. See ``lifecycle.conversation``."""
        agent = self._agent(agent_id)
        built = build_turns(turns, self.config.limits)
        user = check_user_id(user_id, self.config.limits)
        session = check_optional_text(session_id, "session_id", self.config.limits.max_agent_id_chars)
        if self.llm is not None:
            method, memories = "llm", extract_conversation_with_llm(self.llm, built,
                                                                     retries=self.config.llm_retries)
        else:
            method, memories = "offline", extract_conversation_offline(built)
        items = memory_items(memories, user_id=user, session_id=session)
        results = self.put_many(items, agent_id=agent) if items else []
        return ConversationReport(method, tuple(memories), tuple(results))

    def schedule(self, *, interval_s: float | None = None, agent_ids: Iterable[str] | None = None,
                 consolidate: bool = True, start: bool = True) -> LifecycleScheduler:
        """A background scheduler running ``maintain`` (and ``consolidate``) every ``interval_s``
        seconds (default ``LifecycleConfig.schedule_interval_s``), and ``index_agents`` when it
        looks after the whole store (no ``agent_ids``); stopped on ``close()``."""
        agents = None if agent_ids is None else [self._agent(a) for a in agent_ids]
        jobs = standard_jobs(self.maintain, self.consolidate, self._consolidator.agents, agents,
                             with_consolidation=consolidate, index_agents=self.index_agents)
        scheduler = LifecycleScheduler(jobs, interval_s if interval_s is not None
                                       else self.config.lifecycle.schedule_interval_s)
        self._schedulers.append(scheduler)
        return scheduler.start() if start else scheduler

    def _agent(self, agent_id: object) -> str:
        return check_agent_id(agent_id, self.config.limits)


TemporalSemanticMemory = FleetMemory
"""The class's first name, kept for code written against it:
``TemporalSemanticMemory().put(agent_id=..., content=...)``."""
