"""Temporal and semantic links for the units of one batch (entity links are derived when read;
see ``store.links``). Per agent: one query finds temporal candidates for the whole batch, one
finds semantic candidates (HNSW, LATERAL over the new embeddings), one statement writes the links,
and one per kind prunes every touched unit back to its cap — so no unit, old or new, ends with more
than ``temporal_max_links`` temporal or ``semantic_top_k`` semantic links.

Weights: temporal = max(0.3, 1 − Δt / window); semantic = cosine (only ≥ ``semantic_min_similarity``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import numpy as np
import psycopg

from ..config import IngestConfig
from ..store import links as link_sql

__all__ = ["temporal_weight", "link_units"]


def temporal_weight(seconds_apart: float, window_hours: float) -> float:
    return max(0.3, 1.0 - seconds_apart / (window_hours * 3600.0))


def link_units(
    conn: psycopg.Connection,
    agent_id: str,
    units: Sequence[tuple[UUID, datetime, np.ndarray]],
    config: IngestConfig,
) -> dict[str, int]:
    """Create the links of newly written ``(unit_id, event_date, embedding)`` units; return counts."""
    if not units:
        return {"temporal": 0, "semantic": 0}
    temporal = link_sql.temporal_candidates(
        conn, agent_id, [(u[0], u[1]) for u in units],
        window_hours=config.temporal_window_hours, limit=config.temporal_max_links,
    )
    semantic = link_sql.semantic_candidates(
        conn, agent_id, [(u[0], u[2]) for u in units],
        top_k=config.semantic_top_k, min_similarity=config.semantic_min_similarity,
    )
    rows = [(a, b, "temporal", temporal_weight(dt, config.temporal_window_hours)) for a, b, dt in temporal]
    rows += [(a, b, "semantic", sim) for a, b, sim in semantic]
    link_sql.insert_links(conn, agent_id, rows)
    touched_t = list({x for a, b, _ in temporal for x in (a, b)})
    touched_s = list({x for a, b, _ in semantic for x in (a, b)})
    link_sql.prune_links(conn, agent_id, touched_t, "temporal", config.temporal_max_links)
    link_sql.prune_links(conn, agent_id, touched_s, "semantic", config.semantic_top_k)
    return {"temporal": len(temporal), "semantic": len(semantic)}
