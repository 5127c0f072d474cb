"""A put, top to bottom (``Ingestor._put``): episodes → facts → one parse → entities, coreference,
validation → units → embeddings → one transaction that writes documents, units, entity mentions,
links and supersession. Each step is a function of the previous step's record (``ingest.records``):

    memory     episodes → AgentContext       the agent's recent people + gazetteer, its size (1 query)
    extract    episodes → ExtractedFact      offline rules, or the LLM when configured
    per window of facts (``ingest.windows``), in the caller's thread:
      parse      facts → ParsedFact          ONE spaCy pass (nlp.pipe) for the window; a window of
                                             hundreds of facts in worker processes when the entry
                                             point turned them on (``ingest.parse_processes``)
      entities   → NamedFact                 NER from that parse + the gazetteer
      coref      → CorefFact                 pronouns → referents (in the put, then memory)
      validate   → UnitPlan                  subject + verb; fragments merged
      assemble   → UnitDraft                 unit texts + mentions (+ speakers, dates)
    and in the worker threads, while the next window is parsed:
      embed      → EmbeddedUnit              one batched embedder call
      nearby     → Read                      for agents searched through their own index, the
                                             window's nearest stored units read on a spare
                                             connection (``ingest.nearby``)
    in one transaction:
      similar    → Read                      the same for every other new unit, read beside while
                                             the next steps write
      write      → WrittenPut                documents + units (``ingest.write``)
      resolve                                entity resolution + mention rows
      link                                   temporal (at the put's time) + semantic links
      supersede                              older units a new unit updates (``ingest.supersede``,
                                             the put's one supersession step)
    after the commit: with an LLM judge, supersession judged by it (the one model call outside
    any transaction); planner statistics and own indexes of agents the put grew
    (``store.db.agent_indexes.after_growth``).

Coreference and the names the batch knows carry over from one window to the next, so a window
reads as the continuation of the previous one; the unit texts are final before they are embedded.
Work per window is O(its facts); nothing in it reads the agent's stored units but the ``nearby``
reads it hands to spare connections.

Duplicates (``ingest.duplicates``) are answered before any of this. Everything a ``put_many``
stores is written in one transaction: after a crash there is either the whole call or none of it.
Step timings (seconds, summed over windows; the worker threads' overlap the caller's) are logged at
debug level and returned in every ``PutResult.stage_seconds``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta

from ..clock import Clock
from ..config import Config, IngestConfig, LLMConfig
from ..ids import new_ids
from ..model import MemoryType, PutResult, StoredUnit
from ..providers.embedder import Embedder, SentenceTransformerEmbedder
from ..providers.llm import LLM
from ..providers.nlp import NLP, SpacyNLP
from ..store import Database
from ..store.db import agent_indexes, planner
from ..store.db.beside import Beside
from ..store.linking.embedding_cache import EmbeddingCache
from ..store.reads.context import agent_context
from ..store.tables.documents import StoredConcurrently
from .assemble import draft_unit
from .coref import Discourse, resolve_coreferences
from .duplicates import stored_already
from .extract import extract_sentences
from .llm_extract import Progress, extract_with_llm
from .memory import put_context
from .nearby import Neighbours, Read
from .ner import find_entities
from .kept import CachedEmbedder, CachedNLP
from .parse_processes import ProcessNLP
from .records import AgentContext, EmbeddedUnit, Episode, ExtractedFact, ParsedFact, UnitDraft, WrittenPut
from .supersede import judge_after_commit, supersede_put
from .validate import UnitPlanner
from .windows import (BACK_WORKERS, EPISODE_CUT_FACTS, EPISODE_CUT_FACTS_WORKERS, MIN_WINDOW_FACTS, WINDOW_FACTS,
                      Overlap, fact_windows, window_size)
from .write import ImportanceFn, link_put, record_mentions, write_put

__all__ = ["Ingestor", "StepTimer", "embedded_text", "parse_facts",
           "SKIPPED_FILLER", "SKIPPED_FRAGMENTS", "SKIPPED_LLM"]

_log = logging.getLogger(__name__)

SKIPPED_FILLER = "only greetings, filler or reactions: nothing with substance to store"
SKIPPED_FRAGMENTS = "no complete sentence (subject and verb) to store"
SKIPPED_LLM = "the extractor found no fact with substance"
_TERMINAL = (".", "!", "?", '"', "'", "”", "’", ")")

Window = tuple[tuple[EmbeddedUnit, ...], tuple[Read, ...]]
"""A window's back half: its embedded units, and the reads of their stored neighbours."""


def _default_importance(text: str, tags: tuple[str, ...]) -> float:
    return 0.5


class StepTimer:
    """Seconds per step, summed over windows and threads."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._lock = threading.Lock()

    @contextmanager
    def __call__(self, step: str) -> Iterator[None]:
        started = time.perf_counter()
        yield
        spent = time.perf_counter() - started
        with self._lock:
            self.seconds[step] = self.seconds.get(step, 0.0) + spent


class Ingestor:
    """Stores batches of episodes. ``nlp`` defaults to spaCy (loaded on first use); with an ``llm``
    and ``IngestConfig.llm_extraction`` on, facts are extracted by the LLM instead of the offline
    rules; with ``IngestConfig.llm_supersession`` on, it judges supersession too."""

    def __init__(self, db: Database, embedder: Embedder, config: Config, clock: Clock,
                 importance: ImportanceFn = _default_importance, *, nlp: NLP | None = None,
                 llm: LLM | None = None) -> None:
        self.db = db
        self.embedder = embedder
        self.config = config
        self.clock = clock
        self.importance = importance
        self.nlp = nlp if nlp is not None else SpacyNLP()
        if config.parse_processes and isinstance(self.nlp, SpacyNLP):
            self.nlp = ProcessNLP(self.nlp, config.parse_processes)
        self.candidate_nlp = CachedNLP(self.nlp)  # supersession re-reads the same older units
        self.masked_embedder = CachedEmbedder(embedder)  # and embeds their masked texts (ingest.kept)
        self.llm = llm
        self.window_facts = WINDOW_FACTS
        self.min_window_facts = MIN_WINDOW_FACTS
        self.episode_cut = EPISODE_CUT_FACTS_WORKERS if isinstance(self.nlp, ProcessNLP) else EPISODE_CUT_FACTS
        self._beside_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="fleet-memory-put-beside")
        self._beside = Beside(db, self._beside_pool)
        # small agents' embeddings between puts: the reads beside; supersession reads them, changing nothing
        self._embeddings = EmbeddingCache()

    def close(self) -> None:
        """Wait for the reads still running beside a put and stop their threads; stop the parse
        workers."""
        self._beside_pool.shutdown(wait=True)
        if isinstance(self.nlp, ProcessNLP):
            self.nlp.close()

    @property
    def uses_llm(self) -> bool:
        """Facts come from the LLM when one is given and ``IngestConfig.llm_extraction`` is on."""
        return self.llm is not None and self.config.ingest.llm_extraction

    @property
    def _judge(self) -> LLM | None:
        """The LLM that judges supersession after the commit (``IngestConfig.llm_supersession``)."""
        return self.llm if self.config.ingest.llm_supersession else None

    def put_many(self, episodes: Sequence[Episode], *, progress: Progress | None = None) -> list[PutResult]:
        """Store the episodes; an episode stored already (``ingest.duplicates``) stores nothing new
        and answers with the units stored the first time — also when an identical put committed it
        while this one ran (``store.tables.documents.StoredConcurrently``: this put then answers again)."""
        try:
            return self._put_checked(episodes, progress)
        except StoredConcurrently:  # an identical put committed first: now it is a duplicate
            return self._put_checked(episodes, progress)

    def _put_checked(self, episodes: Sequence[Episode], progress: Progress | None) -> list[PutResult]:
        known = stored_already(self.db, episodes)
        fresh = [e for i, e in enumerate(episodes) if i not in known]
        stored = iter(self._put(fresh, progress) if fresh else [])
        return [known[i] if i in known else next(stored) for i in range(len(episodes))]

    def _put(self, episodes: Sequence[Episode], progress: Progress | None) -> list[PutResult]:
        """The put's steps, in order (the module docstring)."""
        cfg, timer = self.config.ingest, StepTimer()
        neighbours = Neighbours(self._beside, cfg, self._embeddings)
        try:
            with timer("memory"):
                context = self._context(episodes)
            with timer("extract"):
                facts = self._extract(episodes, context, progress)
            embedded, window_reads = self._windows(episodes, facts, context, neighbours, timer)
            with self.db.transaction() as conn:
                with timer("similar"):
                    reads = neighbours.of_rest(episodes, embedded, window_reads)
                with timer("write"):
                    written = write_put(conn, episodes, embedded, self.clock.now(), self.importance, self.config)
                    self.candidate_nlp.keep({u.row.text: u.parse for u in written.units if u.parse is not None})
                with timer("resolve"):
                    record_mentions(conn, written, cfg)
                with timer("link"):
                    link_put(conn, episodes, written, reads, cfg)
                with timer("supersede"):
                    supersede_put(conn, episodes, written, self.candidate_nlp, cfg, self.clock.now(),
                                  rule=cfg.supersede and self._judge is None, cache=self._embeddings,
                                  embedder=self.masked_embedder)
        except BaseException:
            neighbours.cancel()
            raise
        _log.debug("put_many of %d episodes: %s", len(episodes), timer.seconds)
        if cfg.supersede and (judge := self._judge) is not None:
            judge_after_commit(self.db, written.units, self.candidate_nlp, judge, cfg, self.config.llm_retries,
                               self.clock, self._embeddings, self.masked_embedder)
        agent_indexes.after_growth(self.db, written.unit_counts, Counter(u.row.agent_id for u in written.units))
        return _results(episodes, facts, written, timer.seconds, self.uses_llm)

    def _windows(self, episodes: Sequence[Episode], facts: Sequence[ExtractedFact], context: AgentContext,
                 neighbours: Neighbours, timer: StepTimer) -> Window:
        """Window by window, in this thread: parse → entities → coref → validate → assemble; the
        drafts then go to the worker threads (``_embed_window``). Back in window order."""
        windows = fact_windows(facts, window_size(len(facts), self.window_facts, self.min_window_facts),
                               self.episode_cut)
        discourse, known, planner = Discourse(), {}, UnitPlanner()  # carried from one window to the next
        reset_after = timedelta(hours=self.config.ingest.temporal_window_hours)
        with Overlap[Window](BACK_WORKERS, inline=len(windows) <= 1) as back:
            for i, window in enumerate(windows):
                cut = i + 1 < len(windows) and windows[i + 1][0].episode_index == window[-1].episode_index
                with timer("parse"):
                    parsed = parse_facts(self.nlp, window)
                with timer("entities"):
                    named = find_entities(episodes, parsed, context, known)
                with timer("coref"):
                    coref = resolve_coreferences(episodes, named, reset_after=reset_after, context=context,
                                                 name_relatives=self.config.ingest.name_relatives,
                                                 discourse=discourse)
                with timer("validate"):
                    plans = planner.add(coref) + ([] if cut else planner.finish())  # cut: its last plan waits
                with timer("assemble"):
                    drafts = tuple(draft_unit(plan, episodes[plan.members[0].fact.episode_index]) for plan in plans)
                if drafts:
                    back.submit(self._embed_window, episodes, drafts, context, neighbours, timer, back.alone)
            done = back.results()
        return tuple(u for units, _ in done for u in units), tuple(r for _, reads in done for r in reads)

    def _embed_window(self, episodes: Sequence[Episode], drafts: Sequence[UnitDraft], context: AgentContext,
                      neighbours: Neighbours, timer: StepTimer, alone: Callable[[], bool]) -> Window:
        """A window's back half, in a worker thread: embed → hand its neighbour reads over."""
        with timer("embed"):
            embedded = self._embed(drafts, alone())
        with timer("nearby"):
            reads = neighbours.of_window(episodes, embedded, context.units)
        return embedded, reads

    def _context(self, episodes: Sequence[Episode]) -> AgentContext:
        window = timedelta(hours=self.config.ingest.temporal_window_hours)
        with self.db.transaction() as conn:
            context = put_context(episodes, window, lambda queries: agent_context(conn, queries),
                                  name_relatives=self.config.ingest.name_relatives)
            units = planner.unit_counts(conn, sorted({e.agent_id for e in episodes}))
        return replace(context, units=units)

    def _extract(self, episodes: Sequence[Episode], context: AgentContext,
                 progress: Progress | None) -> tuple[ExtractedFact, ...]:
        if self.llm is None or not self.config.ingest.llm_extraction:
            return tuple(extract_sentences(episodes, context))
        llm_config = self.config.llm or LLMConfig(base_url="", model="")
        return tuple(extract_with_llm(self.llm, episodes, self.config.ingest, llm_config, progress=progress))

    def _embed(self, drafts: Sequence[UnitDraft], alone: bool) -> tuple[EmbeddedUnit, ...]:
        """One embedder call for the drafts; on one torch thread unless ``alone`` (spaCy or another
        window has the other core)."""
        texts = [embedded_text(d, self.config.ingest) for d in drafts]
        if not alone and isinstance(self.embedder, SentenceTransformerEmbedder):
            vectors = self.embedder.embed(texts, threads=1)
        else:
            vectors = self.embedder.embed(texts)
        return tuple(EmbeddedUnit(d, i, v) for d, i, v in zip(drafts, new_ids(len(drafts)), vectors))


def parse_facts(nlp: NLP, facts: Sequence[ExtractedFact]) -> tuple[ParsedFact, ...]:
    """One parse for the facts; a fact without a closing mark gets a full stop for the parser
    (``ParsedFact`` says so); kept code is not language: nothing to parse, no entity in it."""
    texts, appended = [], []
    for f in facts:
        if f.kind == "code":
            texts.append("")
            appended.append(False)
            continue
        needs = not f.text.rstrip().endswith(_TERMINAL)
        texts.append(f.text + "." if needs else f.text)
        appended.append(needs)
    parses = nlp.parse(texts)
    return tuple(ParsedFact(f, p, a) for f, p, a in zip(facts, parses, appended))


def embedded_text(draft: UnitDraft, config: IngestConfig) -> str:
    """What is embedded for a unit: its text, after the last ``IngestConfig.embed_headings``
    headings of its heading path when it comes from structured text ("Installation: …")."""
    levels = config.embed_headings
    if not draft.context or levels <= 0:
        return draft.text
    return " > ".join(draft.context.split(" > ")[-levels:]) + ": " + draft.text


def _results(episodes: Sequence[Episode], facts: Sequence[ExtractedFact], written: WrittenPut,
             seconds: dict[str, float], uses_llm: bool) -> list[PutResult]:
    """A result per episode: its document, its units, and why it stored none when it did not."""
    per_episode: list[list[StoredUnit]] = [[] for _ in episodes]
    for unit in written.units:
        row = unit.row
        per_episode[unit.episode_index].append(StoredUnit(row.id, row.text, MemoryType(row.memory_type)))
    had_facts = {f.episode_index for f in facts}
    results = []
    for index, (doc_id, stored) in enumerate(zip(written.documents, per_episode)):
        reason = None
        if not stored:
            if index in had_facts:
                reason = SKIPPED_FRAGMENTS
            else:
                reason = SKIPPED_LLM if uses_llm else SKIPPED_FILLER
        results.append(PutResult(document_id=doc_id, units=tuple(stored), skipped_reason=reason,
                                 stage_seconds=dict(seconds)))
    return results
