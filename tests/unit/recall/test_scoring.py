"""Scoring factors: the seed's recency and frequency, importance, and the fused relevance."""

import math
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from fleet_memory.recall.presets import BALANCED, VECTOR
from fleet_memory.recall.scoring import Signals, pool_stats, score

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
                 "relevance", "score"):
        assert name in factors
