"""Time windows named in a query ("yesterday", "last week", "in May 2023", "two years ago").

``time_window(query, now)`` returns the ``[start, end)`` window of the first expression it
recognises, or ``None``. Pure and rule-based (a few regular expressions, no model): it runs on
every search, so it must cost microseconds. Recognised, relative to ``now`` (UTC):

- today, tonight, this morning/afternoon/evening → that day; yesterday, last night → the day before
- this/last week, weekend, month, year → the calendar period (weeks start on Monday)
- ``N days|weeks|months|years ago`` (digits or number words, "a", "a couple of") → a window one unit
  wide centred on ``now − N units``
- ``in May 2023``, ``May 2023``, ``in May`` (the latest May not after ``now``), ``in 2023``
- ``on 7 May 2023``, ``May 7, 2023``, ``2023-05-07`` → that day
- ``last Monday`` … ``last Sunday`` → the latest such day before today

Anything else (including "recently", which names no window) gives ``None``.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import datetime, timedelta
from ..model import TimeWindow

__all__ = ["time_window"]


_MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"])}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3,
    "couple of": 2, "few": 3, "several": 3,
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_NUM_RE = "|".join(sorted((re.escape(n) for n in _NUMBERS), key=len, reverse=True))

_AGO = re.compile(rf"\b(\d+|{_NUM_RE})\s+(day|week|month|year)s?\s+ago\b")
_THIS_LAST = re.compile(r"\b(this|last|past|previous)\s+(week|weekend|month|year)\b")
_DAY_WORDS = re.compile(r"\b(today|tonight|this morning|this afternoon|this evening|yesterday|last night)\b")
_LAST_WEEKDAY = re.compile(r"\blast\s+(" + "|".join(_DAYS) + r")\b")
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\.?,?\s+(?:of\s+)?(\d{{4}})\b")
_IN_MONTH = re.compile(rf"\b(?:in|during)\s+({_MONTH_RE})\b")
_IN_YEAR = re.compile(r"\b(?:in|during|of)\s+((?:19|20)\d{2})\b")


def _day(when: datetime) -> datetime:
    return when.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_window(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=None)
    end = start + timedelta(days=monthrange(year, month)[1])
    return start, end


def _add_months(when: datetime, months: int) -> datetime:
    index = when.year * 12 + (when.month - 1) + months
    year, month = divmod(index, 12)
    day = min(when.day, monthrange(year, month + 1)[1])
    return when.replace(year=year, month=month + 1, day=day)


Found = list[tuple[int, TimeWindow]]  # (position in the query, window)


def time_window(query: str, now: datetime) -> TimeWindow | None:
    """The window of the first time expression in ``query`` (see the module docstring)."""
    text = query.lower()
    tz = now.tzinfo
    today = _day(now).replace(tzinfo=None)

    def win(start: datetime, end: datetime, phrase: str) -> TimeWindow:
        return TimeWindow(start.replace(tzinfo=tz), end.replace(tzinfo=tz), phrase)

    found = _dates(text, today, win)
    found += _days(text, today, win) + _periods(text, today, win) + _ago(text, now.replace(tzinfo=None), today, win)
    if not found:
        return None
    return min(found, key=lambda item: item[0])[1]


def _dates(text: str, today: datetime, win) -> Found:
    """Calendar dates: a day (ISO, "7 May 2023", "May 7, 2023"), else a month or a year."""
    found: Found = []
    if m := _ISO_DAY.search(text):
        try:
            start = datetime(int(m[1]), int(m[2]), int(m[3]))
            found.append((m.start(), win(start, start + timedelta(days=1), m[0])))
        except ValueError:
            pass
    for pattern, order in ((_DAY_MONTH_YEAR, (1, 2, 3)), (_MONTH_DAY_YEAR, (2, 1, 3))):
        if m := pattern.search(text):
            day, month, year = int(m[order[0]]), _MONTHS[m[order[1]]], int(m[order[2]])
            try:
                start = datetime(year, month, day)
                found.append((m.start(), win(start, start + timedelta(days=1), m[0])))
            except ValueError:
                pass
    if found:
        return found
    if m := _MONTH_YEAR.search(text):
        start, end = _month_window(int(m[2]), _MONTHS[m[1]])
        found.append((m.start(), win(start, end, m[0])))
    elif m := _IN_MONTH.search(text):
        month = _MONTHS[m[1]]
        start, end = _month_window(today.year if month <= today.month else today.year - 1, month)
        found.append((m.start(), win(start, end, m[0])))
    if m := _IN_YEAR.search(text):
        year = int(m[1])
        found.append((m.start(), win(datetime(year, 1, 1), datetime(year + 1, 1, 1), m[0])))
    return found


def _days(text: str, today: datetime, win) -> Found:
    """today / yesterday / last night and friends; "last Monday"."""
    found: Found = []
    if m := _DAY_WORDS.search(text):
        start = today - timedelta(days=1) if m[1] in ("yesterday", "last night") else today
        found.append((m.start(), win(start, start + timedelta(days=1), m[0])))
    if m := _LAST_WEEKDAY.search(text):
        back = (today.weekday() - _DAYS.index(m[1])) % 7 or 7
        start = today - timedelta(days=back)
        found.append((m.start(), win(start, start + timedelta(days=1), m[0])))
    return found


def _periods(text: str, today: datetime, win) -> Found:
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
    return [(m.start(), win(start, end, m[0]))]


def _ago(text: str, now: datetime, today: datetime, win) -> Found:
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
    return [(m.start(), win(start, end, m[0]))]
