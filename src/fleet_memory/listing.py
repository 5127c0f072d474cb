"""The filters of an agent's memory list (``FleetMemory.list_units``), each checked before any
query: bad input raises ``InvalidInputError`` naming the filter and its limit.

The list shares ``store.tables.filters.UnitFilter`` with search, so a filter means the same in
both: ``types``, ``user_id``, ``session_id``, ``since`` / ``until`` (event date, inclusive),
``tags`` (every one of them), ``metadata`` (each key equal to its value), ``include_archived``,
``include_superseded`` (``False`` hides units superseded by now) and ``q``, full text in web
search syntax (words, ``"a phrase"``, ``-word``, ``or``) over the unit's text with English
stemming; a ``q`` of stop words only matches nothing.
"""

from __future__ import annotations

from datetime import datetime

from .config import Limits
from .errors import InvalidInputError
from .recall.request import check_metadata_filter
from .store import UnitFilter
from .validation import check_date, check_memory_types, check_optional_text, check_tags, check_user_id

__all__ = ["listing_filter"]


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(name, f"is {value!r}", "true or false")
    return value


def _text_query(value: object, limits: Limits) -> str | None:
    text = check_optional_text(value, "q", limits.max_query_chars)
    return text if text is not None and text.strip() else None


def _dates(since: object, until: object) -> tuple[datetime | None, datetime | None]:
    start, end = check_date(since, "since"), check_date(until, "until")
    if None not in (start, end) and start > end:
        raise InvalidInputError("until", f"{end.isoformat()} is before since {start.isoformat()}",
                                "until on or after since")
    return start, end


def listing_filter(limits: Limits, now: datetime, *, types: object = None, user_id: object = None,
                   session_id: object = None, since: object = None, until: object = None, tags: object = None,
                   metadata: object = None, include_archived: object = False, include_superseded: object = True,
                   q: object = None) -> UnitFilter:
    """The checked ``UnitFilter`` of a memory list at ``now`` (the module's docstring)."""
    start, end = _dates(since, until)
    return UnitFilter(
        types=check_memory_types(types) or None,
        user_id=check_user_id(user_id, limits),
        session_id=check_user_id(session_id, limits, "session_id"),
        since=start,
        until=end,
        tags=check_tags(tags, limits) or None,
        metadata=check_metadata_filter(metadata, limits),
        include_archived=_flag(include_archived, "include_archived"),
        current_at=None if _flag(include_superseded, "include_superseded") else now,
        text_query=_text_query(q, limits),
    )
