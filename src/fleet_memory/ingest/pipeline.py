"""The ingestion pipeline (seed 000, DESIGN §4): episodes → facts → one parse → entities,
validation, coreference → units → embeddings → one transaction that writes documents, units,
entity mentions and links.

Stages declare what they read and what they add; ``Pipeline`` checks once, at construction, that
every stage's inputs are produced by an earlier stage (and that the stages which need the
transaction's connection come last). The order lives in ``STAGES``:

    extract   episodes                          → facts      offline rules, or the LLM when configured
    parse     facts                             → parsed     ONE spaCy pass (nlp.pipe) for the batch
    entities  episodes, parsed                  → spans      NER from that parse
    validate  parsed                            → plans      subject + verb; fragments merged
    coref     episodes, parsed, spans           → coref      pronouns → referents
    assemble  episodes, parsed, spans, plans, coref → resolved  unit texts + mentions (+ speakers)
    embed     resolved                          → embedded   one batched embedder call
    write     conn, episodes, embedded          → units      documents + units
    resolve   conn, embedded, units             → mentions   entity resolution + mention rows
    link      conn, units                       → links      temporal + semantic links

Everything for one ``put_many`` is written in one transaction: after a crash there is either the
whole call or none of it. Stage timings (seconds) are logged at debug level and returned in every
``PutResult.stage_seconds``.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ..clock import Clock
from ..config import Config, LLMConfig
from ..errors import ConfigurationError
from ..model import MemoryType, PutResult, StoredUnit
from ..naming import normalize_name
from ..providers.embedder import Embedder
from ..providers.llm import LLM
from ..providers.nlp import NLP, SpacyNLP
from ..store import Database, planner
from ..store import documents as doc_sql
from ..store import entities as entity_sql
from ..store import units as unit_sql
from ..store.links import link_units
from .coref import resolve_coreferences
from .extract import extract_offline

from .llm_extract import Progress, extract_with_llm
from .ner import clean_name, find_entities
from .records import EmbeddedFact, EntityMention, Episode, ExtractedFact, ParsedFact, ResolvedFact
from .resolve import UnitMentions, resolve_entities
from .validate import plan_units

__all__ = ["Ingestor", "Pipeline", "Stage", "STAGES", "SKIPPED_FILLER", "SKIPPED_FRAGMENTS", "SKIPPED_LLM"]

_log = logging.getLogger(__name__)

ImportanceFn = Callable[[str, tuple[str, ...]], float]

SKIPPED_FILLER = "only greetings, filler or reactions: nothing with substance to store"
SKIPPED_FRAGMENTS = "no complete sentence (subject and verb) to store"
SKIPPED_LLM = "the extractor found no fact with substance"
_TERMINAL = (".", "!", "?", '"', "'", "”", "’", ")")


def _default_importance(text: str, tags: tuple[str, ...]) -> float:
    return 0.5


@dataclass(frozen=True, slots=True)
class Stage:
    name: str
    requires: tuple[str, ...]
    provides: tuple[str, ...]
    in_transaction: bool = False


STAGES: tuple[Stage, ...] = (
    Stage("extract", ("episodes",), ("facts",)),
    Stage("parse", ("facts",), ("parsed",)),
    Stage("entities", ("episodes", "parsed"), ("spans",)),
    Stage("validate", ("parsed",), ("plans",)),
    Stage("coref", ("episodes", "parsed", "spans"), ("coref",)),
    Stage("assemble", ("episodes", "parsed", "spans", "plans", "coref"), ("resolved",)),
    Stage("embed", ("resolved",), ("embedded",)),
    Stage("write", ("conn", "episodes", "embedded"), ("documents", "units", "unit_counts"), in_transaction=True),
    Stage("resolve", ("conn", "embedded", "units"), ("mentions",), in_transaction=True),
    Stage("link", ("conn", "units"), ("links",), in_transaction=True),
)


class Pipeline:
    """Stages in order, checked at construction; ``run`` times each stage."""

    def __init__(self, stages: Sequence[Stage], runners: Mapping[str, Callable[[dict[str, Any]], dict[str, Any]]]):
        available = {"episodes"}
        in_txn = False
        for stage in stages:
            if stage.name not in runners:
                raise ConfigurationError(f"pipeline stage {stage.name!r} has no implementation")
            if in_txn and not stage.in_transaction:
                raise ConfigurationError(f"pipeline stage {stage.name!r} runs outside the transaction after one inside it")
            if stage.in_transaction and not in_txn:
                in_txn = True
                available.add("conn")
            missing = [r for r in stage.requires if r not in available]
            if missing:
                raise ConfigurationError(
                    f"pipeline stage {stage.name!r} needs {', '.join(missing)}, which no earlier stage provides"
                )
            available.update(stage.provides)
        self.stages = tuple(stages)
        self.runners = dict(runners)

    def run(self, episodes: Sequence[Episode], transaction: Callable[[], Any], *,
            options: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, float]]:
        """Run every stage; ``options`` (such as ``progress``) are readable by stages but required by none."""
        state: dict[str, Any] = {**(options or {}), "episodes": list(episodes)}
        timings: dict[str, float] = {}
        outside = [s for s in self.stages if not s.in_transaction]
        inside = [s for s in self.stages if s.in_transaction]
        for stage in outside:
            self._run_stage(stage, state, timings)
        if inside:
            with transaction() as conn:
                state["conn"] = conn
                try:
                    for stage in inside:
                        self._run_stage(stage, state, timings)
                finally:
                    del state["conn"]
        return state, timings

    def _run_stage(self, stage: Stage, state: dict[str, Any], timings: dict[str, float]) -> None:
        started = time.perf_counter()
        produced = self.runners[stage.name](state)
        timings[stage.name] = time.perf_counter() - started
        if set(produced) != set(stage.provides):
            raise ConfigurationError(f"pipeline stage {stage.name!r} produced {sorted(produced)}, "
                                     f"declared {list(stage.provides)}")
        state.update(produced)


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
            "extract": self._extract, "parse": self._parse, "entities": self._entities,
            "validate": self._validate, "coref": self._coref, "assemble": self._assemble, "embed": self._embed,
            "write": self._write, "resolve": self._resolve, "link": self._link,
        })

    @property
    def uses_llm(self) -> bool:
        """Facts come from the LLM when one is given and ``IngestConfig.llm_extraction`` is on."""
        return self.llm is not None and self.config.ingest.llm_extraction

    # public ------------------------------------------------------------------------------
    def put_many(self, episodes: Sequence[Episode], *, progress: Progress | None = None) -> list[PutResult]:
        state, timings = self.pipeline.run(episodes, self.db.transaction, options={"progress": progress})
        _log.debug("put_many of %d episodes: %s", len(episodes), timings)
        counts = state["unit_counts"]
        if grown := planner.crossed(counts, Counter(unit.agent_id for unit in state["units"])):
            with self.db.transaction() as conn:
                if stale := planner.refresh_if_stale(conn, grown, counts):
                    _log.info("planner statistics refreshed after agents %s grew", stale)
        doc_ids: list[uuid.UUID] = state["documents"]
        per_episode: list[list[StoredUnit]] = [[] for _ in episodes]
        for item, unit in zip(state["embedded"], state["units"]):
            per_episode[item.fact.episode_index].append(StoredUnit(unit.id, unit.text, MemoryType(unit.memory_type)))
        had_facts = {f.episode_index for f in state["facts"]}
        results = []
        for index, (doc_id, stored) in enumerate(zip(doc_ids, per_episode)):
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
    def _extract(self, s: dict[str, Any]) -> dict[str, Any]:
        episodes: list[Episode] = s["episodes"]
        if not self.uses_llm:
            return {"facts": extract_offline(episodes)}
        llm_config = self.config.llm or LLMConfig(base_url="", model="")
        facts = extract_with_llm(self.llm, episodes, self.config.ingest, llm_config, progress=s.get("progress"))
        return {"facts": facts}

    def _parse(self, s: dict[str, Any]) -> dict[str, Any]:
        facts: list[ExtractedFact] = s["facts"]
        texts, appended = [], []
        for f in facts:
            needs = not f.text.rstrip().endswith(_TERMINAL)
            texts.append(f.text + "." if needs else f.text)
            appended.append(needs)
        parses = self.nlp.parse(texts)
        return {"parsed": [ParsedFact(f, p, a) for f, p, a in zip(facts, parses, appended)]}

    def _entities(self, s: dict[str, Any]) -> dict[str, Any]:
        return {"spans": find_entities(s["episodes"], s["parsed"])}

    def _validate(self, s: dict[str, Any]) -> dict[str, Any]:
        return {"plans": plan_units(s["parsed"])}

    def _coref(self, s: dict[str, Any]) -> dict[str, Any]:
        window = timedelta(hours=self.config.ingest.temporal_window_hours)
        return {"coref": resolve_coreferences(s["episodes"], s["parsed"], s["spans"], reset_after=window)}

    def _assemble(self, s: dict[str, Any]) -> dict[str, Any]:
        episodes: list[Episode] = s["episodes"]
        parsed: list[ParsedFact] = s["parsed"]
        resolved: list[ResolvedFact] = []
        for plan in s["plans"]:
            first = parsed[plan.members[0]].fact
            text = " ".join(s["coref"][i].text for i in plan.members).strip()
            mentions: dict[str, EntityMention] = {}

            def add(surface: str, label: str) -> None:
                name = clean_name(surface)
                key = normalize_name(name)
                if key and key not in mentions:
                    mentions[key] = EntityMention(name, label)

            speaker = episodes[first.episode_index].speaker
            if speaker:
                add(speaker, "PERSON")
            for i in plan.members:
                for span in s["spans"][i]:
                    add(span.text, span.label)
                for ref in s["coref"][i].referents:
                    add(ref.surface, ref.label)
                for ent in parsed[i].fact.entities:
                    add(ent.surface, ent.label)
            resolved.append(ResolvedFact(first.episode_index, text, first.memory_type, first.importance,
                                         first.speaker, first.category, tuple(mentions.values())))
        return {"resolved": resolved}

    def _embed(self, s: dict[str, Any]) -> dict[str, Any]:
        resolved: list[ResolvedFact] = s["resolved"]
        vectors = self.embedder.embed([f.text for f in resolved])
        return {"embedded": [EmbeddedFact(f, uuid.uuid4(), v) for f, v in zip(resolved, vectors)]}

    def _write(self, s: dict[str, Any]) -> dict[str, Any]:
        episodes: list[Episode] = s["episodes"]
        now = self.clock.now()
        doc_ids = [uuid.uuid4() for _ in episodes]
        docs = [
            doc_sql.NewDocument(
                id=doc_id, agent_id=e.agent_id, content=e.content, event_date=e.event_date, created_at=now,
                context=e.context, source=e.source, speaker=e.speaker, metadata=dict(e.metadata),
            )
            for doc_id, e in zip(doc_ids, episodes)
        ]
        units = [self._new_unit(item, episodes[item.fact.episode_index], doc_ids, now) for item in s["embedded"]]
        doc_sql.insert_documents(s["conn"], docs)
        counts = unit_sql.insert_units(s["conn"], units)
        return {"documents": doc_ids, "units": units, "unit_counts": counts}

    def _resolve(self, s: dict[str, Any]) -> dict[str, Any]:
        by_agent: dict[str, list[UnitMentions]] = {}
        for item, unit in zip(s["embedded"], s["units"]):
            if item.fact.mentions:
                by_agent.setdefault(unit.agent_id, []).append(UnitMentions(unit.id, unit.event_date, item.fact.mentions))
        recorded = 0
        for agent_id in sorted(by_agent):
            mentions = resolve_entities(s["conn"], agent_id, by_agent[agent_id], self.config.ingest)
            recorded += entity_sql.record_mentions(s["conn"], agent_id, mentions)
        return {"mentions": recorded}

    def _link(self, s: dict[str, Any]) -> dict[str, Any]:
        by_agent: dict[str, list[Any]] = {}
        for unit in s["units"]:
            by_agent.setdefault(unit.agent_id, []).append((unit.id, unit.event_date, unit.embedding))
        counts = {"temporal": 0, "semantic": 0}
        for agent_id in sorted(by_agent):
            made = link_units(s["conn"], agent_id, by_agent[agent_id], self.config.ingest)
            for kind, n in made.items():
                counts[kind] += n
        return {"links": counts}

    def _new_unit(self, item: EmbeddedFact, episode: Episode, doc_ids: list[uuid.UUID], now) -> unit_sql.NewUnit:
        fact = item.fact
        importance = fact.importance if fact.importance is not None else self.importance(fact.text, episode.tags)
        metadata = dict(episode.metadata)
        if fact.category:
            metadata.setdefault("category", fact.category)
        return unit_sql.NewUnit(
            id=item.unit_id, agent_id=episode.agent_id, text=fact.text, embedding=item.embedding,
            event_date=episode.event_date, created_at=now, memory_type=fact.memory_type, importance=importance,
            context=episode.context, document_id=doc_ids[fact.episode_index], tags=episode.tags,
            user_id=episode.user_id, session_id=episode.session_id, source=episode.source,
            speaker=fact.speaker or episode.speaker, metadata=metadata,
        )
