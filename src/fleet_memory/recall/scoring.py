"""Scoring of recalled units: pure functions that can explain themselves.

For every candidate (entry point or unit reached by activation) with query similarity ``sim``,
full-text score ``text`` (sum of IDFs of the matched query terms), ``named`` (mentions an entity
or was said by a person the query names), ``in_window`` (its event lies in a time window the
query names) and walk activation ``act``:

    direct     = w_sim·z(sim) + w_text·z(text) + w_named·named + w_window·in_window
    entry act  = exp(direct − max direct over the entry points)      (1.0 for the best entry point)
    relevance  = direct + w_act·act                                   (act: the best activation that
                                                                       reached the unit, see activation.py)
    recency    = exp(−0.1 × days since last access, or since the event when never accessed)
    frequency  = 1 + log10(access_count + 1)
    score      = σ(relevance) × ((1 − w_rec) + w_rec·recency) × frequency^w_freq
                 × (1 + w_imp·(2·importance − 1))

``z`` is the z-score against the mean and standard deviation of the entry-point pool (the same
constants for units reached later; deviations floored at 0.05 for cosine and 1.0 for IDF sums),
which puts cosine similarities and IDF sums on one scale — z-score fusion beat reciprocal-rank
fusion in the prototype (DESIGN §5). The seed's ``activation × recency × frequency`` survives as
the product, with recency blended so that a memory months old is not wiped out by its age alone
(with the tuned w_rec = 0.1 the oldest memory keeps 90 % of its score); ``σ`` keeps the relevance
positive so the multiplicative factors act in the right direction. Weights live in ``presets.RecallSettings`` and were tuned on the LoCoMo dev split.
With ``fuse=False`` (the ``vector`` preset) the score is the cosine similarity alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from .presets import RecallSettings

__all__ = ["Signals", "Scored", "PoolStats", "pool_stats", "direct_score", "entry_activation", "score"]


@dataclass(frozen=True, slots=True)
class Signals:
    similarity: float
    text: float
    named: bool
    in_window: bool
    activation: float
    event_date: datetime
    last_accessed: datetime | None
    access_count: int
    importance: float


@dataclass(frozen=True, slots=True)
class PoolStats:
    sim_mean: float
    sim_std: float
    text_mean: float
    text_std: float


@dataclass(frozen=True, slots=True)
class Scored:
    score: float
    factors: dict[str, float]


def _mean_std(values: Sequence[float]) -> tuple[float, float]:
    if not values:
        return 0.0, 1.0
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    std = math.sqrt(var)
    return mean, std if std > 1e-9 else 1.0


def pool_stats(similarities: Sequence[float], texts: Sequence[float], *, sim_floor: float = 0.05,
               text_floor: float = 1.0) -> PoolStats:
    """Mean and standard deviation of each signal over the entry pool. The deviations have floors
    so that a small pool of near-equal values does not blow noise up into large z-scores."""
    sm, ss = _mean_std(similarities)
    tm, ts = _mean_std(texts)
    return PoolStats(sm, max(ss, sim_floor), tm, max(ts, text_floor))


def direct_score(s: Signals, stats: PoolStats, cfg: RecallSettings) -> float:
    return (cfg.w_similarity * (s.similarity - stats.sim_mean) / stats.sim_std
            + cfg.w_text * (s.text - stats.text_mean) / stats.text_std
            + cfg.w_named * float(s.named)
            + cfg.w_window * float(s.in_window))


def entry_activation(direct: float, best_direct: float) -> float:
    return math.exp(min(0.0, direct - best_direct))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def score(s: Signals, stats: PoolStats, cfg: RecallSettings, now: datetime) -> Scored:
    """The final score of one candidate and every factor that went into it."""
    since = s.last_accessed if s.last_accessed is not None else s.event_date
    days = max(0.0, (now - since).total_seconds() / 86400.0)
    recency = math.exp(-cfg.recency_rate * days)
    frequency = 1.0 + math.log10(s.access_count + 1)
    direct = direct_score(s, stats, cfg)
    relevance = direct + cfg.w_activation * s.activation
    recency_factor = (1.0 - cfg.recency_weight) + cfg.recency_weight * recency
    frequency_factor = frequency ** cfg.frequency_weight
    importance_factor = 1.0 + cfg.importance_weight * (2.0 * s.importance - 1.0)
    if cfg.fuse:
        value = _sigmoid(relevance) * recency_factor * frequency_factor * importance_factor
    else:
        value = s.similarity
    factors = {
        "similarity": s.similarity,
        "text": s.text,
        "named": float(s.named),
        "in_window": float(s.in_window),
        "direct": direct,
        "activation": s.activation,
        "relevance": relevance,
        "recency": recency,
        "recency_factor": recency_factor,
        "frequency": frequency,
        "frequency_factor": frequency_factor,
        "importance": s.importance,
        "importance_factor": importance_factor,
        "score": value,
    }
    return Scored(value, factors)
