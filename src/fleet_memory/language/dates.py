"""Date expressions in English text ("yesterday", "last week", "in May 2023", "on 3 May", "two
years ago"), shared by recall (time windows named in a query) and ingestion (the event time a
stored sentence names).

``find_dates(text, now)`` returns every recognised expression as a ``DateExpression``: its
``[start, end)`` window (naive local datetimes), its position in the text, the words matched and
its ``unit`` ("day", "week", "month", "year"). Pure and rule-based (a few regular expressions, no
model): it runs on every search and every put, so it costs microseconds; linear in the text.
Recognised, relative to ``now``:

- today, tonight, this morning/afternoon/evening → that day; yesterday, last night → the day before
- this/last week, weekend, month, year → the calendar period (weeks start on Monday)
- ``N days|weeks|months|years ago`` (digits or number words, "a", "a couple of") → a window one unit
  wide centred on ``now − N units``
- ``in May 2023``, ``May 2023``, ``in May`` (the latest May not after ``now``), ``in 2023``
- ``on 7 May 2023``, ``May 7, 2023``, ``2023-05-07`` → that day
- with ``partial_days``: ``on 7 May``, ``May 7th`` (no year) → that day, in the year that puts it
  nearest to ``now`` (ingestion: "the engineer is coming on 2 April" said in March)
- ``last Monday`` … ``last Sunday`` → the latest such day before today

``relative`` tells whether the expression depends on ``now`` (yesterday, last week, 3 days ago,
in May) rather than naming a calendar date. Anything else ("recently") is not an expression, and
neither is one whose window would reach before year 1 or after year 9999 (``datetime``'s range:
"last week" on 0001-01-01, "May 0000"), nor the others its kind of rule found in the same text.
"""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import datetime, timedelta

from .months import MONTHS

__all__ = ["DAY_NAMES", "DateExpression", "find_dates"]

DAY_NAMES: tuple[str, ...] = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3,
    "couple of": 2, "few": 3, "several": 3,
}
_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_NUM_RE = "|".join(sorted((re.escape(n) for n in _NUMBERS), key=len, reverse=True))

_AGO = re.compile(rf"\b(\d+|{_NUM_RE})\s+(day|week|month|year)s?\s+ago\b")
_THIS_LAST = re.compile(r"\b(this|last|past|previous)\s+(week|weekend|month|year)\b")
_DAY_WORDS = re.compile(r"\b(today|tonight|this morning|this afternoon|this evening|yesterday|last night)\b")
_LAST_WEEKDAY = re.compile(r"\blast\s+(" + "|".join(DAY_NAMES) + r")\b")
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b(?!\.?,?\s+\d)")
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!,?\s+\d|\d|:)")
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\.?,?\s+(?:of\s+)?(\d{{4}})\b")
_IN_MONTH = re.compile(rf"\b(?:in|during)\s+({_MONTH_RE})\b")
_IN_YEAR = re.compile(r"\b(?:in|during|of)\s+((?:19|20)\d{2})\b")


@dataclass(frozen=True, slots=True)
class DateExpression:
    """One date expression: its window ``[start, end)``, where it starts in the text, the words
    matched, its unit (day, week, month, year) and whether it is relative to ``now``."""

    start: datetime
    end: datetime
    phrase: str
    position: int
    unit: str
    relative: bool


def _day(when: datetime) -> datetime:
    return when.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)


def _month_window(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1)
    return start, start + timedelta(days=monthrange(year, month)[1])


def _add_months(when: datetime, months: int) -> datetime:
    index = when.year * 12 + (when.month - 1) + months
    year, month = divmod(index, 12)
    day = min(when.day, monthrange(year, month + 1)[1])
    return when.replace(year=year, month=month + 1, day=day)


def find_dates(text: str, now: datetime, *, partial_days: bool = False) -> list[DateExpression]:
    """Every date expression of ``text`` (see the module docstring), in text order."""
    low = text.lower()
    today = _day(now)
    found: list[DateExpression] = []
    for finder, args in ((_dates, (low, today, partial_days)), (_days, (low, today)), (_periods, (low, today)),
                         (_ago, (low, now.replace(tzinfo=None), today))):
        try:
            found += finder(*args)
        except (OverflowError, ValueError):
            continue  # its window lies past year 1 or 9999 ("last year" in year 1): no date there
    return sorted(found, key=lambda e: e.position)


def _one_day(start: datetime, m: re.Match, relative: bool) -> DateExpression:
    return DateExpression(start, start + timedelta(days=1), m[0], m.start(), "day", relative)


def _dates(text: str, today: datetime, partial_days: bool) -> list[DateExpression]:
    """Calendar dates: a day (ISO, "7 May 2023", "May 7, 2023"), else a month or a year."""
    found: list[DateExpression] = []
    if m := _ISO_DAY.search(text):
        try:
            found.append(_one_day(datetime(int(m[1]), int(m[2]), int(m[3])), m, False))
        except ValueError:
            pass
    for pattern, order in ((_DAY_MONTH_YEAR, (1, 2, 3)), (_MONTH_DAY_YEAR, (2, 1, 3))):
        if m := pattern.search(text):
            try:
                found.append(_one_day(datetime(int(m[order[2]]), MONTHS[m[order[1]]], int(m[order[0]])), m, False))
            except ValueError:
                pass
    if partial_days and not found:
        found += _partial_days(text, today)
    if found:
        return found
    if m := _MONTH_YEAR.search(text):
        start, end = _month_window(int(m[2]), MONTHS[m[1]])
        found.append(DateExpression(start, end, m[0], m.start(), "month", False))
    elif m := _IN_MONTH.search(text):
        month = MONTHS[m[1]]
        start, end = _month_window(today.year if month <= today.month else today.year - 1, month)
        found.append(DateExpression(start, end, m[0], m.start(), "month", True))
    if m := _IN_YEAR.search(text):
        year = int(m[1])
        found.append(DateExpression(datetime(year, 1, 1), datetime(year + 1, 1, 1), m[0], m.start(), "year", False))
    return found


def _partial_days(text: str, today: datetime) -> list[DateExpression]:
    """"7 May" / "May 7th" without a year: the nearest such day to ``today``."""
    for pattern, order in ((_DAY_MONTH, (1, 2)), (_MONTH_DAY, (2, 1))):
        m = pattern.search(text)
        if not m or (pattern is _MONTH_DAY and m[1] == "may" and not m[0][3:].strip()[:1].isdigit()):
            continue
        day, month = int(m[order[0]]), MONTHS[m[order[1]]]
        options = []
        for year in (today.year - 1, today.year, today.year + 1):
            try:
                options.append(datetime(year, month, day))
            except ValueError:
                pass
        if options:
            return [_one_day(min(options, key=lambda d: abs(d - today)), m, True)]
    return []


def _days(text: str, today: datetime) -> list[DateExpression]:
    """today / yesterday / last night and friends; "last Monday"."""
    found: list[DateExpression] = []
    if m := _DAY_WORDS.search(text):
        start = today - timedelta(days=1) if m[1] in ("yesterday", "last night") else today
        found.append(_one_day(start, m, True))
    if m := _LAST_WEEKDAY.search(text):
        back = (today.weekday() - DAY_NAMES.index(m[1])) % 7 or 7
        found.append(_one_day(today - timedelta(days=back), m, True))
    return found


def _periods(text: str, today: datetime) -> list[DateExpression]:
    """this / last week, weekend, month, year: the calendar period."""
    m = _THIS_LAST.search(text)
    if not m:
        return []
    unit, last = m[2], m[1] != "this"
    if unit == "week":
        start = today - timedelta(days=today.weekday()) - timedelta(days=7 if last else 0)
        end = start + timedelta(days=7)
    elif unit == "weekend":
        saturday = today - timedelta(days=(today.weekday() - 5) % 7)
        if last and saturday >= today - timedelta(days=1):
            saturday -= timedelta(days=7)
        start, end = saturday, saturday + timedelta(days=2)
    elif unit == "month":
        first = today.replace(day=1)
        start = _add_months(first, -1) if last else first
        end = _add_months(start, 1)
    else:
        year = today.year - (1 if last else 0)
        start, end = datetime(year, 1, 1), datetime(year + 1, 1, 1)
    return [DateExpression(start, end, m[0], m.start(), "week" if unit == "weekend" else unit, True)]


def _ago(text: str, now: datetime, today: datetime) -> list[DateExpression]:
    """N days / weeks / months / years ago: a window one unit wide around that time."""
    m = _AGO.search(text)
    if not m:
        return []
    count = int(m[1]) if m[1].isdigit() else _NUMBERS[m[1]]
    unit = m[2]
    if unit == "day":
        start = today - timedelta(days=count)
        end = start + timedelta(days=1)
    elif unit == "week":
        centre = now - timedelta(weeks=count)
        start, end = centre - timedelta(days=3.5), centre + timedelta(days=3.5)
    elif unit == "month":
        centre = _add_months(now, -count)
        start, end = centre - timedelta(days=15), centre + timedelta(days=15)
    else:
        leap_day = now.month == 2 and now.day == 29
        centre = now.replace(year=now.year - count, day=28 if leap_day else now.day)
        start, end = centre - timedelta(days=183), centre + timedelta(days=183)
    return [DateExpression(start, end, m[0], m.start(), unit, True)]
