"""Scoring factors: recency and frequency, importance, and the fused relevance."""

import math
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from fleet_memory.recall.presets import BALANCED, VECTOR
from fleet_memory.recall.scoring import Signals, pool_stats, prior_span, score

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)


def signals(**changes) -> Signals:
    base = Signals(similarity=0.5, text=1.0, named=False, in_window=False, activation=0.0,
                   event_date=NOW - timedelta(days=10), last_accessed=None, access_count=0, importance=0.5)
    return replace(base, **changes)


STATS = pool_stats([0.2, 0.5, 0.8], [0.0, 1.0, 2.0])


def test_recency_is_from_the_event_when_never_accessed_else_from_the_last_access() -> None:
    never = score(signals(), STATS, BALANCED, NOW).factors
    assert never["recency"] == pytest.approx(math.exp(-0.1 * 10))
    touched = score(signals(last_accessed=NOW - timedelta(days=2)), STATS, BALANCED, NOW).factors
    assert touched["recency"] == pytest.approx(math.exp(-0.1 * 2))


def test_frequency_is_one_plus_log10_of_accesses() -> None:
    factors = score(signals(access_count=9), STATS, BALANCED, NOW).factors
    assert factors["frequency"] == pytest.approx(2.0)


def test_each_signal_raises_the_score() -> None:
    base = score(signals(), STATS, BALANCED, NOW).score
    for change in ({"similarity": 0.8}, {"text": 2.0}, {"named": True}, {"in_window": True}, {"activation": 0.6},
                   {"access_count": 3}, {"importance": 0.9}, {"event_date": NOW - timedelta(days=1)}):
        assert score(signals(**change), STATS, BALANCED, NOW).score > base, change


def test_vector_preset_scores_by_similarity_alone() -> None:
    assert score(signals(similarity=0.42, text=9.0), STATS, VECTOR, NOW).score == pytest.approx(0.42)


def test_every_factor_is_reported() -> None:
    factors = score(signals(), STATS, BALANCED, NOW).factors
    for name in ("similarity", "text", "named", "in_window", "activation", "recency", "frequency", "importance",
                 "relevance", "recency_term", "frequency_term", "importance_term", "prior", "score"):
        assert name in factors


def test_priors_never_overturn_a_clear_relevance_margin() -> None:
    """The most favourable priors (fresh, often read, important) against the least favourable
    (years old, never read, unimportant) move a score by at most prior_span."""
    best = dict(event_date=NOW, access_count=10**6, importance=1.0)
    worst = dict(event_date=NOW - timedelta(days=3650), access_count=0, importance=0.0)
    span = prior_span(BALANCED)
    assert 0 < span < 0.5
    strong = score(signals(similarity=0.8, **worst), STATS, BALANCED, NOW)
    weak = score(signals(similarity=0.8 - (span + 0.01) * STATS.sim_std, **best), STATS, BALANCED, NOW)
    assert strong.factors["relevance"] - weak.factors["relevance"] > span
    assert strong.score > weak.score
    # a near-tie is theirs to break
    tied = score(signals(similarity=0.8 - 0.01 * STATS.sim_std, **best), STATS, BALANCED, NOW)
    assert tied.score > strong.score


def test_no_saturation_strong_matches_stay_apart() -> None:
    a = score(signals(similarity=0.95, text=6.0, activation=1.0), STATS, BALANCED, NOW)
    b = score(signals(similarity=0.80, text=6.0, activation=1.0), STATS, BALANCED, NOW)
    assert a.score - b.score == pytest.approx(a.factors["relevance"] - b.factors["relevance"])
    assert a.score - b.score > 0.5


def test_one_matching_word_far_in_meaning_has_a_bounded_say() -> None:
    stats = pool_stats([0.2, 0.5, 0.8, 0.5, 0.4, 0.6, 0.5, 0.5], [0.0] * 7 + [4.5])  # most units match nothing
    far_word = score(signals(similarity=0.35, text=4.5, single_term=True), stats, BALANCED, NOW)
    close_answer = score(signals(similarity=0.8, text=0.0), stats, BALANCED, NOW)
    assert far_word.factors["direct"] < close_answer.factors["direct"]
    unbounded = score(signals(similarity=0.35, text=4.5), stats, BALANCED, NOW)  # two terms matched
    assert unbounded.factors["direct"] > close_answer.factors["direct"]
    near_word = score(signals(similarity=0.6, text=4.5, single_term=True), stats, BALANCED, NOW)
    assert near_word.factors["direct"] == pytest.approx(
        score(signals(similarity=0.6, text=4.5), stats, BALANCED, NOW).factors["direct"])
