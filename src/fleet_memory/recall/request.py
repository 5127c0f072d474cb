"""``SearchRequest``: one validated search, built from the facade's keyword arguments."""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from ..clock import shifted
from ..config import Limits
from ..errors import InvalidInputError
from ..model import MemoryType
from ..store.tables.filters import UnitFilter
from .presets import BALANCED, RecallSettings, get_preset
from ..validation import (
    check_agent_id,
    check_date,
    check_memory_types,
    check_optional_text,
    check_positive_int,
    check_range,
    check_tags,
    check_text,
    check_top_k,
)

__all__ = ["SearchRequest", "build_request"]


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """``filters`` holds what every result must match, applied in SQL before ranking; the recaller
    adds the configured decay rates (``recall.search.unit_filter``)."""

    agent_id: str
    query: str
    top_k: int
    thinking_budget: int
    now: datetime
    filters: UnitFilter = field(default_factory=UnitFilter)
    reinforce: bool = True
    explain: bool = False
    settings: RecallSettings = field(default=BALANCED)

    @property
    def preset(self) -> str:
        return self.settings.name

    @property
    def as_of(self) -> datetime | None:
        return self.filters.as_of


def build_request(
    limits: Limits,
    clock_now: datetime,
    agent_id: object,
    query: object,
    *,
    top_k: object = 10,
    limit: object = None,
    thinking_budget: object = 100,
    types: object = None,
    min_importance: object = None,
    max_age_days: object = None,
    since: object = None,
    until: object = None,
    tags: object = None,
    user_id: object = None,
    session_id: object = None,
    include_archived: bool = False,
    metadata: object = None,
    reinforce: bool = True,
    explain: bool = False,
    preset: object = None,
    now: object = None,
    as_of: object = None,
    include_superseded: object = True,
) -> SearchRequest:
    """Check every option of ``search``; raise ``InvalidInputError`` naming the first bad one.

    ``top_k`` / ``limit``: results wanted (``limit`` is the lifecycle API's name for it); ``thinking_budget``: units
    the walk may explore; ``types``, ``min_importance`` (effective, decayed), ``max_age_days``,
    ``since`` / ``until`` (event date), ``tags`` (all of them), ``user_id``, ``session_id``,
    ``include_archived``, ``metadata`` (each key equal to its value): filters applied before
    ranking; ``reinforce``: count this recall as an access; ``explain``: add channels, link path and score factors; ``preset``: a preset name
    (``balanced``, ``fast``, ``deep``, ``vector``) or a ``RecallSettings``; ``now``: the reference
    time for recency, ``max_age_days`` and time words in the query (default: the clock); ``as_of`` and
    ``include_superseded``: what was current then, or hide superseded units (``recall.current``).
    """
    now = clock_now if now is None else check_date(now, "now")
    start, end = _event_range(now, since, until, max_age_days)
    return SearchRequest(
        agent_id=check_agent_id(agent_id, limits),
        query=check_text(query, "query", limits.max_query_chars),
        top_k=check_top_k(limit if limit is not None else top_k, limits, "limit" if limit is not None else "top_k"),
        thinking_budget=check_positive_int(thinking_budget, "thinking_budget", limits.max_thinking_budget),
        now=now,
        filters=UnitFilter(
            types=_type_names(check_memory_types(types)),
            min_importance=None if min_importance is None else check_range(min_importance, "min_importance", 0.0, 1.0),
            since=start, until=end,
            tags=check_tags(tags, limits) or None,
            user_id=check_optional_text(user_id, "user_id", limits.max_agent_id_chars),
            session_id=check_optional_text(session_id, "session_id", limits.max_agent_id_chars),
            include_archived=bool(include_archived), metadata=check_metadata_filter(metadata, limits), now=now,
            as_of=check_date(as_of, "as_of"),
            current_at=None if _check_bool(include_superseded, "include_superseded") else now,
        ),
        reinforce=bool(reinforce), explain=bool(explain), settings=get_preset(preset),
    )


def _type_names(types: tuple[MemoryType, ...] | None) -> tuple[str, ...] | None:
    return tuple(t.value for t in types) if types else None


def _check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(name, f"is {value!r}", "true or false")
    return value


def _event_range(now: datetime, since: object, until: object,
                 max_age_days: object) -> tuple[datetime | None, datetime | None]:
    """``since`` / ``until`` checked, ``since`` raised to ``now − max_age_days``; since <= until."""
    start, end = check_date(since, "since"), check_date(until, "until")
    if max_age_days is not None:
        oldest = shifted(now, -timedelta(days=check_range(max_age_days, "max_age_days", 0.0, 365_000.0)))
        start = oldest if start is None else max(start, oldest)
    if start is not None and end is not None and start > end:
        raise InvalidInputError("since", f"{start.isoformat()} is after until {end.isoformat()}", "since <= until")
    return start, end


MAX_METADATA_KEYS = 16


def check_metadata_filter(metadata: object, limits: Limits) -> tuple[tuple[str, Any], ...] | None:
    """``{key: value}`` with at most 16 keys, each 1–128 characters, each value a string, number,
    boolean or null; units match when every key equals its value."""
    if metadata is None:
        return None
    if not isinstance(metadata, Mapping):
        raise InvalidInputError("metadata", f"must be a mapping of key to value, got {type(metadata).__name__}")
    if len(metadata) > MAX_METADATA_KEYS:
        raise InvalidInputError("metadata", f"has {len(metadata)} keys", f"at most {MAX_METADATA_KEYS}")
    pairs = []
    for key, value in metadata.items():
        name = check_text(key, "metadata key", limits.max_tag_chars)
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise InvalidInputError(f"metadata.{name}", f"must be a string, number, boolean or null, "
                                    f"got {type(value).__name__}")
        if isinstance(value, str) and len(value) > limits.max_context_chars:
            raise InvalidInputError(f"metadata.{name}", f"has {len(value):,} characters",
                                    f"at most {limits.max_context_chars:,}")
        pairs.append((name, value))
    return tuple(pairs) or None
