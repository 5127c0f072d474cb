"""The ingestion pipeline (seed 000, DESIGN §4): episodes → facts → one parse → entities,
coreference, validation → units → embeddings → one transaction that writes documents, units,
entity mentions and links.

A put's data is one ``PutState``: the episodes, then one typed field per stage output, each a
tuple of the records of ``records`` (which say which episode they belong to, so nothing is joined
by list position). Stages declare the fields they read and the fields they add; ``Pipeline``
checks once, at construction, that every field a stage reads is the input or added by an earlier
stage, and that the stages which need the transaction's connection come last; when it runs, it
checks that a stage changed only the fields it declared. The order lives in ``STAGES``:

    memory    episodes             → context    AgentContext   the agent's recent people + gazetteer (1 query)
    extract   episodes, context    → facts      ExtractedFact  offline rules, or the LLM when configured
    parse     facts                → parsed     ParsedFact     ONE spaCy pass (nlp.pipe) for the batch
    entities  episodes, parsed, context → named NamedFact      NER from that parse + the gazetteer
    coref     episodes, named, context → coref  CorefFact      pronouns → referents (in the put, then memory)
    validate  coref                → plans      UnitPlan       subject + verb; fragments merged
    assemble  episodes, plans      → drafts     UnitDraft      unit texts + mentions (+ speakers, dates)
    embed     drafts               → embedded   EmbeddedUnit   one batched embedder call
    write     episodes, embedded   → documents, units, unit_counts   (WrittenUnit) documents + units
    resolve   units                → mentions   entity resolution + mention rows
    link      units                → links      temporal (at the put's time) + semantic links
    supersede units                → superseded older units whose fact a new unit updates
                                                 (``ingest.supersede``: the rule, or one LLM call)

Everything for one ``put_many`` is written in one transaction: after a crash there is either the
whole call or none of it. Stage timings (seconds) are logged at debug level and returned in every
``PutResult.stage_seconds``.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np

from ..clock import Clock
from ..config import Config, LLMConfig
from ..errors import ConfigurationError
from ..model import MemoryType, PutResult, StoredUnit
from ..providers.embedder import Embedder
from ..providers.llm import LLM
from ..providers.nlp import NLP, SpacyNLP
from ..store import Database, planner
from ..store import documents as doc_sql
from ..store import entities as entity_sql
from ..store import supersession as sup_sql
from ..store import units as unit_sql
from ..store.context import agent_context
from ..store.links import link_units
from .assemble import draft_unit
from .coref import resolve_coreferences
from .extract import extract_sentences
from .llm_extract import Progress, extract_with_llm
from .memory import build_context
from .ner import find_entities
from .records import (
    AgentContext,
    CorefFact,
    EmbeddedUnit,
    Episode,
    ExtractedFact,
    NamedFact,
    ParsedFact,
    UnitDraft,
    UnitPlan,
    WrittenUnit,
)
from .resolve import UnitMentions, resolve_entities
from .supersede import supersede_units
from .validate import plan_units

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "Ingestor", "Pipeline", "PutState", "Stage", "STAGES", "SKIPPED_FILLER", "SKIPPED_FRAGMENTS", "SKIPPED_LLM",
    "DUPLICATE",
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


@dataclass(frozen=True, slots=True)
class PutState:
    """One ``put_many`` as far as the stages have taken it: the input (``episodes``, ``progress``),
    then each stage's output. A field is empty until the stage that provides it has run."""

    episodes: tuple[Episode, ...]
    progress: Progress | None = None
    context: AgentContext = field(default_factory=AgentContext)
    facts: tuple[ExtractedFact, ...] = ()
    parsed: tuple[ParsedFact, ...] = ()
    named: tuple[NamedFact, ...] = ()
    coref: tuple[CorefFact, ...] = ()
    plans: tuple[UnitPlan, ...] = ()
    drafts: tuple[UnitDraft, ...] = ()
    embedded: tuple[EmbeddedUnit, ...] = ()
    documents: tuple[uuid.UUID, ...] = ()  # one per episode, in order
    units: tuple[WrittenUnit, ...] = ()
    unit_counts: Mapping[str, int] = field(default_factory=dict)  # units per agent after the write
    mentions: int = 0  # mention rows recorded
    links: Mapping[str, int] = field(default_factory=dict)  # link rows made, by kind
    superseded: int = 0  # older units a new unit superseded


_FIELDS = tuple(f.name for f in dataclasses.fields(PutState))
_INPUTS = ("episodes", "progress")

Runner = Callable[[PutState], PutState]
TransactionRunner = Callable[[PutState, "psycopg.Connection"], PutState]


@dataclass(frozen=True, slots=True)
class Stage:
    """A stage's name, the ``PutState`` fields it reads and those it adds; stages that write run
    ``in_transaction`` (with the connection), after all the others."""

    name: str
    requires: tuple[str, ...]
    provides: tuple[str, ...]
    in_transaction: bool = False


STAGES: tuple[Stage, ...] = (
    Stage("memory", ("episodes",), ("context",)),
    Stage("extract", ("episodes", "context"), ("facts",)),
    Stage("parse", ("facts",), ("parsed",)),
    Stage("entities", ("episodes", "parsed", "context"), ("named",)),
    Stage("coref", ("episodes", "named", "context"), ("coref",)),
    Stage("validate", ("coref",), ("plans",)),
    Stage("assemble", ("episodes", "plans"), ("drafts",)),
    Stage("embed", ("drafts",), ("embedded",)),
    Stage("write", ("episodes", "embedded"), ("documents", "units", "unit_counts"), in_transaction=True),
    Stage("resolve", ("units",), ("mentions",), in_transaction=True),
    Stage("link", ("units",), ("links",), in_transaction=True),
    Stage("supersede", ("units", "mentions"), ("superseded",), in_transaction=True),
)


class Pipeline:
    """Stages in order, checked at construction; ``run`` times each stage. ``runners`` implement
    the stages outside the transaction, ``transaction_runners`` those inside it."""

    def __init__(self, stages: Sequence[Stage], runners: Mapping[str, Runner],
                 transaction_runners: Mapping[str, TransactionRunner] | None = None):
        transaction_runners = transaction_runners or {}
        available = set(_INPUTS)
        in_txn = False
        for stage in stages:
            if stage.name not in (transaction_runners if stage.in_transaction else runners):
                raise ConfigurationError(f"pipeline stage {stage.name!r} has no implementation")
            if in_txn and not stage.in_transaction:
                raise ConfigurationError(f"pipeline stage {stage.name!r} runs outside the transaction "
                                         "after one inside it")
            in_txn = in_txn or stage.in_transaction
            unknown = [f for f in stage.requires + stage.provides if f not in _FIELDS]
            if unknown:
                raise ConfigurationError(f"pipeline stage {stage.name!r} names {', '.join(unknown)}, "
                                         "which PutState does not hold")
            missing = [r for r in stage.requires if r not in available]
            if missing:
                raise ConfigurationError(
                    f"pipeline stage {stage.name!r} needs {', '.join(missing)}, which no earlier stage provides"
                )
            available.update(stage.provides)
        self.stages = tuple(stages)
        self.runners = dict(runners)
        self.transaction_runners = dict(transaction_runners)

    def run(self, episodes: Sequence[Episode],
            transaction: Callable[[], AbstractContextManager[psycopg.Connection]], *,
            progress: Progress | None = None) -> tuple[PutState, dict[str, float]]:
        """Run every stage; ``progress`` is readable by stages but required by none."""
        state = PutState(tuple(episodes), progress)
        timings: dict[str, float] = {}
        for stage in self.stages:
            if not stage.in_transaction:
                runner = self.runners[stage.name]
                state = self._run_stage(stage, state, timings, lambda: runner(state))
        inside = [s for s in self.stages if s.in_transaction]
        if inside:
            with transaction() as conn:
                for stage in inside:
                    txn_runner = self.transaction_runners[stage.name]
                    state = self._run_stage(stage, state, timings, lambda: txn_runner(state, conn))
        return state, timings

    @staticmethod
    def _run_stage(stage: Stage, before: PutState, timings: dict[str, float],
                   produce: Callable[[], PutState]) -> PutState:
        started = time.perf_counter()
        after = produce()
        timings[stage.name] = time.perf_counter() - started
        changed = [f for f in _FIELDS if getattr(after, f) is not getattr(before, f)]
        undeclared = [f for f in changed if f not in stage.provides]
        if undeclared:
            raise ConfigurationError(f"pipeline stage {stage.name!r} changed {', '.join(undeclared)}, "
                                     f"declared {', '.join(stage.provides)}")
        return after


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
        self.pipeline = Pipeline(STAGES, {
            "memory": self._memory, "extract": self._extract, "parse": self._parse, "entities": self._entities,
            "coref": self._coref,
            "validate": self._validate, "assemble": self._assemble, "embed": self._embed,
        }, {"write": self._write, "resolve": self._resolve, "link": self._link,
                                       "supersede": self._supersede})

    @property
    def uses_llm(self) -> bool:
        """Facts come from the LLM when one is given and ``IngestConfig.llm_extraction`` is on."""
        return self.llm is not None and self.config.ingest.llm_extraction

    # public ------------------------------------------------------------------------------
    def put_many(self, episodes: Sequence[Episode], *, progress: Progress | None = None) -> list[PutResult]:
        """Store the episodes; an episode already stored (``DUPLICATE``: the same content, context and
        speaker — the document's content hash — with the same event time, for the same agent) stores
        nothing new and returns the units stored the first time. One statement checks the batch.
        An ``update`` (``corrects``) is never a duplicate."""
        with self.db.transaction() as conn:
            known = doc_sql.find_duplicates(conn, [
                (e.agent_id, doc_sql.content_hash(e.content, e.context, e.speaker), e.event_date) for e in episodes])
        known = {i: v for i, v in known.items() if episodes[i].corrects is None}
        fresh = [e for i, e in enumerate(episodes) if i not in known]
        stored = iter(self._put_fresh(fresh, progress) if fresh else [])
        return [PutResult(known[i][0], tuple(StoredUnit(u, t, MemoryType(m)) for u, t, m in known[i][1]), DUPLICATE)
                if i in known else next(stored) for i in range(len(episodes))]

    def _put_fresh(self, episodes: Sequence[Episode], progress: Progress | None) -> list[PutResult]:
        state, timings = self.pipeline.run(episodes, self.db.transaction, progress=progress)
        _log.debug("put_many of %d episodes: %s", len(episodes), timings)
        counts = state.unit_counts
        if grown := planner.crossed(counts, Counter(unit.row.agent_id for unit in state.units)):
            with self.db.transaction() as conn:
                if stale := planner.refresh_if_stale(conn, grown, counts):
                    _log.info("planner statistics refreshed after agents %s grew", stale)
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
            needs = not f.text.rstrip().endswith(_TERMINAL)
            texts.append(f.text + "." if needs else f.text)
            appended.append(needs)
        parses = self.nlp.parse(texts)
        return replace(s, parsed=tuple(ParsedFact(f, p, a) for f, p, a in zip(s.facts, parses, appended)))

    def _entities(self, s: PutState) -> PutState:
        return replace(s, named=tuple(find_entities(s.episodes, s.parsed, s.context)))

    def _coref(self, s: PutState) -> PutState:
        window = timedelta(hours=self.config.ingest.temporal_window_hours)
        return replace(s, coref=tuple(resolve_coreferences(s.episodes, s.named, reset_after=window,
                                                           context=s.context)))

    def _validate(self, s: PutState) -> PutState:
        return replace(s, plans=tuple(plan_units(s.coref)))

    def _assemble(self, s: PutState) -> PutState:
        drafts = (draft_unit(plan, s.episodes[plan.members[0].fact.episode_index]) for plan in s.plans)
        return replace(s, drafts=tuple(drafts))

    def _embed(self, s: PutState) -> PutState:
        vectors = self.embedder.embed([d.text for d in s.drafts])
        return replace(s, embedded=tuple(EmbeddedUnit(d, uuid.uuid4(), v) for d, v in zip(s.drafts, vectors)))

    def _write(self, s: PutState, conn: psycopg.Connection) -> PutState:
        now = self.clock.now()
        doc_ids = tuple(uuid.uuid4() for _ in s.episodes)
        docs = [
            doc_sql.NewDocument(
                id=doc_id, agent_id=e.agent_id, content=e.content, event_date=e.event_date, created_at=now,
                context=e.context, source=e.source, speaker=e.speaker, metadata=dict(e.metadata),
            )
            for doc_id, e in zip(doc_ids, s.episodes)
        ]
        units = tuple(
            WrittenUnit(item.draft.episode_index, self._new_unit(item, s.episodes, doc_ids, now), item.draft.mentions)
            for item in s.embedded
        )
        doc_sql.insert_documents(conn, docs)
        counts = unit_sql.insert_units(conn, [u.row for u in units])
        return replace(s, documents=doc_ids, units=units, unit_counts=counts)

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
        if not self.config.ingest.supersede:
            return replace(s, superseded=self._corrections(s, conn, self.clock.now()))
        by_agent: dict[str, list[tuple[uuid.UUID, str, datetime, np.ndarray]]] = {}
        for unit in s.units:
            row = unit.row
            by_agent.setdefault(row.agent_id, []).append((row.id, row.text, row.event_date, row.embedding))
        llm = self.llm if self.config.ingest.llm_supersession else None
        now = self.clock.now()
        made = sum(supersede_units(conn, agent_id, by_agent[agent_id], self.nlp, self.config.ingest, now,
                                   llm=llm, retries=self.config.llm_retries) for agent_id in sorted(by_agent))
        return replace(s, superseded=made + self._corrections(s, conn, now))

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
        return unit_sql.NewUnit(
            id=item.unit_id, agent_id=episode.agent_id, text=draft.text, embedding=item.embedding,
            event_date=draft.event_date or episode.event_date, created_at=now, memory_type=draft.memory_type,
            importance=importance,
            context=episode.context, document_id=doc_ids[draft.episode_index], tags=episode.tags,
            user_id=episode.user_id, session_id=episode.session_id, source=episode.source,
            speaker=draft.speaker or episode.speaker, metadata=metadata,
        )
