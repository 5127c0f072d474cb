import math
from collections import namedtuple
from datetime import datetime, timedelta, timezone

import pytest

from fleet_memory.config import LifecycleConfig
from fleet_memory.lifecycle.decay import effective_importance, should_archive

Unit = namedtuple("Unit", "importance memory_type created_at last_accessed")

NOW = datetime(2025, 6, 1, tzinfo=timezone.utc)
CFG = LifecycleConfig()


def test_episodic_after_100_days_falls_below_threshold():
    last = NOW - timedelta(days=100)
    value = effective_importance(Unit(0.5, "episodic", last - timedelta(days=1), last), NOW, CFG)
    assert value == pytest.approx(0.5 * math.exp(-2))
    assert should_archive(Unit(0.5, "episodic", last, last), NOW, CFG)


def test_procedural_decays_four_times_slower():
    last = NOW - timedelta(days=100)
    assert effective_importance(Unit(0.5, "procedural", last, last), NOW, CFG) == pytest.approx(0.5 * math.exp(-0.5))
    assert not should_archive(Unit(0.5, "procedural", last, last), NOW, CFG)


def test_never_accessed_counts_from_creation():
    created = NOW - timedelta(days=10)
    assert effective_importance(Unit(0.8, "semantic", created, None), NOW, CFG) == pytest.approx(0.8 * math.exp(-0.2))


def test_future_start_does_not_raise_importance():
    assert effective_importance(Unit(0.4, "episodic", NOW + timedelta(days=3), None), NOW, CFG) == pytest.approx(0.4)


def test_configured_rates_are_used():
    cfg = LifecycleConfig(decay_rate=0.1, procedural_decay_rate=0.0)
    last = NOW - timedelta(days=10)
    assert effective_importance(Unit(1.0, "episodic", last, last), NOW, cfg) == pytest.approx(math.exp(-1))
    assert effective_importance(Unit(1.0, "procedural", last, last), NOW, cfg) == pytest.approx(1.0)
