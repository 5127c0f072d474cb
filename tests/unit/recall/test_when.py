"""Time windows named in queries, relative to a given now."""

from datetime import datetime, timezone

import pytest

from fleet_memory.recall.when import time_window

NOW = datetime(2024, 3, 13, 15, 30, tzinfo=timezone.utc)  # a Wednesday


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What did I do yesterday?", utc(2024, 3, 12), utc(2024, 3, 13)),
        ("anything today", utc(2024, 3, 13), utc(2024, 3, 14)),
        ("What happened last week?", utc(2024, 3, 4), utc(2024, 3, 11)),
        ("plans this week", utc(2024, 3, 11), utc(2024, 3, 18)),
        ("last month's trip", utc(2024, 2, 1), utc(2024, 3, 1)),
        ("What did Alice do in May 2023?", utc(2023, 5, 1), utc(2023, 6, 1)),
        ("in May", utc(2023, 5, 1), utc(2023, 6, 1)),
        ("in March", utc(2024, 3, 1), utc(2024, 4, 1)),
        ("Who did Maria have dinner with on May 3, 2023?", utc(2023, 5, 3), utc(2023, 5, 4)),
        ("on 7 May 2023", utc(2023, 5, 7), utc(2023, 5, 8)),
        ("on 2023-05-07", utc(2023, 5, 7), utc(2023, 5, 8)),
        ("what happened in 2022", utc(2022, 1, 1), utc(2023, 1, 1)),
        ("last year", utc(2023, 1, 1), utc(2024, 1, 1)),
        ("three days ago", utc(2024, 3, 10), utc(2024, 3, 11)),
        ("last Monday", utc(2024, 3, 11), utc(2024, 3, 12)),
    ],
)
def test_windows(query: str, start: datetime, end: datetime) -> None:
    window = time_window(query, NOW)
    assert window is not None
    assert (window.start, window.end) == (start, end)


def test_two_years_ago_is_a_year_wide_window_around_that_date() -> None:
    window = time_window("What was Bob doing two years ago?", NOW)
    assert window is not None
    assert window.start < utc(2022, 3, 13) < window.end
    assert 360 <= (window.end - window.start).days <= 370


def test_weeks_ago_centres_on_that_day() -> None:
    window = time_window("a couple of weeks ago", NOW)
    assert window is not None
    assert window.start < utc(2024, 2, 28) < window.end


@pytest.mark.parametrize("query", ["What does Alice do?", "recently", "Who is May?", "the 2000 meters race"])
def test_no_window(query: str) -> None:
    assert time_window(query, NOW) is None
