"""The ingestion pipeline (seed 000, DESIGN §4): episodes → facts → one parse → entities,
coreference, validation → units → embeddings → one transaction that writes documents, units,
entity mentions and links.

A put's data is one ``PutState`` (``ingest.runner``): the episodes, then one typed field per stage
output, each a tuple of the records of ``records`` (which say which episode they belong to, so
nothing is joined by list position). The order lives in ``STAGES``; ``runner.Pipeline`` checks it
and runs it:

    memory    episodes             → context    AgentContext   the agent's recent people + gazetteer (1 query)
    extract   episodes, context    → facts      ExtractedFact  offline rules, or the LLM when configured
    parse     facts                → parsed     ParsedFact     ONE spaCy pass (nlp.pipe) per window
    entities  episodes, parsed, context → named NamedFact      NER from that parse + the gazetteer
    coref     episodes, named, context → coref  CorefFact      pronouns → referents (in the put, then memory)
    validate  coref                → plans      UnitPlan       subject + verb; fragments merged
    assemble  episodes, plans      → drafts     UnitDraft      unit texts + mentions (+ speakers, dates)
    embed     drafts               → embedded   EmbeddedUnit   one batched embedder call per window
    documents episodes             → documents  the put's documents; its agents' locks, held to the commit
    write     episodes, embedded   → units, unit_counts  (WrittenUnit) the window's units
    resolve   units                → mentions   entity resolution + mention rows
    link      units                → links      temporal (at the put's time) + semantic links
    supersede units                → superseded older units whose fact a new unit updates
                                                 (``ingest.supersede``: the rule; with an LLM judge
                                                 this runs after the commit instead, the one call
                                                 outside any transaction, ``_supersede_with_llm``)

Windows (``runner``): parse … assemble run in the caller's thread window by window (coreference
and the names the batch knows carry over from one window to the next, so a window reads as the
continuation of the previous one); each window is embedded in a worker thread while the next is
parsed, and written (write … supersede) by a writer thread while the next ones are parsed and
embedded. The unit texts are final before they are embedded. Work per window is O(its facts);
nothing in it reads the agent's stored units.

Everything for one ``put_many`` is written in one transaction: after a crash there is either the
whole call or none of it. The ``documents`` stage takes the put's agents' advisory locks first (in
agent order, so two puts never wait on each other crosswise): a put's windows are written in order
with no other put of those agents in between. Stage timings (seconds, summed over windows; the
threads overlap) are logged at debug level and returned in every ``PutResult.stage_seconds``.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

import numpy as np
import psycopg

from ..clock import Clock
from ..config import Config, LLMConfig
from ..errors import FleetMemoryError
from ..model import MemoryType, PutResult, StoredUnit
from ..providers.embedder import Embedder, SentenceTransformerEmbedder
from ..providers.llm import LLM
from ..providers.nlp import NLP, SpacyNLP
from ..store import Database, agent_indexes, planner
from ..store import documents as doc_sql
from ..store import entities as entity_sql
from ..store import supersession as sup_sql
from ..store import units as unit_sql
from ..store.context import agent_context
from ..store.links import link_units
from . import supersede
from .assemble import draft_unit
from .coref import resolve_coreferences
from .extract import extract_sentences
from .llm_extract import Progress, extract_with_llm
from .memory import build_context
from .ner import find_entities
from .records import EmbeddedUnit, Episode, ParsedFact, UnitDraft, WrittenUnit
from .resolve import UnitMentions, resolve_entities
from .supersede import NewUnit as StatedUnit
from .supersede import speaker_key, supersede_units
from .runner import MIN_WINDOW_FACTS, WINDOW_FACTS, Carry, Pipeline, PutState, Stage, fact_windows, window_size
from .validate import plan_units

__all__ = [
    "Carry", "Ingestor", "Pipeline", "PutState", "Stage", "STAGES", "WINDOW_FACTS", "MIN_WINDOW_FACTS",
    "fact_windows", "window_size",
    "SKIPPED_FILLER", "SKIPPED_FRAGMENTS", "SKIPPED_LLM", "DUPLICATE",
]

_log = logging.getLogger(__name__)

ImportanceFn = Callable[[str, tuple[str, ...]], float]

SKIPPED_FILLER = "only greetings, filler or reactions: nothing with substance to store"
SKIPPED_FRAGMENTS = "no complete sentence (subject and verb) to store"
SKIPPED_LLM = "the extractor found no fact with substance"
DUPLICATE = "already stored: the same content with the same event time (nothing new was stored)"
_TERMINAL = (".", "!", "?", '"', "'", "”", "’", ")")


def _default_importance(text: str, tags: tuple[str, ...]) -> float:
    return 0.5


STAGES: tuple[Stage, ...] = (
    Stage("memory", ("episodes",), ("context",)),
    Stage("extract", ("episodes", "context"), ("facts",)),
    Stage("parse", ("facts",), ("parsed",), windowed=True),
    Stage("entities", ("episodes", "parsed", "context", "carry"), ("named",), windowed=True),
    Stage("coref", ("episodes", "named", "context", "carry"), ("coref",), windowed=True),
    Stage("validate", ("coref",), ("plans",), windowed=True),
    Stage("assemble", ("episodes", "plans"), ("drafts",), windowed=True),
    Stage("embed", ("drafts", "carry"), ("embedded",), windowed=True, concurrent=True),
    Stage("documents", ("episodes",), ("documents",), in_transaction=True),
    Stage("write", ("episodes", "embedded", "documents"), ("units", "unit_counts"), in_transaction=True,
          windowed=True),
    Stage("resolve", ("units",), ("mentions",), in_transaction=True, windowed=True),
    Stage("link", ("episodes", "units"), ("links",), in_transaction=True, windowed=True),
    Stage("supersede", ("units", "mentions"), ("superseded",), in_transaction=True, windowed=True),
)


class Ingestor:
    """Runs the pipeline for a batch of episodes. ``nlp`` defaults to spaCy (loaded on first use);
    with an ``llm`` and ``IngestConfig.llm_extraction`` on, facts are extracted by the LLM instead of
    the offline rules."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        config: Config,
        clock: Clock,
        importance: ImportanceFn = _default_importance,
        *,
        nlp: NLP | None = None,
        llm: LLM | None = None,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.config = config
        self.clock = clock
        self.importance = importance
        self.nlp = nlp if nlp is not None else SpacyNLP()
        self.llm = llm
        self.window_facts = WINDOW_FACTS
        self.min_window_facts = MIN_WINDOW_FACTS
        self.pipeline = Pipeline(STAGES, {
            "memory": self._memory, "extract": self._extract, "parse": self._parse, "entities": self._entities,
            "coref": self._coref,
            "validate": self._validate, "assemble": self._assemble, "embed": self._embed,
        }, {"documents": self._documents, "write": self._write, "resolve": self._resolve, "link": self._link,
            "supersede": self._supersede})

    @property
    def uses_llm(self) -> bool:
        """Facts come from the LLM when one is given and ``IngestConfig.llm_extraction`` is on."""
        return self.llm is not None and self.config.ingest.llm_extraction

    # public ------------------------------------------------------------------------------
    def put_many(self, episodes: Sequence[Episode], *, progress: Progress | None = None) -> list[PutResult]:
        """Store the episodes; an episode already stored (``DUPLICATE``: the same content, context and
        speaker — the document's content hash — with the same event time, for the same agent and user) stores
        nothing new and returns the units stored the first time. One statement checks the batch.
        An ``update`` (``corrects``) is never a duplicate."""
        with self.db.transaction() as conn:
            known = doc_sql.find_duplicates(conn, [
                (e.agent_id, doc_sql.content_hash(e.content, e.context, e.speaker), e.event_date, e.user_id)
                for e in episodes])
        known = {i: v for i, v in known.items() if episodes[i].corrects is None}
        fresh = [e for i, e in enumerate(episodes) if i not in known]
        stored = iter(self._put_fresh(fresh, progress) if fresh else [])
        return [PutResult(known[i][0], tuple(StoredUnit(u, t, MemoryType(m)) for u, t, m in known[i][1]), DUPLICATE)
                if i in known else next(stored) for i in range(len(episodes))]

    def _put_fresh(self, episodes: Sequence[Episode], progress: Progress | None) -> list[PutResult]:
        state, timings = self.pipeline.run(episodes, self.db.transaction, progress=progress,
                                           window_facts=self.window_facts,
                                           min_window_facts=self.min_window_facts)
        _log.debug("put_many of %d episodes: %s", len(episodes), timings)
        if self.config.ingest.supersede and self._judges_with_llm:
            self._supersede_with_llm(state.units)
        self._after_growth(state.unit_counts, Counter(unit.row.agent_id for unit in state.units))
        per_episode: list[list[StoredUnit]] = [[] for _ in episodes]
        for unit in state.units:
            row = unit.row
            per_episode[unit.episode_index].append(StoredUnit(row.id, row.text, MemoryType(row.memory_type)))
        had_facts = {f.episode_index for f in state.facts}
        results = []
        for index, (doc_id, stored) in enumerate(zip(state.documents, per_episode)):
            reason = None
            if not stored:
                if index in had_facts:
                    reason = SKIPPED_FRAGMENTS
                else:
                    reason = SKIPPED_LLM if self.uses_llm else SKIPPED_FILLER
            results.append(PutResult(document_id=doc_id, units=tuple(stored), skipped_reason=reason,
                                     stage_seconds=dict(timings)))
        return results

    def _after_growth(self, counts: Mapping[str, int], added: Mapping[str, int]) -> None:
        """After the commit: fresh planner statistics for agents whose size doubled, and the own
        indexes of agents the put took across ``agent_indexes.OWN_INDEX_UNITS`` (once in an agent's
        life, seconds; a failed build is logged — recall stays exact meanwhile — and maintenance's
        ``index_agents`` builds it later)."""
        if grown := planner.crossed(counts, added):
            with self.db.transaction() as conn:
                if stale := planner.refresh_if_stale(conn, grown, counts):
                    _log.info("planner statistics refreshed after agents %s grew", stale)
        for agent in agent_indexes.crossed(counts, added):
            try:
                with self.db.autocommit() as conn:
                    agent_indexes.ensure(conn, agent)
            except (FleetMemoryError, psycopg.Error) as exc:
                _log.warning("agent %r's own indexes were not built (maintenance builds them): %s", agent, exc)

    # stages ------------------------------------------------------------------------------
    def _memory(self, s: PutState) -> PutState:
        window = timedelta(hours=self.config.ingest.temporal_window_hours)
        with self.db.transaction() as conn:
            context = build_context(s.episodes, window, lambda queries: agent_context(conn, queries))
        return replace(s, context=context)

    def _extract(self, s: PutState) -> PutState:
        if self.llm is None or not self.config.ingest.llm_extraction:
            return replace(s, facts=tuple(extract_sentences(s.episodes, s.context)))
        llm_config = self.config.llm or LLMConfig(base_url="", model="")
        facts = extract_with_llm(self.llm, s.episodes, self.config.ingest, llm_config, progress=s.progress)
        return replace(s, facts=tuple(facts))

    def _parse(self, s: PutState) -> PutState:
        texts, appended = [], []
        for f in s.facts:
            if f.kind == "code":  # kept code is not language: nothing to parse, no entity in it
                texts.append("")
                appended.append(False)
                continue
            needs = not f.text.rstrip().endswith(_TERMINAL)
            texts.append(f.text + "." if needs else f.text)
            appended.append(needs)
        parses = self.nlp.parse(texts)
        return replace(s, parsed=tuple(ParsedFact(f, p, a) for f, p, a in zip(s.facts, parses, appended)))

    def _entities(self, s: PutState) -> PutState:
        known = s.carry.known if s.carry is not None else None
        return replace(s, named=tuple(find_entities(s.episodes, s.parsed, s.context, known)))

    def _coref(self, s: PutState) -> PutState:
        window = timedelta(hours=self.config.ingest.temporal_window_hours)
        discourse = s.carry.discourse if s.carry is not None else None
        return replace(s, coref=tuple(resolve_coreferences(s.episodes, s.named, reset_after=window,
                                                           context=s.context, discourse=discourse)))

    def _validate(self, s: PutState) -> PutState:
        return replace(s, plans=tuple(plan_units(s.coref)))

    def _assemble(self, s: PutState) -> PutState:
        drafts = (draft_unit(plan, s.episodes[plan.members[0].fact.episode_index]) for plan in s.plans)
        return replace(s, drafts=tuple(drafts))

    def _embed(self, s: PutState) -> PutState:
        texts = [self._embedded_text(d) for d in s.drafts]
        if s.carry is not None and not s.carry.front_done.is_set() and isinstance(self.embedder, SentenceTransformerEmbedder):
            vectors = self.embedder.embed(texts, threads=1)  # spaCy has the other core
        else:
            vectors = self.embedder.embed(texts)
        return replace(s, embedded=tuple(EmbeddedUnit(d, uuid.uuid4(), v) for d, v in zip(s.drafts, vectors)))

    def _embedded_text(self, draft: UnitDraft) -> str:
        """What is embedded for a unit: its text, after the last ``IngestConfig.embed_headings``
        headings of its heading path when it comes from structured text ("Installation: …")."""
        levels = self.config.ingest.embed_headings
        if not draft.context or levels <= 0:
            return draft.text
        return " > ".join(draft.context.split(" > ")[-levels:]) + ": " + draft.text

    def _documents(self, s: PutState, conn: psycopg.Connection) -> PutState:
        for agent_id in sorted({e.agent_id for e in s.episodes}):  # held until the commit
            entity_sql.lock_entities(conn, agent_id)
        now = self.clock.now()
        doc_ids = tuple(uuid.uuid4() for _ in s.episodes)
        doc_sql.insert_documents(conn, [
            doc_sql.NewDocument(
                id=doc_id, agent_id=e.agent_id, content=e.content, event_date=e.event_date, created_at=now,
                context=e.context, source=e.source, speaker=e.speaker, metadata=dict(e.metadata),
            )
            for doc_id, e in zip(doc_ids, s.episodes)
        ])
        return replace(s, documents=doc_ids)

    def _write(self, s: PutState, conn: psycopg.Connection) -> PutState:
        now = self.clock.now()
        units = tuple(
            WrittenUnit(item.draft.episode_index, self._new_unit(item, s.episodes, s.documents, now),
                        item.draft.mentions)
            for item in s.embedded
        )
        counts = unit_sql.insert_units(conn, [u.row for u in units])
        return replace(s, units=units, unit_counts=counts)

    def _resolve(self, s: PutState, conn: psycopg.Connection) -> PutState:
        by_agent: dict[str, list[UnitMentions]] = {}
        for unit in s.units:
            if unit.mentions:
                row = unit.row
                by_agent.setdefault(row.agent_id, []).append(UnitMentions(row.id, row.event_date, unit.mentions))
        recorded = 0
        for agent_id in sorted(by_agent):
            mentions = resolve_entities(conn, agent_id, by_agent[agent_id], self.config.ingest)
            recorded += entity_sql.record_mentions(conn, agent_id, mentions)
        return replace(s, mentions=recorded)

    def _link(self, s: PutState, conn: psycopg.Connection) -> PutState:
        by_agent: dict[str, list[tuple[uuid.UUID, datetime, np.ndarray]]] = {}
        for unit in s.units:
            row = unit.row
            # linked at the time it was said: a unit dated by its text ("yesterday") stays next to its turn
            said = s.episodes[unit.episode_index].event_date
            by_agent.setdefault(row.agent_id, []).append((row.id, said, row.embedding))
        counts = {"temporal": 0, "semantic": 0}
        for agent_id in sorted(by_agent):
            made = link_units(conn, agent_id, by_agent[agent_id], self.config.ingest)
            for kind, n in made.items():
                counts[kind] += n
        return replace(s, links=counts)

    def _supersede(self, s: PutState, conn: psycopg.Connection) -> PutState:
        if not self.config.ingest.supersede or self._judges_with_llm:  # the LLM's turn comes after the commit
            return replace(s, superseded=self._corrections(s, conn, self.clock.now()))
        now = self.clock.now()
        made = sum(supersede_units(conn, agent_id, stated, self.nlp, self.config.ingest, now)
                   for agent_id, stated in _stated_by_agent(s.units).items())
        return replace(s, superseded=made + self._corrections(s, conn, now))

    @property
    def _judges_with_llm(self) -> bool:
        return self.llm is not None and self.config.ingest.llm_supersession

    def _supersede_with_llm(self, units: Sequence[WrittenUnit]) -> None:
        """Supersession judged by the LLM, after the put committed, so no transaction stays open
        while the model answers: the candidates and the rule in one short transaction, the call
        outside any, the result recorded in another. Supersession only refines stored units: when a
        step fails the units stay current and the failure is logged, never raised."""
        for agent_id, stated in _stated_by_agent(units).items():
            try:
                with self.db.transaction() as conn:
                    judged = supersede.read_candidates(conn, agent_id, stated, self.nlp, self.config.ingest, wide=True)
                if judged is None:
                    continue
                judged = supersede.with_llm(judged, self.llm, self.config.llm_retries)
                with self.db.transaction() as conn:
                    supersede.record(conn, agent_id, judged, self.clock.now())
            except FleetMemoryError as exc:
                _log.warning("supersession of agent %r's new units was not recorded: %s", agent_id, exc)

    @staticmethod
    def _corrections(s: PutState, conn: psycopg.Connection, now: datetime) -> int:
        """``update``: the first unit of an episode that ``corrects`` a unit supersedes it."""
        first: dict[int, WrittenUnit] = {}
        for unit in s.units:
            first.setdefault(unit.episode_index, unit)
        made = 0
        for index, unit in sorted(first.items()):
            old = s.episodes[index].corrects
            if old is not None:
                made += sup_sql.supersede(conn, unit.row.agent_id, [(old, unit.row.id, "update")], now)
        return made

    def _new_unit(self, item: EmbeddedUnit, episodes: Sequence[Episode], doc_ids: Sequence[uuid.UUID],
                  now: datetime) -> unit_sql.NewUnit:
        draft = item.draft
        episode = episodes[draft.episode_index]
        importance = draft.importance if draft.importance is not None else self.importance(draft.text, episode.tags)
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
            context = context[: self.config.limits.max_context_chars]
        return unit_sql.NewUnit(
            id=item.unit_id, agent_id=episode.agent_id, text=draft.text, embedding=item.embedding,
            event_date=draft.event_date or episode.event_date, created_at=now, memory_type=draft.memory_type,
            importance=importance,
            context=context, document_id=doc_ids[draft.episode_index], tags=episode.tags,
            user_id=episode.user_id, session_id=episode.session_id, source=episode.source,
            speaker=draft.speaker or episode.speaker, metadata=metadata,
        )


def _stated_by_agent(units: Sequence[WrittenUnit]) -> dict[str, list[StatedUnit]]:
    """The written units as the supersession stage reads them, per agent (sorted by agent)."""
    by_agent: dict[str, list[StatedUnit]] = {}
    for unit in units:
        row = unit.row
        by_agent.setdefault(row.agent_id, []).append(
            StatedUnit(row.id, row.text, row.event_date, row.embedding, speaker_key(row.user_id, row.speaker)))
    return dict(sorted(by_agent.items()))
