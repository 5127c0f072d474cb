"""The forgetting curve (``maintainMemoryHealth`` of the lifecycle design, docs/concepts.md), as a
pure function.

    effective = importance × exp(−rate × days)

``importance`` is the stored *base* importance, ``days`` the time from the last access (or from
creation when the unit was never accessed) to ``now``, never negative. ``rate`` is
``LifecycleConfig.procedural_decay_rate`` (0.005 per day) for procedural units and
``LifecycleConfig.decay_rate`` (0.02) for the others. A unit whose effective importance is below
``LifecycleConfig.archive_below`` (0.1) is archived.

Unlike the design's loop, which writes the decayed value back and so decays again on every run, nothing
here is written: the curve is recomputed from the base and the access time each time, so
maintenance can run any number of times at the same ``now`` with the same outcome. An access
(recall reinforcement) or a restore moves ``last_accessed`` and starts a fresh curve. The same
formula runs in SQL for recall's ``min_importance`` filter (``store.tables.filters``).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Protocol

from ..config import LifecycleConfig
from ..model import MemoryType

__all__ = ["Fading", "decay_rate", "effective_importance", "should_archive"]

_SECONDS_PER_DAY = 86_400.0


def decay_rate(memory_type: MemoryType | str, config: LifecycleConfig) -> float:
    kind = memory_type.value if isinstance(memory_type, MemoryType) else str(memory_type)
    return config.procedural_decay_rate if kind == MemoryType.PROCEDURAL.value else config.decay_rate


class Fading(Protocol):
    """What the curve reads of a unit: a stored ``MemoryUnit`` or a row maintenance locked."""

    importance: float
    memory_type: MemoryType | str
    created_at: datetime
    last_accessed: datetime | None


def effective_importance(unit: Fading, now: datetime, config: LifecycleConfig) -> float:
    """The base importance decayed along the curve from the last access (or creation) to ``now``."""
    start = unit.last_accessed if unit.last_accessed is not None else unit.created_at
    days = max(0.0, (now - start).total_seconds() / _SECONDS_PER_DAY)
    return float(unit.importance) * math.exp(-decay_rate(unit.memory_type, config) * days)


def should_archive(unit: Fading, now: datetime, config: LifecycleConfig) -> bool:
    return effective_importance(unit, now, config) < config.archive_below
