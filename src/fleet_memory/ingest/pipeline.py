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
    nearby    episodes, embedded, context → similar  for an agent searched through its own index,
                                                 the window's nearest STORED units, read on a spare
                                                 connection while later windows are parsed and
                                                 embedded (``store.beside``)
    similar   episodes, embedded   → similar    the same for the other agents, the whole batch at
                                                 once, while the next stages write
    write     episodes, embedded   → documents, units, unit_counts   (WrittenUnit) documents + units
    resolve   units                → mentions   entity resolution + mention rows
    link      units, similar       → links      temporal (at the put's time) + semantic links (the
                                                 stored part from ``similar``, the batch's in memory)
    supersede units                → superseded older units whose fact a new unit updates
                                                 (``ingest.supersede``: the rule; with an LLM judge
                                                 this runs after the commit instead, the one call
                                                 outside any transaction, ``_supersede_with_llm``)

Overlap (``windowed`` and ``concurrent`` stages): after ``extract``, the facts are cut into
windows of about ``WINDOW_FACTS`` facts — a put of fewer than three times that into about three
windows of at least ``MIN_WINDOW_FACTS`` (``window_size``) —, never splitting an episode
(fragments merge within one).
The caller's thread runs parse … assemble window by window (coreference and the names the batch
knows carry over from one window to the next, so a window reads as the continuation of the
previous one), and hands each window's drafts to ``BACK_WORKERS`` (two) worker threads that embed
them, a window each, on one torch thread each — so the two cores are both busy, with spaCy while it
parses and with two windows once it is done — and with all of them for a window left alone at the
end. The unit texts are final before they are embedded. A put with one
window runs every stage in the caller's thread, as before. Windows are merged in order before the
transaction. Work per window is O(its facts); nothing in it reads the agent's stored units but the
``nearby`` reads it hands to spare connections.

Everything for one ``put_many`` is written in one transaction: after a crash there is either the
whole call or none of it. Stage timings (seconds, summed over windows; the concurrent ones overlap
the others) are logged at debug level and returned in every ``PutResult.stage_seconds``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np

from ..clock import Clock
from ..config import Config, LLMConfig
from ..errors import ConfigurationError, FleetMemoryError
from ..model import MemoryType, PutResult, StoredUnit
from ..providers.embedder import Embedder, SentenceTransformerEmbedder
from ..providers.llm import LLM
from ..providers.nlp import NLP, CachedNLP, SpacyNLP
from ..store import Database, agent_indexes, planner
from ..store import documents as doc_sql
from ..store import entities as entity_sql
from ..store import supersession as sup_sql
from ..store import units as unit_sql
from ..store.beside import Beside
from ..store.context import agent_context
from ..store.embedding_cache import EmbeddingCache
from ..store.links import link_units
from ..store.semantic import INDEX_UNIT_S, searched_by_index, semantic_candidates
from . import supersede
from .assemble import draft_unit
from .coref import Discourse, resolve_coreferences
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
from .supersede import NewUnit as StatedUnit
from .supersede import speaker_key, supersede_units
from .validate import plan_units

if TYPE_CHECKING:
    import psycopg

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


@dataclass(frozen=True, slots=True)
class PutState:
    """One ``put_many`` as far as the stages have taken it: the input (``episodes``, ``progress``),
    then each stage's output. A field is empty until the stage that provides it has run."""

    episodes: tuple[Episode, ...]
    progress: Progress | None = None
    context: AgentContext = field(default_factory=AgentContext)
    carry: Carry | None = None  # what windows of one put pass on to the next (see ``Carry``)
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
    similar: tuple[Read, ...] = ()  # the reads of stored neighbours: ``_nearby``, ``_similar``
    links: Mapping[str, int] = field(default_factory=dict)  # link rows made, by kind
    superseded: int = 0  # older units a new unit superseded


class Carry:
    """Mutable state of one ``Pipeline.run`` shared by its windows, in order: the coreference
    discourse, the names the batch knows, whether the caller's thread is done parsing, how many
    windows the worker threads have still to finish, and the reads handed to other threads (not
    started ones are cancelled when the put fails)."""

    def __init__(self) -> None:
        self.discourse = Discourse()
        self.known: dict[str, str] = {}
        self.front_done = threading.Event()
        self.reads: list[Future] = []
        self._back_left = 0
        self._lock = threading.Lock()

    def back_started(self) -> None:
        with self._lock:
            self._back_left += 1

    def back_finished(self) -> None:
        with self._lock:
            self._back_left -= 1

    def last_window(self) -> bool:
        """The caller's thread is done parsing and no other window is waiting or being worked on."""
        return self.front_done.is_set() and self._back_left <= 1


_FIELDS = tuple(f.name for f in dataclasses.fields(PutState))
_INPUTS = ("episodes", "progress", "carry")
WINDOW_FACTS = 96
MIN_WINDOW_FACTS = 12
SIMILAR_WAIT_S = 2.0
SIMILAR_WAIT_PER_UNIT = 5 * INDEX_UNIT_S
"""How long the link stage waits, from its start, for the nearest stored units read beside
(``Ingestor._nearby``, ``_similar``), queued reads included: ``SIMILAR_WAIT_S`` +
``SIMILAR_WAIT_PER_UNIT`` a new unit (five times an HNSW search; a read for the whole batch takes
about as long as the write before it, a second or two for a conversation into a 50,000-unit
agent); then it searches them itself. Only a read
stuck behind a pooler's queue waits that long: one queued behind a lock gives up after
``SIMILAR_LOCK_TIMEOUT`` (a schema change waiting for this put's own transaction would otherwise
hold it)."""
SIMILAR_LOCK_TIMEOUT = "100ms"
NEARBY_CONNECTION_WAIT_S = 0.25
"""How long a window's read of its nearest stored units (``Ingestor._nearby``) may wait for a spare
connection, long enough for the pool to open one (a process that has run one search or put at a
time holds a single idle connection, and a read beside found none within ``SPARE_WAIT_S``). It is
handed over before the put takes a connection of its own, but may start after: the wait is
bounded, the reads not started when the transaction begins are cancelled and their units read
with the rest of the batch (``_similar``), and the link stage searches itself when a read is not
back in time."""
BACK_WORKERS = 2
"""Worker threads for the concurrent stages: two windows are embedded at once, each on one torch
thread, which uses both cores better than one window on two torch threads (measured here, 180
turns: 1.31–1.44 s on two workers of one thread, 1.45–2.17 s on one of two, 2.9–3.0 s on one of
one)."""


def window_size(facts: int, largest: int = WINDOW_FACTS, smallest: int = MIN_WINDOW_FACTS) -> int:
    """Facts per window for a put of ``facts`` facts: ``largest`` for a long put; a shorter one is
    cut in about three windows of at least ``smallest`` (never more than ``largest``), so that a
    put of a few dozen facts — one session of long assistant turns — overlaps parse and embedding
    too instead of running them one after the other."""
    return min(largest, max(smallest, facts // 3))

Runner = Callable[[PutState], PutState]
Stored = tuple[int, list[tuple[uuid.UUID, uuid.UUID, float]]]
"""A read beside a put (``Ingestor._stored_search``): the agent's unit count it saw, then the new
units' nearest stored units."""
Read = tuple[str, frozenset[uuid.UUID], "Future[Stored | None]"]
"""A read of stored neighbours handed to a spare connection: the agent, the new units it asked
about, its answer."""
TransactionRunner = Callable[[PutState, "psycopg.Connection"], PutState]


@dataclass(frozen=True, slots=True)
class Stage:
    """A stage's name, the ``PutState`` fields it reads and those it adds; stages that write run
    ``in_transaction`` (with the connection), after all the others."""

    name: str
    requires: tuple[str, ...]
    provides: tuple[str, ...]
    in_transaction: bool = False
    windowed: bool = False  # runs once per window of facts (see the module docstring)
    concurrent: bool = False  # a windowed stage run in the worker threads (a window each)


STAGES: tuple[Stage, ...] = (
    Stage("memory", ("episodes",), ("context",)),
    Stage("extract", ("episodes", "context"), ("facts",)),
    Stage("parse", ("facts",), ("parsed",), windowed=True),
    Stage("entities", ("episodes", "parsed", "context", "carry"), ("named",), windowed=True),
    Stage("coref", ("episodes", "named", "context", "carry"), ("coref",), windowed=True),
    Stage("validate", ("coref",), ("plans",), windowed=True),
    Stage("assemble", ("episodes", "plans"), ("drafts",), windowed=True),
    Stage("embed", ("drafts", "carry"), ("embedded",), windowed=True, concurrent=True),
    Stage("nearby", ("episodes", "embedded", "context", "carry"), ("similar",), windowed=True, concurrent=True),
    Stage("similar", ("episodes", "embedded"), ("similar",), in_transaction=True),
    Stage("write", ("episodes", "embedded"), ("documents", "units", "unit_counts"), in_transaction=True),
    Stage("resolve", ("units",), ("mentions",), in_transaction=True),
    Stage("link", ("units", "similar"), ("links",), in_transaction=True),
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
            if (stage.windowed and stage.in_transaction) or (stage.concurrent and not stage.windowed):
                raise ConfigurationError(f"pipeline stage {stage.name!r}: only stages outside the transaction "
                                         "run per window, and only windowed stages run concurrently")
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
        _check_windows(stages)
        self.stages = tuple(stages)
        self.runners = dict(runners)
        self.transaction_runners = dict(transaction_runners)

    def run(self, episodes: Sequence[Episode],
            transaction: Callable[[], AbstractContextManager[psycopg.Connection]], *,
            progress: Progress | None = None, window_facts: int = WINDOW_FACTS,
            min_window_facts: int = MIN_WINDOW_FACTS) -> tuple[PutState, dict[str, float]]:
        """Run every stage; ``progress`` is readable by stages but required by none."""
        state = PutState(tuple(episodes), progress, carry=Carry())
        try:
            return self._run(state, transaction, window_facts, min_window_facts)
        except BaseException:
            for read in state.carry.reads:
                read.cancel()
            raise

    def _run(self, state: PutState, transaction: Callable[[], AbstractContextManager[psycopg.Connection]],
             window_facts: int, min_window_facts: int) -> tuple[PutState, dict[str, float]]:
        timings: dict[str, float] = {}
        outside = [s for s in self.stages if not s.in_transaction]
        for stage in (s for s in outside if not s.windowed):
            runner = self.runners[stage.name]
            state = self._run_stage(stage, state, timings, lambda: runner(state))
        windowed = [s for s in outside if s.windowed]
        if windowed:
            size = window_size(len(state.facts), window_facts, min_window_facts)
            state = self._run_windows(state, windowed, timings, size)
        inside = [s for s in self.stages if s.in_transaction]
        if inside:
            with transaction() as conn:
                for stage in inside:
                    txn_runner = self.transaction_runners[stage.name]
                    state = self._run_stage(stage, state, timings, lambda: txn_runner(state, conn))
        return state, timings

    def _run_windows(self, state: PutState, stages: Sequence[Stage], timings: dict[str, float],
                     window_facts: int) -> PutState:
        """The windowed stages, window by window; concurrent ones in the worker threads."""
        windows = fact_windows(state.facts, window_facts)
        front = [s for s in stages if not s.concurrent]
        back = [s for s in stages if s.concurrent]
        assert state.carry is not None
        if len(windows) <= 1 or not back:
            state.carry.front_done.set()
            return self._run_sequence(stages, state, timings)
        back_timings: list[dict[str, float]] = []

        carry = state.carry

        def run_back(window: PutState) -> PutState:
            mine: dict[str, float] = {}
            back_timings.append(mine)
            try:
                return self._run_sequence(back, window, mine)
            finally:
                carry.back_finished()

        def submit(pool: ThreadPoolExecutor, window: PutState):
            carry.back_started()
            return pool.submit(run_back, window)

        with ThreadPoolExecutor(BACK_WORKERS, thread_name_prefix="fleet-memory-embed") as pool:
            try:
                pending = [submit(pool, self._run_sequence(front, replace(state, facts=w), timings)) for w in windows]
            finally:
                carry.front_done.set()
            done = [f.result() for f in pending]
        for mine in back_timings:
            for name, secs in mine.items():
                timings[name] = timings.get(name, 0.0) + secs
        provided = [f for s in stages for f in s.provides]
        merged = {f: tuple(item for d in done for item in getattr(d, f)) for f in provided}
        return replace(state, **merged)

    def _run_sequence(self, stages: Sequence[Stage], state: PutState, timings: dict[str, float]) -> PutState:
        for stage in stages:
            runner = self.runners[stage.name]
            state = self._run_stage(stage, state, timings, lambda: runner(state))
        return state

    @staticmethod
    def _run_stage(stage: Stage, before: PutState, timings: dict[str, float],
                   produce: Callable[[], PutState]) -> PutState:
        started = time.perf_counter()
        after = produce()
        timings[stage.name] = timings.get(stage.name, 0.0) + time.perf_counter() - started
        changed = [f for f in _FIELDS if getattr(after, f) is not getattr(before, f)]
        undeclared = [f for f in changed if f not in stage.provides]
        if undeclared:
            raise ConfigurationError(f"pipeline stage {stage.name!r} changed {', '.join(undeclared)}, "
                                     f"declared {', '.join(stage.provides)}")
        return after


def _check_windows(stages: Sequence[Stage]) -> None:
    """Windowed stages form one run right after the plain outside stages, concurrent ones last."""
    kinds = [("txn" if s.in_transaction else "conc" if s.concurrent else "win" if s.windowed else "plain")
             for s in stages]
    order = {"plain": 0, "win": 1, "conc": 2, "txn": 3}
    if any(order[a] > order[b] for a, b in zip(kinds, kinds[1:])):
        raise ConfigurationError("pipeline stages must run plain, then windowed, then concurrent, "
                                 "then in the transaction: " + ", ".join(s.name for s in stages))


def fact_windows(facts: Sequence[ExtractedFact], size: int) -> list[tuple[ExtractedFact, ...]]:
    """``facts`` cut into runs of at least ``size`` facts (the last may be shorter), each ending
    where an episode ends. One run when there are fewer than ``2 * size`` facts."""
    if len(facts) < 2 * size:
        return [tuple(facts)] if facts else []
    windows: list[tuple[ExtractedFact, ...]] = []
    start = 0
    for i in range(1, len(facts) + 1):
        ends_episode = i == len(facts) or facts[i].episode_index != facts[i - 1].episode_index
        if ends_episode and (i - start >= size or i == len(facts)):
            windows.append(tuple(facts[start:i]))
            start = i
    if len(windows) > 1 and len(windows[-1]) < size // 2:
        windows[-2:] = [windows[-2] + windows[-1]]
    return windows


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
        self.candidate_nlp = CachedNLP(self.nlp)  # supersession re-reads the same older units
        self.llm = llm
        self.window_facts = WINDOW_FACTS
        self.min_window_facts = MIN_WINDOW_FACTS
        self.pipeline = Pipeline(STAGES, {
            "memory": self._memory, "extract": self._extract, "parse": self._parse, "entities": self._entities,
            "coref": self._coref,
            "validate": self._validate, "assemble": self._assemble, "embed": self._embed, "nearby": self._nearby,
        }, {"similar": self._similar, "write": self._write, "resolve": self._resolve, "link": self._link,
            "supersede": self._supersede})
        self._beside_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="fleet-memory-put-beside")
        self._beside = Beside(db, self._beside_pool)
        # small agents' embeddings between puts: the reads beside; supersession reads them, changing nothing
        self._embeddings = EmbeddingCache()

    def close(self) -> None:
        """Wait for the reads still running beside a put (``similar``) and stop their threads."""
        self._beside_pool.shutdown(wait=True)

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
            agent_indexes.build_after_write(self.db, agent)

    # stages ------------------------------------------------------------------------------
    def _memory(self, s: PutState) -> PutState:
        window = timedelta(hours=self.config.ingest.temporal_window_hours)
        with self.db.transaction() as conn:
            context = build_context(s.episodes, window, lambda queries: agent_context(conn, queries))
            units = planner.unit_counts(conn, sorted({e.agent_id for e in s.episodes}))
        return replace(s, context=replace(context, units=units))

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
        if s.carry is not None and not s.carry.last_window() and isinstance(self.embedder, SentenceTransformerEmbedder):
            vectors = self.embedder.embed(texts, threads=1)  # spaCy or another window has the other core
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

    def _write(self, s: PutState, conn: psycopg.Connection) -> PutState:
        now = self.clock.now()
        doc_ids = tuple(uuid.uuid4() for _ in s.episodes)
        docs = [
            doc_sql.NewDocument(
                id=doc_id, agent_id=e.agent_id, content=e.content, event_date=e.event_date, created_at=now,
                context=e.context, source=e.source, speaker=e.speaker, metadata=dict(e.metadata), user_id=e.user_id,
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

    def _nearby(self, s: PutState) -> PutState:
        """In a worker thread, once the window is embedded: per agent whose window is searched
        through the agent's own index (``semantic.searched_by_index``, with its units before the
        put), the window's new units' nearest stored units, read on a spare connection (which does
        not see this put's rows) while later windows are parsed and embedded. Through the index a
        search costs the same per unit however the batch is cut (about 1 ms; 1.5–2 s for a
        conversation into an agent of 85,000 units), and before, the link stage waited for it
        after the write. Other agents are read once for the whole batch (``_similar``): a read of
        one of them is a pass over all its units. If a window's read fails, the link stage searches
        the whole batch, which for an agent of a few thousand units may go in memory, exactly,
        where the windows went through the index: a graph as valid, not always the same one."""
        large = {agent: units for agent, units in self._new_by_agent(s).items()
                 if searched_by_index(s.context.units.get(agent, 0), len(units))}
        return replace(s, similar=tuple(self._read_stored(s, agent, units, NEARBY_CONNECTION_WAIT_S)
                                        for agent, units in sorted(large.items())))

    def _similar(self, s: PutState, conn: psycopg.Connection) -> PutState:
        """The new units no window read asks about (``_nearby``: all of them for most agents; those
        of some windows where the rule weighed a window's size differently; those of window reads
        that had not started, cancelled here: the put now holds a connection, and a read taken
        from here on waits ``SPARE_WAIT_S`` at most for its own), their nearest stored units
        searched on a spare connection while the write and entity resolution run on this one."""
        kept = tuple(read for read in s.similar if not read[2].cancel())
        asked = {uid for _, ids, _ in kept for uid in ids}
        rest = {agent: left for agent, units in self._new_by_agent(s).items()
                if (left := [u for u in units if u[0] not in asked])}
        return replace(s, similar=kept + tuple(self._read_stored(s, agent, units)
                                               for agent, units in sorted(rest.items())))

    @staticmethod
    def _new_by_agent(s: PutState) -> dict[str, list[tuple[uuid.UUID, np.ndarray]]]:
        by_agent: dict[str, list[tuple[uuid.UUID, np.ndarray]]] = {}
        for item in s.embedded:
            agent = s.episodes[item.draft.episode_index].agent_id
            by_agent.setdefault(agent, []).append((item.unit_id, item.embedding))
        return by_agent

    def _read_stored(self, s: PutState, agent_id: str, units: list[tuple[uuid.UUID, np.ndarray]],
                     connection_wait_s: float | None = None) -> Read:
        read = self._beside.submit(self._stored_search(agent_id, units), connection_wait_s)
        if s.carry is not None:
            s.carry.reads.append(read)
        return agent_id, frozenset(u[0] for u in units), read

    def _stored_search(self, agent_id: str, units: list[tuple[uuid.UUID, np.ndarray]],
                       ) -> Callable[[psycopg.Connection], Stored]:
        """The read beside: the agent's unit count (``term_df``, kept by every insert), then the
        new units' nearest stored units; a lock it would wait for longer than
        ``SIMILAR_LOCK_TIMEOUT`` fails it (the link stage then searches)."""
        cfg = self.config.ingest

        def read(c: psycopg.Connection) -> Stored:
            c.execute("SELECT set_config('lock_timeout', %s, true)", (SIMILAR_LOCK_TIMEOUT,))
            seen = planner.unit_counts(c, [agent_id]).get(agent_id, 0)
            return seen, semantic_candidates(c, agent_id, units, top_k=cfg.semantic_top_k,
                                             min_similarity=cfg.semantic_min_similarity, cache=self._embeddings,
                                             size=seen)
        return read

    @staticmethod
    def _stored(s: PutState, agent_id: str, new_units: int) -> list[tuple[uuid.UUID, uuid.UUID, float]] | None:
        """The new units' nearest stored units read beside (``_nearby``, ``_similar``), when every
        read for the agent ran and saw every unit stored before this put: the agent's count then is
        this put's count after its write less its own units (an insert committed by another put
        after a read shows there; the put's own count holds the count's row lock, so none can
        commit after it). Else None, and ``link_units`` searches them in the transaction, the same
        way."""
        reads = [read for agent, _, read in s.similar if agent == agent_id]
        before = s.unit_counts.get(agent_id, 0) - new_units
        deadline = time.monotonic() + SIMILAR_WAIT_S + SIMILAR_WAIT_PER_UNIT * new_units
        pairs: list[tuple[uuid.UUID, uuid.UUID, float]] = []
        for i, read in enumerate(reads):
            got = Beside.awaited(read, max(0.0, deadline - time.monotonic()))
            if got is None or got[0] != before:
                Beside.cancel(reads[i + 1:])  # their answers will not be used
                return None
            pairs.extend(got[1])
        return pairs if reads else None

    def _link(self, s: PutState, conn: psycopg.Connection) -> PutState:
        by_agent: dict[str, list[tuple[uuid.UUID, datetime, np.ndarray]]] = {}
        for unit in s.units:
            row = unit.row
            # linked at the time it was said: a unit dated by its text ("yesterday") stays next to its turn
            said = s.episodes[unit.episode_index].event_date
            by_agent.setdefault(row.agent_id, []).append((row.id, said, row.embedding))
        counts = {"temporal": 0, "semantic": 0}
        for agent_id in sorted(by_agent):
            units = by_agent[agent_id]
            made = link_units(conn, agent_id, units, self.config.ingest, self._stored(s, agent_id, len(units)))
            for kind, n in made.items():
                counts[kind] += n
        return replace(s, links=counts)

    def _supersede(self, s: PutState, conn: psycopg.Connection) -> PutState:
        if not self.config.ingest.supersede or self._judges_with_llm:  # the LLM's turn comes after the commit
            return replace(s, superseded=self._corrections(s, conn, self.clock.now()))
        now = self.clock.now()
        made = sum(supersede_units(conn, agent_id, stated, self.candidate_nlp, self.config.ingest, now,
                                   size=s.unit_counts.get(agent_id), cache=self._embeddings)
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
                    judged = supersede.read_candidates(conn, agent_id, stated, self.candidate_nlp, self.config.ingest,
                                                       wide=True, cache=self._embeddings)
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
