"""Consolidation: clusters of similar episodes become one semantic unit (docs/concepts.md,
Lifecycle).

Per agent:

1. Candidates: live episodic units with base importance > ``consolidation_min_importance`` (0.5)
   that no semantic unit was made from yet — the most recent ``consolidation_max_units`` of them,
   which bounds the O(n²) clustering below (2,000 units ≈ 32 MB of distances).
2. Clustering: agglomerative, cosine distance, average linkage (scikit-learn), merging while the
   mean pairwise similarity between two clusters is at least ``consolidation_similarity``.
   Average linkage keeps a cluster about one topic without the chaining of single linkage.
3. Each cluster of at least ``consolidation_min_cluster`` (3) units becomes one semantic unit:
   an LLM summary when an LLM is configured, else the extractive summary of ``summary`` (the most
   central episode plus the entities the cluster shares). It is tagged ``consolidated`` plus the
   sources' tags, has source ``consolidation``, an importance scored by the storage rules, the
   latest event date of its sources, and mentions the entities they share.
4. One transaction per agent writes the new units, the provenance rows (``unit_sources``), the
   new units' temporal and semantic links (as ingestion makes them, so recall can walk from a
   summary to its episodes and on) and halves each source's importance (``importance_set_at =
   now``). It first takes an advisory lock on the agent and drops any cluster a concurrent run
   consolidated meanwhile (or whose sources were deleted or archived meanwhile), so two processes
   never consolidate the same sources twice. Halving also takes the sources below the importance
   threshold, and the provenance rows exclude them explicitly: a re-run creates nothing new.

Summaries and embeddings are computed before the write transaction, so no lock is held while a
model or an LLM works.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from ..config import Config
from ..model import ConsolidatedUnit, ConsolidationReport, MemoryType
from ..providers.embedder import Embedder
from ..providers.llm import LLM
from ..store import Database
from ..store.linking.links import link_units
from ..store.tables import maintenance as maint_sql
from ..store.tables import provenance as prov_sql
from ..store.tables import units as unit_sql
from .summary import extractive_summary, llm_summary

__all__ = ["Consolidator", "cluster_embeddings", "CONSOLIDATED_TAG", "CONSOLIDATION_SOURCE"]

CONSOLIDATED_TAG = "consolidated"
CONSOLIDATION_SOURCE = "consolidation"
_MAX_ENTITIES = 3


def cluster_embeddings(embeddings: np.ndarray, similarity: float) -> list[list[int]]:
    """Groups of row indices: average-linkage agglomerative clustering on cosine distance,
    stopping where clusters are less similar than ``similarity``. Largest groups first."""
    n = len(embeddings)
    if n == 0:
        return []
    if n == 1:
        return [[0]]
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=max(1e-9, 1.0 - similarity)
    )
    labels = model.fit_predict(np.asarray(embeddings, dtype=np.float64))
    groups: dict[int, list[int]] = {}
    for index, label in enumerate(labels):
        groups.setdefault(int(label), []).append(index)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


@dataclass(frozen=True, slots=True)
class _Planned:
    unit: unit_sql.NewUnit
    source_ids: tuple[uuid.UUID, ...]
    entity_ids: tuple[uuid.UUID, ...]


class Consolidator:
    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        config: Config,
        importance: Callable[[str, tuple[str, ...]], float],
        llm: LLM | None = None,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.config = config
        self.lifecycle = config.lifecycle
        self.importance = importance
        self.llm = llm

    def agents(self) -> list[str]:
        with self.db.transaction() as conn:
            return maint_sql.consolidation_agents(
                conn, min_importance=self.lifecycle.consolidation_min_importance,
                min_count=self.lifecycle.consolidation_min_cluster,
            )

    def run(self, agent_id: str, now: datetime) -> ConsolidationReport:
        cfg = self.lifecycle
        method = "llm" if self.llm is not None else "offline"
        with self.db.transaction() as conn:
            candidates = maint_sql.consolidation_candidates(
                conn, agent_id, min_importance=cfg.consolidation_min_importance, limit=cfg.consolidation_max_units
            )
        if len(candidates) < cfg.consolidation_min_cluster:
            return ConsolidationReport(now, agent_id, len(candidates), 0, method=method)

        vectors = np.stack([c.embedding for c in candidates])
        groups = [g for g in cluster_embeddings(vectors, cfg.consolidation_similarity)
                  if len(g) >= cfg.consolidation_min_cluster]
        planned = [self._plan(agent_id, [candidates[i] for i in g], vectors[g], now) for g in groups]
        if planned:
            embedded = self.embedder.embed([p.unit.text for p in planned])
            planned = [
                _Planned(_with_embedding(p.unit, vec), p.source_ids, p.entity_ids) for p, vec in zip(planned, embedded)
            ]

        created: list[ConsolidatedUnit] = []
        skipped = 0
        if planned:
            with self.db.transaction() as conn:
                maint_sql.lock_job(conn, "consolidate", agent_id)
                wanted = [s for p in planned for s in p.source_ids]
                taken = prov_sql.already_sources(conn, agent_id, wanted)
                live = maint_sql.lock_live(conn, agent_id, wanted)
                for p in planned:
                    if taken.intersection(p.source_ids) or not live.issuperset(p.source_ids):
                        skipped += 1
                        continue
                    unit_sql.insert_units(conn, [p.unit])
                    prov_sql.add_sources(conn, agent_id, p.unit.id, p.source_ids, now)
                    prov_sql.add_mentions(conn, agent_id, p.unit.id, p.entity_ids)
                    maint_sql.halve_importance(conn, agent_id, p.source_ids, now)
                    created.append(ConsolidatedUnit(p.unit.id, agent_id, p.unit.text, p.source_ids, p.unit.tags))
                written = [p.unit for p in planned if p.unit.id in {c.id for c in created}]
                link_units(conn, agent_id, [(u.id, u.event_date, u.embedding) for u in written], self.config.ingest)
        return ConsolidationReport(now, agent_id, len(candidates), len(groups), tuple(created), skipped, method)

    def _plan(self, agent_id: str, members: Sequence[maint_sql.ClusterCandidate], vectors: np.ndarray,
              now: datetime) -> _Planned:
        ids = [m.id for m in members]
        with self.db.transaction() as conn:
            shared = prov_sql.shared_entities(
                conn, agent_id, ids, min_units=max(2, (len(ids) + 1) // 2), limit=_MAX_ENTITIES
            )
        names = [name for _, name, _ in shared]
        texts = [m.text for m in sorted(members, key=lambda m: (m.event_date, m.seq))]  # in the order said
        if self.llm is not None:
            text = llm_summary(self.llm, texts, names, retries=self.config.llm_retries)
        else:
            text = extractive_summary([m.text for m in members], vectors, names)
        tags = _merge_tags(members, self.config.limits.max_tags)
        return _Planned(
            unit_sql.NewUnit(
                id=uuid.uuid4(), agent_id=agent_id, text=text, embedding=np.zeros(0, dtype=np.float32),
                event_date=max(m.event_date for m in members), created_at=now,
                memory_type=MemoryType.SEMANTIC.value, importance=self.importance(text, tags), tags=tags,
                source=CONSOLIDATION_SOURCE, metadata={"consolidated_from": len(members)},
            ),
            tuple(sorted(ids, key=str)),
            tuple(eid for eid, _, _ in shared),
        )


def _merge_tags(members: Sequence[maint_sql.ClusterCandidate], max_tags: int) -> tuple[str, ...]:
    tags = [CONSOLIDATED_TAG]
    for member in members:
        tags.extend(member.tags)
    return tuple(dict.fromkeys(tags))[:max_tags]


def _with_embedding(unit: unit_sql.NewUnit, vector: np.ndarray) -> unit_sql.NewUnit:
    return replace(unit, embedding=vector)
