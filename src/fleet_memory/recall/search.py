"""Recall for one request: entry points → spreading activation → scoring → reinforcement.

1. Entry points, each tagged with the channel(s) that found it, all filtered in SQL and fetched in
   ONE statement (``recall_sql.entries``): ``vector`` (top ``vector_entry_k`` by cosine
   similarity), ``fulltext`` (top ``fulltext_entry_k`` by IDF-weighted match of the query's content
   words, OR semantics), ``entity`` (top ``entity_entry_k`` by similarity among units mentioning an
   entity the query names or said by a person it names; names resolved with ingestion's
   normalisation) and ``time`` (top ``time_entry_k`` by similarity inside the window the query
   names, relative to ``now``). The query embedding is computed beside the two statements that do
   not need it (term statistics, name resolution).
2. Spreading activation (``activation.spread``, pure) from the entry points along temporal,
   semantic and entity links, at most ``thinking_budget`` units explored (entry points included),
   the strongest ``max_frontier`` units expanded per hop. Per hop, ONE ``recall_sql.adjacency``
   statement: stored links to units that pass the filter, and derived entity links (hub entities,
   mentioned by more than max(entity_hub_min, entity_hub_share × units) units, capped at
   entity_hub_max, are skipped).
3. The features of units reached by the walk (one statement); scoring (``scoring.score``, pure; the
   formula is in that module's docstring), top ``top_k``.
4. Reinforcement of the returned units in one UPDATE, unless ``reinforce=False``.

Statements per search: at most 5 + hops walked (+ 1 to reinforce), whatever the budget (one of
them turns parallel plans off for the transaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from uuid import UUID

from ..config import Config
from ..model import LinkKind, SearchResult
from ..providers.embedder import Embedder
from ..store import Database, UnitFilter
from ..store import links as link_sql
from ..store import recall_sql
from ..store import units as unit_sql
from ..store.entities import normalize_name
from .activation import Edge, Reached, path_to, spread
from .presets import RecallSettings
from .query import STOP_WORDS, content_words, name_candidates
from .request import SearchRequest
from .scoring import Signals, direct_score, entry_activation, pool_stats, score
from .when import time_window

__all__ = ["Recaller", "unit_filter"]


def unit_filter(request: SearchRequest, config: Config) -> UnitFilter:
    return UnitFilter(
        types=tuple(t.value for t in request.types) if request.types else None,
        min_importance=request.min_importance,
        since=request.since,
        until=request.until,
        tags=request.tags,
        user_id=request.user_id,
        session_id=request.session_id,
        include_archived=request.include_archived,
        metadata=request.metadata,
        now=request.now,
        decay_rate=config.lifecycle.decay_rate,
        procedural_decay_rate=config.lifecycle.procedural_decay_rate,
    )


def _names(query: str) -> tuple[list[str], list[str]]:
    """Normalised name candidates and their surface forms (for alias matching)."""
    surfaces = name_candidates(query)
    normalized = list(dict.fromkeys(n for n in (normalize_name(s) for s in surfaces) if n and n not in STOP_WORDS))
    raw = [" ".join(w.capitalize() for w in s.split()) for s in surfaces] + surfaces
    return normalized, list(dict.fromkeys(raw))


def _path(reached: dict[int, Reached[int]], key: int, ids: dict[int, UUID]) -> list[dict]:
    """The walk to ``key``: the entry point first, then each unit with the link that reached it."""
    links = path_to(reached, key)
    start = links[0][0] if links else key
    steps: list[dict] = [{"unit_id": str(ids[start]), "kind": None, "weight": None}]
    steps += [{"unit_id": str(ids[b]), "from": str(ids[a]), "kind": kind, "weight": weight}
              for a, kind, weight, b in links]
    return steps


class Recaller:
    def __init__(self, db: Database, embedder: Embedder, config: Config) -> None:
        self.db = db
        self.embedder = embedder
        self.config = config
        self._embedding_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="fm-query-embed")

    def close(self) -> None:
        self._embedding_pool.shutdown(wait=True)

    def search(self, request: SearchRequest) -> list[SearchResult]:
        cfg: RecallSettings = request.settings
        # The query embedding (the one model call) runs beside the first statements, which do
        # not need it: term statistics and name resolution.
        embedding = self._embedding_pool.submit(self.embedder.embed, [request.query])
        window = time_window(request.query, request.now) if cfg.time_entry_k else None
        flt = unit_filter(request, self.config)
        agent = request.agent_id
        with self.db.transaction() as conn:
            # Every statement below is a handful of index lookups; starting parallel workers for
            # one (several ms on a small machine) costs more than it could save.
            conn.execute("SET LOCAL max_parallel_workers_per_gather = 0")
            words = content_words(request.query) if cfg.fuse or cfg.fulltext_entry_k else []
            terms = recall_sql.term_stats(conn, agent, words, common_units=cfg.common_term_units,
                                          common_share=cfg.common_term_share, common_min=cfg.common_term_min)
            entity_ids: list[UUID] = []
            if cfg.entity_entry_k or (cfg.fuse and cfg.w_named):
                normalized, surfaces = _names(request.query)
                entity_ids = [eid for eid, _, _ in recall_sql.resolve_names(conn, agent, normalized, surfaces)]
            query_vector = embedding.result()[0]
            feats = recall_sql.Features(query_vector, terms, tuple(entity_ids))

            # Units are keyed by their write order (``seq``) inside the walk: ints hash and compare
            # far cheaper than UUIDs (the walk does it thousands of times per search), and ties
            # then break the same way for the same input, whatever the random unit ids.
            pool: dict[int, recall_sql.Candidate] = {}
            channels: dict[int, list[str]] = {}
            ids: dict[int, UUID] = {}
            limits = recall_sql.EntryLimits(
                vector=cfg.vector_entry_k, fulltext=cfg.fulltext_entry_k, entity=cfg.entity_entry_k,
                time=cfg.time_entry_k, window=None if window is None else (window.start, window.end),
                exact=terms.units < recall_sql.EXACT_ENTRIES_BELOW)
            for cand, found_by in recall_sql.entries(conn, agent, feats, flt, limits):
                pool[cand.seq] = cand
                channels[cand.seq] = found_by
                ids[cand.seq] = cand.unit.id
            if not pool:
                return []

            def signals(c: recall_sql.Candidate, activation: float) -> Signals:
                in_window = window is not None and window.start <= c.unit.event_date < window.end
                u = c.unit
                return Signals(c.similarity, c.text_score, c.named, in_window, activation, u.event_date,
                               u.last_accessed, u.access_count, u.importance)

            stats = pool_stats([c.similarity for c in pool.values()], [c.text_score for c in pool.values()],
                               sim_floor=cfg.similarity_std_floor, text_floor=cfg.text_std_floor)
            direct = {key: direct_score(signals(c, 0.0), stats, cfg) for key, c in pool.items()}
            best = max(direct.values())
            entries = {key: entry_activation(d, best) for key, d in direct.items()}

            hub = min(max(cfg.entity_hub_min, int(cfg.entity_hub_share * terms.units)), cfg.entity_hub_max)
            stored_kinds = [k.value for k in (LinkKind.TEMPORAL, LinkKind.SEMANTIC) if cfg.link_weight(k.value) > 0]
            fanout = cfg.entity_fanout if cfg.entity_weight > 0 else 0

            def load(frontier: Sequence[int]) -> list[Edge[int]]:
                keys = {ids[k]: k for k in frontier}
                rows = recall_sql.adjacency(conn, agent, list(keys), flt,
                                            stored_kinds=stored_kinds, entity_fanout=fanout, max_mentions=hub)
                edges = []
                for a, b, b_seq, kind, w in rows:
                    ids[b_seq] = b
                    edges.append(Edge(keys[a], b_seq, kind, w))
                return edges

            reached: dict[int, Reached[int]] = spread(
                entries, load, budget=request.thinking_budget, max_hops=cfg.max_hops, decay=cfg.decay,
                kind_weight=cfg.link_weight, min_activation=cfg.min_activation, max_frontier=cfg.max_frontier,
            )
            missing = [ids[key] for key in reached if key not in pool]
            for row in recall_sql.candidates(conn, agent, missing, feats, flt):
                pool[row.seq] = row
                channels.setdefault(row.seq, []).append("activation")

            scored = []
            for key, node in reached.items():
                cand = pool.get(key)
                if cand is None:
                    continue
                result = score(signals(cand, node.activation), stats, cfg, request.now)
                scored.append((result.score, cand.similarity, key, result))
            scored.sort(key=lambda item: (-item[0], -item[1], item[2]))
            top = scored[: request.top_k]
            if request.reinforce:
                unit_sql.reinforce(conn, agent, [pool[item[2]].unit.id for item in top], request.now)

        results = []
        for value, _, key, result in top:
            u = pool[key].unit
            explanation = None
            if request.explain:
                node = reached[key]
                explanation = {
                    "channels": list(channels.get(key, [])),
                    "hops": node.hops,
                    "path": _path(reached, key, ids),
                    "factors": result.factors,
                    "preset": cfg.name,
                    "time_window": None if window is None else
                    {"phrase": window.phrase, "start": window.start.isoformat(), "end": window.end.isoformat()},
                }
            results.append(SearchResult(
                id=u.id, text=u.text, weight=value, memory_type=u.memory_type, event_date=u.event_date,
                context=u.context, document_id=u.document_id, importance=u.importance, speaker=u.speaker,
                tags=u.tags, metadata=u.metadata, explanation=explanation,
            ))
        return results
