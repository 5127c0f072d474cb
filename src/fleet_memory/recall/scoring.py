"""Scoring of recalled units: pure functions that can explain themselves.

**Relevance orders; priors break near-ties.** For every candidate (entry point or unit reached by
activation) with query similarity ``sim``, full-text score ``text`` (sum of IDFs of the matched
query terms), ``named`` (mentions an entity or was said by a person the query names),
``in_window`` (its event lies in a time window the query names) and walk activation ``act``:

    direct     = w_sim·z(sim) + w_text·z(text) + w_named·named + w_window·in_window
    entry act  = exp(direct − max direct over the entry points)     (1.0 for the best entry point)
    relevance  = direct + w_act·act

and the design's priors (docs/concepts.md), each a bounded term added to it:

    recency    = exp(−0.1 × days since last access, or since the event when never accessed)
    frequency  = 1 + log10(access_count + 1)
    prior      = w_rec·(recency − ½) + w_freq·min(frequency − 1, 1) + w_imp·(2·importance − 1)
    score      = relevance + prior + supersession   (recall.current: a unit a newer one superseded)

``z`` is the z-score against the mean and standard deviation of the entry-point pool (deviations
floored at 0.05 for cosine and 1.0 for IDF sums), which puts cosine similarities and IDF sums on
one scale — z-score fusion beat reciprocal-rank fusion in a prototype on LoCoMo (docs/concepts.md).

**One word does not carry a unit on its own.** When a unit's full-text score is the match of a
single query term that is a common word (IDF at most ``common_word_idf``, 3.0: in about 5 % of
the agent's units or more) and its similarity is below the pool's mean (its meaning is far from
the question), ``z(text)`` is capped at ``single_term_text_cap`` (1.0: one standard deviation). Most
units of a pool match nothing, so the full-text deviation is small and one matching word alone
gave z ≈ its IDF (3–5): "What do I eat these days?" ranked first a unit whose only tie was "day",
above the answer that shares no word but the meaning. A unit close in meaning keeps its whole
full-text score, as does any unit matching two terms or more, or one rare term: capping every
one-term match far in meaning cost LoCoMo (dev, two conversations) .013 of R@10 and .017 of R@20,
where a rare word (a name, "pottery") often is the one tie of the evidence turn.

Why additive and bounded: the prior can move a score by at most ``prior_span`` = w_rec +
w_freq + 2·w_imp (0.4 with the balanced weights) — a fraction of one standard deviation of
similarity. Two results whose relevance differs by more than that keep their order, whatever their
age, use or importance; closer ones may swap. An earlier form, σ(relevance) × recency ×
frequency × importance factors, saturated: every strong match had σ ≈ 1, so the factors — and the
length of a text, through importance — decided the top (a 30-character exact answer ranked 9th
behind longer paragraphs; fresh boilerplate beat a relevant memory from last year).

``importance`` here is the ranking importance the caller hands in (``lifecycle.importance.
ranking_importance``): the stored importance without the heuristic's length part, which serves
the forgetting curve (what to archive), not ranking.

Worked example (balanced weights, w_rec = 0.2, w_freq = 0.1, w_imp = 0.05): a 30-character
sentence that answers the question, relevance 3.1, stored a year ago, never read, importance 0.5:
score = 3.1 + 0.2·(0.00 − 0.5) + 0 + 0 = 3.00. A 250-character paragraph on the same topic,
relevance 2.4, stored yesterday, read 3 times, importance 0.6 (0.5 + 0.25 length stripped to 0.5,
+ one keyword 0.1): score = 2.4 + 0.2·(0.90 − 0.5) + 0.1·0.60 + 0.05·0.2 = 2.55. The answer stays
first; had the paragraph's relevance been 3.0, it would have overtaken (a near-tie).

With ``fuse=False`` (the ``vector`` preset) the score is the cosine similarity alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from .current import supersession_term
from .presets import RecallSettings

__all__ = ["Signals", "Scored", "PoolStats", "pool_stats", "direct_score", "entry_activation", "score",
           "prior_span"]


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
    superseded: bool = False  # a newer unit superseded this one (recall.current)
    past: bool = False  # the question asks about the past
    single_term: bool = False  # ``text`` is the match of one common query term alone


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
    similarity = (s.similarity - stats.sim_mean) / stats.sim_std
    text = (s.text - stats.text_mean) / stats.text_std
    if s.single_term and similarity < 0.0:  # one word, far in meaning: a bounded say
        text = min(text, cfg.single_term_text_cap)
    return (cfg.w_similarity * similarity
            + cfg.w_text * text
            + cfg.w_named * float(s.named)
            + cfg.w_window * float(s.in_window))


def entry_activation(direct: float, best_direct: float) -> float:
    return math.exp(min(0.0, direct - best_direct))


def prior_span(cfg: RecallSettings) -> float:
    """The most the priors can move one score relative to another: relevance margins above this
    are never overturned."""
    return cfg.recency_weight + cfg.frequency_weight + 2.0 * cfg.importance_weight


def score(s: Signals, stats: PoolStats, cfg: RecallSettings, now: datetime) -> Scored:
    """The final score of one candidate and every factor that went into it."""
    since = s.last_accessed if s.last_accessed is not None else s.event_date
    days = max(0.0, (now - since).total_seconds() / 86400.0)
    recency = math.exp(-cfg.recency_rate * days)
    frequency = 1.0 + math.log10(s.access_count + 1)
    direct = direct_score(s, stats, cfg)
    relevance = direct + cfg.w_activation * s.activation
    recency_term = cfg.recency_weight * (recency - 0.5)
    frequency_term = cfg.frequency_weight * min(frequency - 1.0, 1.0)
    importance_term = cfg.importance_weight * (2.0 * s.importance - 1.0)
    prior = recency_term + frequency_term + importance_term
    change = supersession_term(s.superseded, s.past, cfg.superseded_weight, cfg.past_superseded_weight)
    value = relevance + prior + change if cfg.fuse else s.similarity
    factors = {
        "similarity": s.similarity,
        "text": s.text,
        "named": float(s.named),
        "in_window": float(s.in_window),
        "direct": direct,
        "activation": s.activation,
        "relevance": relevance,
        "recency": recency,
        "recency_term": recency_term,
        "frequency": frequency,
        "frequency_term": frequency_term,
        "importance": s.importance,
        "importance_term": importance_term,
        "prior": prior,
        "superseded": float(s.superseded),
        "supersession_term": change,
        "score": value,
    }
    return Scored(value, factors)
