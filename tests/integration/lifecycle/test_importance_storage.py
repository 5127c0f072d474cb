"""Importance is scored at storage by its rules (``lifecycle.importance``) unless the caller gives one."""

import pytest

from fleet_memory import Config, FleetMemory
from fleet_memory.config import LifecycleConfig
from fleet_memory.lifecycle.importance import score_importance
from fleet_memory.providers.embedder import HashingEmbedder


def test_put_scores_missing_importance_and_keeps_explicit_ones(memory, clock):
    plain = memory.get("a1", memory.put("a1", "The team moved the standup to Tuesday.").unit_ids[0])
    urgent = memory.get("a1", memory.put("a1", "An urgent warning: the critical billing job hit an error.",
                                         tags=["explicit_remember"]).unit_ids[0])
    given = memory.get("a1", memory.put("a1", "A critical error stopped the billing job.", importance=0.35)
                       .unit_ids[0])
    assert plain.importance == pytest.approx(0.5 + len(plain.text) / 1000, abs=1e-6)
    assert urgent.importance == 1.0  # 0.5 + 0.3 (keywords, capped) + 0.056 + 0.3 (explicit), capped
    assert urgent.importance == pytest.approx(score_importance(urgent.text, urgent.tags))
    assert given.importance == pytest.approx(0.35)
    assert plain.importance_set_at == urgent.importance_set_at == clock.now()


def test_configured_keywords_are_used_at_storage(db_url, clock):
    config = Config(database_url=db_url, lifecycle=LifecycleConfig(emotional_keywords=("birthday",)))
    with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as memory:
        unit = memory.get("a1", memory.put("a1", "Alice had a birthday party with a critical error.").unit_ids[0])
    assert unit.importance == pytest.approx(0.6 + len(unit.text) / 1000, abs=1e-6)
