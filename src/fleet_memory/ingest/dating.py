"""The event time a unit's text names: "She moved to Berlin in March 2024." happened in March 2024,
whatever day it was put. The shared parser (``language.find_dates``, with days without a year) reads
the text relative to the put's time; the first expression that names a day or a month (a calendar
date, "in May", "yesterday", "last Friday", "3 days ago", "on 3 May") and does not contain the put's
time ("today", "this morning" change nothing) sets the unit's event date to the start of its window
— a day keeps the put's time of day — provided it is not after the put (a future date is an
appointment, not an event: it stays in the text) and, for a date without a year, its clause does not
speak of the future ("will", "going to", "due", a verb in the present progressive: "She's going on
maternity leave in April" said in August is next April, though last April is nearer). A month
without a year is the nearer of the last and the next such month ("leaving in January" said in
December is next January: not dated); a day without a year counts only after "on" ("on 3 May", not
"her birthday is 9 August"). Weeks, years and "N months ago" are too wide to date an event and are
left alone. The unit's text keeps its words; the put's time goes to metadata (``put_at``) with the
words matched (``date_phrase``). Pure; linear in the text.
"""

from __future__ import annotations

import re
from datetime import MAXYEAR, datetime, timedelta

from ..language import find_dates

__all__ = ["named_event_date"]


_CLAUSE_CHARS = 200  # how far back a date's clause is read: each date costs the same, however long the text
_CLAUSE_END = re.compile(r"[.!?;:,\u2014\u2013]|\s-\s|\b(?:but|and|so|because)\b", re.IGNORECASE)
# "due" but not "due to the storm" or "was due"; "'s" only after a pronoun ("Tom's wedding" is no verb)
_FUTURE = re.compile(r"\b(will|shall|going to|gonna|about to|plan(s|ning)? to|hop(e|es|ing) to)\b|'ll\b"
                     r"|(?<!was )(?<!were )\bdue\b(?! to\b)"
                     r"|(\b(am|is|are)|'m|'re|\b(he|she|it|that|there|who)'s)\s+(\w+ly\s+)?\w+ing\b", re.IGNORECASE)
_PAST_WORDS = re.compile(r"\b(yesterday|last|ago)\b", re.IGNORECASE)


def _future_before(before: str) -> bool:
    """Whether the clause a date phrase closes speaks of the future: "will", "going to", "due", a
    verb in the present progressive ("we're moving in May", "she's going on leave in April")."""
    clause = _CLAUSE_END.split(before.replace("\u2019", "'"))[-1]
    return _FUTURE.search(clause) is not None


def named_event_date(text: str, put_at: datetime) -> tuple[datetime, str] | None:
    """``(event date, words)`` the text names, or ``None`` (see the module docstring)."""
    naive = put_at.replace(tzinfo=None)
    for found in find_dates(text, put_at, partial_days=True):
        if found.unit not in ("day", "month") or (found.unit == "month" and found.relative
                                                   and not found.phrase.startswith(("in ", "during "))):
            continue  # "last month", "3 months ago": too wide
        if found.start <= naive < found.end:
            continue
        if found.relative and found.unit == "month":
            ahead = None if found.start.year == MAXYEAR else found.start.replace(year=found.start.year + 1)
            if ahead is None or ahead - naive < naive - found.end:
                continue  # "leaving in January" said in December: next January (none after 9999), not last
        if found.relative and found.unit == "day" and any(c.isdigit() for c in found.phrase) and \
                not text[:found.position].lower().rstrip().endswith("on"):
            continue  # "her birthday is 9 August": a date, not when something happened
        if found.relative and not _PAST_WORDS.search(found.phrase) and \
                _future_before(text[max(0, found.position - _CLAUSE_CHARS):found.position]):
            continue  # "She's going on maternity leave in April": when it will happen, not when it did
        if found.unit == "day":
            when = found.start + timedelta(hours=naive.hour, minutes=naive.minute, seconds=naive.second)
        else:
            when = found.start
        if when > naive:
            continue
        return when.replace(tzinfo=put_at.tzinfo), found.phrase
    return None
