"""Time windows named in a query ("yesterday", "last week", "in May 2023", "two years ago").

``time_window(query, now)`` returns the ``[start, end)`` window of the first date expression the
shared parser (``language.find_dates``, which lists what it recognises) finds in the query, in
``now``'s time zone, or ``None``. Pure and rule-based: it runs on every search, so it must cost
microseconds. Days without a year ("on 7 May") are not read in queries.
"""

from __future__ import annotations

from datetime import datetime

from ..language import find_dates
from ..model import TimeWindow

__all__ = ["time_window"]


def time_window(query: str, now: datetime) -> TimeWindow | None:
    """The window of the first time expression in ``query`` (see the module docstring)."""
    found = find_dates(query, now)
    if not found:
        return None
    first = found[0]
    tz = now.tzinfo
    return TimeWindow(first.start.replace(tzinfo=tz), first.end.replace(tzinfo=tz), first.phrase)
