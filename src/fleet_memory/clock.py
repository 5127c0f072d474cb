"""Injectable time. Everything that depends on "now" (recency, decay, reinforcement) asks a clock,
so tests move time instead of waiting."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Protocol

__all__ = ["Clock", "FixedClock", "SystemClock", "as_utc", "shifted"]


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock, always timezone-aware UTC."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)


@dataclass
class FixedClock:
    """A clock that only moves when told to."""

    current: datetime = field(default_factory=lambda: datetime(2025, 1, 1, tzinfo=timezone.utc))

    def now(self) -> datetime:
        return self.current

    def advance(self, **delta: float) -> datetime:
        self.current = self.current + timedelta(**delta)
        return self.current

    def set(self, when: datetime) -> None:
        self.current = as_utc(when)


def as_utc(when: datetime) -> datetime:
    """The rule for dates everywhere: a naive datetime means UTC; an aware one is converted."""
    if when.tzinfo is None:
        return when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc)


def shifted(when: datetime, delta: timedelta) -> datetime:
    """``when + delta``, stopped at the calendar's ends (years 1 and 9999) instead of raising
    ``OverflowError``: a window or bound that would reach past them is clamped there."""
    try:
        return when + delta
    except OverflowError:
        edge = datetime.max if delta > timedelta(0) else datetime.min
        return edge.replace(tzinfo=when.tzinfo)
