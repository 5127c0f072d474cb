"""Recall for one request, in four phases: entries → walk → scored → results.

1. **Entries** (``_entries``). What the query offers — its embedding, content words with their term
   statistics, the entities it names (the one lookup rule, ``store.tables.entities.lookup_entities``) and the
   time window it names, relative to ``now`` — then the entry points of every channel, each tagged
   with the channel(s) that found it, all filtered in SQL and fetched in ONE statement
   (``store.reads.candidates.entries``): ``vector`` (top ``vector_entry_k`` by cosine similarity),
   ``fulltext`` (top ``fulltext_entry_k`` by IDF-weighted match of the query's content words, OR
   semantics), ``entity`` (top ``entity_entry_k`` by similarity among units mentioning an entity the
   query names or said by a person it names) and ``time`` (top ``time_entry_k`` by similarity inside
   the window). The query embedding is computed beside the statements that do not need it: the
   term statistics, the named entities and, for an agent with its own index whose query names a
   window, the window's size, which decides whether a large window is ranked through that index
   (``store.reads.candidates.time_by_index``).
   Named entities with many mentions are ranked on a shortlist of their mentions, the nearest by
   Hamming distance between binary-quantized embeddings (``store.reads.candidates.entity_shortlist``);
   under a restrictive filter, for an agent with its own vector index, a very common entity is
   ranked through that index (``store.reads.candidates.entity_by_index``; one catalogue lookup checks
   the index), and an exactly ranked large entity channel beside the others on spare connections
   (``recall.beside``).
2. **Walk** (``_walk``). Spreading activation (``activation.spread``, pure) from the entry points
   along temporal, semantic and entity links, at most ``thinking_budget`` units explored (entry
   points included), the strongest ``max_frontier`` units expanded per hop. Per hop, ONE
   ``store.linking.links.neighbours`` statement: stored links to units that pass the filter and entity
   links derived by the preset's ``EntityRule`` (hub entities skipped). The features of units the
   walk reached are read in one more statement, or two: those reached before the last hop beside
   that hop, on a spare connection (``recall.beside``), the rest after it.
3. **Scored** (``_score``). ``scoring.score`` (pure; the formula is in that module's docstring) for
   every reached unit, best first, top ``top_k``; returned units are reinforced in one UPDATE
   unless ``reinforce=False``.
4. **Results** (``_result``), each with a typed ``Explanation`` when asked.

Superseded units (``recall.current``): ``as_of`` and ``include_superseded=False`` are filters; by
default a superseded unit carries the bounded ``supersession_term`` in its score, and ``explain``
shows its ``valid_until`` and ``superseded_by``; for questions about the present the current version of a
superseded unit takes its place and the stale unit follows right below it, when the current version is
itself relevant to the question (``current.trusted_links``) (one or two more statements, only
when some reached superseded unit scores at least the ``top_k``-th best current one).

Statements per search on its own connection: at most 6 + hops walked (+ 1 to reinforce, + 2 when a
reached superseded unit scores high enough to reach the top k, ``_kth_best``, + 1 when the entity
channel may use the agent's own index, + 1 or 2 when the query names a window under a filter that
keeps every unit and the agent has 5,000 units or more (the window's size, then, if the rule
allows, the index's existence), + 1 or 2 when a read handed to a spare connection could not
run there), whatever the budget (two of them are settings: the transaction's,
``store.db.database``, and the walk's plans, ``store.db.planner.use_generic_plans``); beside it,
up to three reads on spare connections (``recall.beside``). Inside the walk units are keyed by their write
order (``seq``): ints hash and compare far cheaper than UUIDs, and ties then break the same way
for the same input, whatever the random unit ids.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from uuid import UUID

import psycopg

from ..config import Config
from ..model import Explanation, MemoryUnit, PathStep, SearchResult, TimeWindow
from ..providers.embedder import Embedder
from ..store import Database, UnitFilter
from ..store.db import agent_indexes as index_sql
from ..store.db import planner
from ..store.db.beside import Beside
from ..store.linking import links as link_sql
from ..store.reads import candidates as cand_sql
from ..store.tables import entities as entity_sql
from ..store.tables import supersession as sup_sql
from ..store.tables import units as unit_sql
from ..store.tables.filters import is_plain
from .activation import Edge, Reached, Step, path_to, spread
from .beside import entry_points
from .current import (Said, SameFact, asks_about_past, demote_below_successors, is_superseded, marks_present,
                      newer_leads, promote_successors, trusted_links)
from .query import content_words, name_candidates
from .request import SearchRequest
from .scoring import PoolStats, Scored, Signals, direct_score, entry_activation, pool_stats, score
from .when import time_window

__all__ = ["Recaller", "unit_filter"]


def unit_filter(request: SearchRequest, config: Config) -> UnitFilter:
    """The request's filters with the configured forgetting curve, for effective importance."""
    return replace(request.filters, decay_rate=config.lifecycle.decay_rate,
                   procedural_decay_rate=config.lifecycle.procedural_decay_rate)


@dataclass(frozen=True, slots=True)
class Entries:
    """Phase 1: the query's features and window, the agent's size, and the entry points by ``seq``
    with the channels that found each, their pool statistics and starting activations."""

    features: cand_sql.Features
    window: TimeWindow | None
    units: int
    pool: dict[int, cand_sql.Candidate]
    channels: dict[int, tuple[str, ...]]
    stats: PoolStats
    activation: dict[int, float]


@dataclass(frozen=True, slots=True)
class Walk:
    """Phase 2: every unit the walk reached (entry points included), the features of those that
    were not entry points, and the unit id of every ``seq`` the walk saw."""

    reached: dict[int, Reached[int]]
    found: dict[int, cand_sql.Candidate]
    ids: dict[int, UUID]


@dataclass(frozen=True, slots=True)
class Ranked:
    """Phase 3: one scored unit."""

    seq: int
    candidate: cand_sql.Candidate
    scored: Scored


class _Neighbours:
    """The walk's ``load``: the edges leaving a frontier of ``seq`` keys, in one statement."""

    def __init__(self, conn: psycopg.Connection, request: SearchRequest, flt: UnitFilter, units: int,
                 ids: dict[int, UUID]) -> None:
        self.conn, self.request, self.flt, self.units, self.ids = conn, request, flt, units, ids

    def __call__(self, frontier: Sequence[int]) -> list[Edge[int]]:
        keys = {self.ids[k]: k for k in frontier}
        cfg = self.request.settings
        rows = link_sql.neighbours(self.conn, self.request.agent_id, list(keys), self.flt,
                                   stored_kinds=cfg.stored_kinds, entity=cfg.entity_rule, units=self.units)
        edges = []
        for n in rows:
            self.ids[n.dst_seq] = n.dst
            edges.append(Edge(keys[n.src], n.dst_seq, n.kind, n.weight))
        return edges


RankImportance = Callable[[str, tuple[str, ...], float], float]
"""``(text, tags, stored importance) -> the importance to rank by`` (the facade hands in
``lifecycle.importance.ranking_importance``; the stored value by default)."""


def _stored_importance(text: str, tags: tuple[str, ...], stored: float) -> float:
    return stored


def _signals(c: cand_sql.Candidate, activation: float, entries: tuple[TimeWindow | None, cand_sql.TermStats, float],
             importance: RankImportance, at: datetime | None = None, past: bool = False) -> Signals:
    """``entries``: the query's window, term statistics and the IDF at or below which a term is a
    common word (``RecallSettings.common_word_idf``); ``at``: the time supersession is judged at
    (``recall.current``); ``past``: the question asks about the past."""
    u, (window, _, common) = c.unit, entries
    in_window = window is not None and window.start <= u.event_date < window.end
    superseded = at is not None and is_superseded(u.valid_until, at)
    single = c.text_terms == 1 and c.text_score <= common  # one term matched: the score is its IDF
    return Signals(c.similarity, c.text_score, c.named, in_window, activation, u.event_date, u.last_accessed,
                   u.access_count, importance(u.text, u.tags, u.importance), superseded, past, single)


def _features(conn: psycopg.Connection, request: SearchRequest, flt: UnitFilter, embedding: Future[list],
              window: TimeWindow | None) -> tuple[cand_sql.Features, int, bool]:
    """The query's features, the agent's unit count and whether the time channel goes through the
    agent's own index (``_time_index``); the embedding is awaited last. The words that name the
    time window are not full-text terms ("last weekend" is a window, not a topic: a unit inside it
    should not lose to one that merely says "last" and "weekend")."""
    cfg = request.settings
    text = request.query if window is None else re.sub(re.escape(window.phrase), " ", request.query, count=1,
                                                       flags=re.IGNORECASE)
    words = content_words(text) if cfg.fuse or cfg.fulltext_entry_k else []
    terms = cand_sql.term_stats(conn, request.agent_id, words, common_units=cfg.common_term_units,
                                common_share=cfg.common_term_share, common_min=cfg.common_term_min)
    named = []
    if cfg.entity_entry_k or (cfg.fuse and cfg.w_named):
        named = entity_sql.lookup_entities(conn, request.agent_id, name_candidates(request.query))
    time_index = _time_index(conn, request, flt, window, terms.units)
    features = cand_sql.Features(embedding.result()[0], terms, tuple(e.id for e in named),
                                 sum(e.mention_count for e in named))
    return features, terms.units, time_index


def _time_index(conn: psycopg.Connection, request: SearchRequest, flt: UnitFilter, window: TimeWindow | None,
                units: int) -> bool:
    """Whether the time channel ranks its window through the agent's own vector index
    (``candidates.time_by_index``). Decided while the query is embedded, with two short statements
    (the window's size, counted only as far as the rule needs; the index's existence), and only
    for an agent large enough to have its own index, under a filter that keeps every unit."""
    k = request.settings.time_entry_k
    if window is None or not is_plain(flt) or not cand_sql.time_by_index(units, units, k):
        return False
    counted = cand_sql.window_units(conn, request.agent_id, (window.start, window.end),
                                    cand_sql.time_index_count(units, k))
    return cand_sql.time_by_index(units, counted, k) and index_sql.has_vector_index(conn, request.agent_id)


def _entries(conn: psycopg.Connection, request: SearchRequest, flt: UnitFilter,
             embedding: Future[list], beside: Beside | None = None) -> Entries | None:
    cfg = request.settings
    window = time_window(request.query, request.now) if cfg.time_entry_k else None
    features, units, time_index = _features(conn, request, flt, embedding, window)
    shortlist = cand_sql.entity_shortlist(features.entity_mentions, cfg.entity_entry_k, is_plain(flt))
    limits = cand_sql.EntryLimits(
        vector=cfg.vector_entry_k, fulltext=cfg.fulltext_entry_k, entity=cfg.entity_entry_k,
        time=cfg.time_entry_k, window=None if window is None else (window.start, window.end), time_index=time_index,
        exact=units < cand_sql.EXACT_ENTRIES_BELOW, entity_shortlist=shortlist,
        entity_index=not shortlist
        and cand_sql.entity_by_index(units, features.entity_mentions, cfg.entity_entry_k)
        and index_sql.has_vector_index(conn, request.agent_id))
    found = entry_points(conn, request.agent_id, features, flt, limits, beside)
    if not found:
        return None
    pool = {c.seq: c for c, _ in found}
    stats = pool_stats([c.similarity for c in pool.values()], [c.text_score for c in pool.values()],
                       sim_floor=cfg.similarity_std_floor, text_floor=cfg.text_std_floor)
    query = (window, features.terms, cfg.common_word_idf)
    direct = {key: direct_score(_signals(c, 0.0, query, _stored_importance), stats, cfg) for key, c in pool.items()}
    best = max(direct.values())
    return Entries(features, window, units, pool, {c.seq: tuple(ch) for c, ch in found}, stats,
                   {key: entry_activation(d, best) for key, d in direct.items()})


def _walk(conn: psycopg.Connection, request: SearchRequest, flt: UnitFilter, entries: Entries,
          beside: Beside | None = None) -> Walk:
    """The walk, then the features of the units it reached that were not entry points. Those
    reached before the last hop are read beside that hop, on a spare connection (the budget is
    mostly spent by then), the rest after it."""
    cfg = request.settings
    agent, feats = request.agent_id, entries.features
    ids = {key: c.unit.id for key, c in entries.pool.items()}
    early: list[tuple[set[UUID], Future[list[cand_sql.Candidate] | None]]] = []

    def before_hop(hop: int, reached: Mapping[int, Reached[int]]) -> None:
        if beside is not None and hop == cfg.max_hops and hop > 1:
            asked = {ids[key] for key in reached if key not in entries.pool}
            if asked:
                early.append((asked, beside.submit(
                    lambda c: cand_sql.unit_features(c, agent, list(asked), feats, flt))))

    try:
        reached = spread(entries.activation, _Neighbours(conn, request, flt, entries.units, ids),
                         budget=request.thinking_budget, max_hops=cfg.max_hops, decay=cfg.decay,
                         kind_weight=cfg.link_weight, min_activation=cfg.min_activation,
                         max_frontier=cfg.max_frontier, before_hop=before_hop)
    except BaseException:
        Beside.cancel([future for _, future in early])
        raise
    missing = [ids[key] for key in reached if key not in entries.pool]
    found: dict[int, cand_sql.Candidate] = {}
    for asked, future in early:
        got = Beside.outcome(future)
        if got is not None:
            found.update((c.seq, c) for c in got)
            missing = [uid for uid in missing if uid not in asked]
    found.update((c.seq, c) for c in cand_sql.unit_features(conn, agent, missing, feats, flt))
    return Walk(reached, found, ids)


def _score(conn: psycopg.Connection, request: SearchRequest, flt: UnitFilter, entries: Entries, walk: Walk,
           importance: RankImportance, same_fact: SameFact | None) -> tuple[list[Ranked], dict[UUID, UUID], Walk]:
    """Every reached unit whose features are known, scored; for questions about the present the
    current versions of reached superseded units take their place (``recall.current``); the top
    ``top_k``, best first (ties: similarity, seq), the direct successors of the superseded units
    reached (read only when promoting or explaining), and the walk with the current versions it
    was given."""
    at = request.as_of or request.now
    past = asks_about_past(request.query, entries.window, request.now)
    ranked = [_ranked(key, cand, node.activation, request, entries, importance, at, past)
              for key, node in walk.reached.items()
              if (cand := entries.pool.get(key) or walk.found.get(key)) is not None]
    stale = [is_superseded(r.candidate.unit.valid_until, at) for r in ranked]
    ended = [r.candidate.unit.id for r, old in zip(ranked, stale) if old]
    successors: dict[UUID, UUID] = {}
    if ended and not past and request.settings.fuse:  # the lines of versions, only to promote along them
        bar = _kth_best([r.scored.score for r, old in zip(ranked, stale) if not old], request.top_k)
        rising = [r.candidate.unit.id for r, old in zip(ranked, stale) if old and r.scored.score >= bar]
        chains = sup_sql.chains(conn, request.agent_id, rising, at) if rising else {}
        successors = {old: c.successor for old, c in chains.items()}
        if chains:
            ranked, walk = _current_first(conn, request, flt, entries, walk, ranked, chains, importance, at)
    elif ended and request.explain:  # the direct successors, only to explain
        successors = sup_sql.successors(conn, request.agent_id, ended)
    ranked.sort(key=_order)
    if not past and request.settings.fuse and (second := _next_answer(ranked, request.top_k)) is not None:
        ranked[:second + 1] = _newer_first(conn, request, ranked[:second], ranked[second], at, same_fact, ranked)
        ranked.sort(key=_order)  # the older one's new score may fall below the next ones
    return ranked[: request.top_k], successors, walk


def _order(r: Ranked) -> tuple[float, float, int]:
    """Best first; ties by similarity, then write order."""
    return -r.scored.score, -r.candidate.similarity, r.seq


def _next_answer(ranked: list[Ranked], top_k: int) -> int | None:
    """Where the second best answer starts: the first of the best ``top_k`` units that came from
    another put than the best one (units of one message are one answer)."""
    document = ranked[0].candidate.unit.document_id if ranked else None
    for i, r in enumerate(ranked[1:top_k], start=1):
        if document is None or r.candidate.unit.document_id != document:
            return i
    return None


def _newer_first(conn: psycopg.Connection, request: SearchRequest, best: list[Ranked], second: Ranked,
                 at: datetime, same_fact: SameFact | None, pool: Sequence[Ranked]) -> list[Ranked]:
    """The two best answers of a question about the present — ``best``, the units of one put, and
    ``second`` — the newer first when ``current.newer_leads`` says so and the two are close
    (``RecallSettings.newer_leads_similarity``; one statement each time it is read): the older
    moved just below it (factor ``newer_leads``). Two ways in: the margins (nearly as relevant),
    with the two best units close; or, when those fail, ``same_fact`` on the answers' statements
    with those statements close — asked only when the newer's own relevance is at least the median
    of the answers ranked, ``pool`` (``_median_answer``: a unit the question is not about never
    leads). Two best units that are questions may stand apart while the statements beside them are
    one fact told twice.
    The statements need less closeness (``newer_leads_value_similarity``) when ``same_fact`` found
    the later message tied to the question — a new value of the kind asked, and the asked holder
    named ("Peanut butter cookies are on offer, batch 4" names a number, not Ines, for "What is
    Ines allergic to?"):
    "First proper week at Monzo done and my head is spinning" is 0.21 close to "I work at Deloitte
    in their audit practice", and Monzo answers "Which company do I work for?". What that lets
    through: another thing of the kind asked, told without a cue ("Bought an iPad for sketching in
    the evenings" for "What laptop do I work on?"). A superseded unit never leads."""
    def said(r: Ranked) -> Said:
        u = r.candidate.unit
        return Said(r.scored.score, r.scored.factors["relevance"], u.event_date, u.speaker, r.candidate.similarity)

    cfg, first = request.settings, best[0]
    if is_superseded(second.candidate.unit.valid_until, at):
        return [*best, second]
    stated: tuple[MemoryUnit, MemoryUnit, bool] | None = None  # the statements compared, and tied

    def later_value() -> bool:  # asked only when the margins do not settle it
        nonlocal stated
        if second.scored.factors["relevance"] < _median_answer(pool):
            return False
        shown = pool[:request.top_k]
        stated = same_fact(request.query, _put_units(first, shown), _put_units(second, shown),
                           marks_present(request.query))
        return stated is not None

    read: dict[tuple[UUID, UUID], float] = {}

    def close(older: MemoryUnit, newer: MemoryUnit, bar: float) -> bool:  # each pair read once
        if (older.id, newer.id) not in read:
            read[older.id, newer.id] = cand_sql.pair_similarity(conn, request.agent_id, older.id, newer.id)
        return read[older.id, newer.id] >= bar

    moved = newer_leads(said(first), said(second), cfg.newer_leads_margin, cfg.newer_leads_cosine)
    if moved is None or not close(first.candidate.unit, second.candidate.unit, cfg.newer_leads_similarity):
        moved = None if same_fact is None else newer_leads(said(first), said(second), cfg.newer_leads_margin,
                                                           same_fact=later_value, margins=False)
        if moved is None or stated is None or not close(
                stated[0], stated[1], cfg.newer_leads_value_similarity if stated[2] else cfg.newer_leads_similarity):
            return [*best, second]
    return [second, *(_moved(r, "newer_leads", moved) for r in best)]


def _median_answer(pool: Sequence[Ranked]) -> float:
    """The median relevance of the answers ranked, an answer's being that of its best unit (the units
    of one put are one answer, as in ``_next_answer``). Over units, a message told in three sentences
    counted three times: in an agent of four ranked units — the old value's message in two, the new
    value's, a chat — the new value stood below that median whatever its relevance, since two of the
    four were the old message's."""
    best: dict[object, float] = {}
    for r in pool:
        key = r.candidate.unit.document_id or r.candidate.unit.id
        best[key] = max(best.get(key, float("-inf")), r.scored.factors["relevance"])
    return statistics.median(best.values())


def _put_units(answer: Ranked, shown: Sequence[Ranked]) -> list[MemoryUnit]:
    """The units of ``answer``'s put among those ``shown`` (the best ``top_k``), best first: what
    the answer says for the question (a long document says much else besides)."""
    document = answer.candidate.unit.document_id
    if document is None:
        return [answer.candidate.unit]
    return [r.candidate.unit for r in shown if r.candidate.unit.document_id == document]


def _kth_best(scores: list[float], k: int) -> float:
    """The ``k``-th best of ``scores`` (-inf when there are fewer). Only a superseded unit scoring
    at least the ``k``-th best current unit can bring its current version into the top ``k``
    (promotion only raises scores, demotion lowers only the stale unit), so only the lines of those
    are read: a walk reaches tens of stale versions of a fact that changes often, and reading all
    of their lines was a tenth of a search."""
    if len(scores) < k or k <= 0:
        return float("-inf")
    return sorted(scores, reverse=True)[k - 1]


def _ranked(key: int, cand: cand_sql.Candidate, activation: float, request: SearchRequest, entries: Entries,
            importance: RankImportance, at: datetime, past: bool) -> Ranked:
    query = (entries.window, entries.features.terms, request.settings.common_word_idf)
    signals = _signals(cand, activation, query, importance, at, past)
    return Ranked(key, cand, score(signals, entries.stats, request.settings, request.now))


def _current_first(conn: psycopg.Connection, request: SearchRequest, flt: UnitFilter, entries: Entries,
                   walk: Walk, ranked: list[Ranked], chains: dict[UUID, sup_sql.Chain],
                   importance: RankImportance, at: datetime) -> tuple[list[Ranked], Walk]:
    """Questions about the present: the current version of each reached superseded unit is read
    when the walk did not reach it (one statement; it is scored on its own features, with no
    activation: the link is not evidence that it answers the question), and along the links recall
    trusts (``current.trusted_links``) promoted to the stale unit's score, the stale unit demoted
    below it (``recall.current``)."""
    current = {old: c.current for old, c in chains.items() if c.current is not None}
    by_id = {r.candidate.unit.id: r for r in ranked}
    missing = sorted({new for new in current.values() if new not in by_id}, key=str)
    if missing:
        reached, found, ids = dict(walk.reached), dict(walk.found), dict(walk.ids)
        sources: dict[UUID, Ranked] = {}  # the best-scoring stale unit that leads to each
        for old, new in sorted(current.items(), key=lambda p: -by_id[p[0]].scored.score):
            sources.setdefault(new, by_id[old])
        for cand in cand_sql.unit_features(conn, request.agent_id, missing, entries.features, flt):
            src = sources[cand.unit.id]
            node = reached[src.seq]
            reached[cand.seq] = Reached(0.0, node.hops + 1, Step(src.seq, "supersedes", 1.0))
            found[cand.seq], ids[cand.seq] = cand, cand.unit.id
            r = _ranked(cand.seq, cand, 0.0, request, entries, importance, at, False)
            ranked.append(r)
            by_id[cand.unit.id] = r
        walk = Walk(reached, found, ids)
    scores = {uid: r.scored.score for uid, r in by_id.items()}
    trusted = trusted_links({uid: r.scored.factors["direct"] for uid, r in by_id.items()}, current)
    promoted = promote_successors(scores, trusted)
    scores.update(promoted)
    demoted = demote_below_successors(scores, trusted)
    moves = {**{k: ("promotion", v) for k, v in promoted.items()}, **{k: ("demotion", v) for k, v in demoted.items()}}
    return [_moved(r, *moves[r.candidate.unit.id]) if r.candidate.unit.id in moves else r for r in ranked], walk


def _moved(r: Ranked, factor: str, value: float) -> Ranked:
    factors = {**r.scored.factors, factor: value - r.scored.score, "score": value}
    return Ranked(r.seq, r.candidate, Scored(value, factors))


def _path(walk: Walk, key: int) -> tuple[PathStep, ...]:
    """The walk to ``key``: the entry point first, then each unit with the link that reached it."""
    links = path_to(walk.reached, key)
    start = links[0][0] if links else key
    return (PathStep(walk.ids[start]),) + tuple(
        PathStep(walk.ids[b], walk.ids[a], kind, weight) for a, kind, weight, b in links)


def _result(request: SearchRequest, entries: Entries, walk: Walk, r: Ranked,
            successors: dict[UUID, UUID]) -> SearchResult:
    u = r.candidate.unit
    explanation = None
    if request.explain:
        explanation = Explanation(
            channels=entries.channels.get(r.seq, ("activation",)), hops=walk.reached[r.seq].hops,
            path=_path(walk, r.seq), factors=r.scored.factors, preset=request.settings.name,
            time_window=entries.window, superseded_by=successors.get(u.id), valid_until=u.valid_until)
    return SearchResult(
        id=u.id, text=u.text, weight=r.scored.score, memory_type=u.memory_type, event_date=u.event_date,
        context=u.context, document_id=u.document_id, importance=u.importance, speaker=u.speaker,
        tags=u.tags, metadata=u.metadata, explanation=explanation, valid_until=u.valid_until,
    )


class Recaller:
    def __init__(self, db: Database, embedder: Embedder, config: Config,
                 importance: RankImportance = _stored_importance, *, same_fact: SameFact | None = None) -> None:
        self.db = db
        self.embedder = embedder
        self.config = config
        self.importance = importance
        self.same_fact = same_fact  # newer_leads' holder test (recall.current); without it, the margins alone
        self._embedding_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="fm-query-embed")
        self._beside_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="fm-search-beside")
        self._beside = Beside(db, self._beside_pool)

    def close(self) -> None:
        self._embedding_pool.shutdown(wait=True)
        self._beside_pool.shutdown(wait=True)

    def search(self, request: SearchRequest) -> list[SearchResult]:
        # The query embedding (the one model call) runs beside the first statements.
        embedding = self._embedding_pool.submit(self.embedder.embed, [request.query])
        flt = unit_filter(request, self.config)
        with self.db.transaction() as conn:  # parallel plans off, like every transaction (store.db.database)
            entries = _entries(conn, request, flt, embedding, self._beside)
            if entries is None:
                return []
            if request.settings.max_hops and self.db.generic_plans:
                planner.use_generic_plans(conn)  # only named (prepared) statements keep a plan; not on Citus
            walk = _walk(conn, request, flt, entries, self._beside)
            ranked, successors, walk = _score(conn, request, flt, entries, walk, self.importance, self.same_fact)
            if request.reinforce:
                unit_sql.reinforce(conn, request.agent_id, [r.candidate.unit.id for r in ranked], request.now)
        return [_result(request, entries, walk, r, successors) for r in ranked]
