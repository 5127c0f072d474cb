"""Dates at the documented edges (years 1 and 9999) give windows clamped to the calendar or no
window, never a 500. Before, each of these raised OverflowError or ValueError
from date arithmetic past year 1 or year 9999."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from fastapi.testclient import TestClient

from fleet_memory.language import find_dates
from fleet_memory.rest import create_app

FIRST = datetime(1, 1, 1, tzinfo=timezone.utc)
LAST = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)

PUTS = [("Alice moved to Paris.", "0001-01-01T00:00:00Z"),
        ("I moved house last year.", "0001-06-01T12:00:00Z"),
        ("The wedding is set for 9999-12-31.", "9999-12-30T12:00:00Z"),
        ("We met yesterday and again 3 days ago, in January.", "0001-01-02T00:00:00Z"),
        ("She leaves in January, on 3 January.", "9999-12-31T23:59:59Z")]

SEARCHES = [({"query": "What did I do last week?", "now": "0001-01-01T00:00:00Z"}),
            ({"query": "Where did Alice move?", "max_age_days": 365000, "now": "0001-01-01T00:00:00Z"}),
            ({"query": "What happened two years ago?", "now": "0001-06-01T00:00:00Z"}),
            ({"query": "Anything next to this year?", "now": "9999-12-31T23:59:59Z"}),
            ({"query": "What about last month, a few weeks ago?", "now": "0001-01-15T00:00:00Z"})]

PHRASES = ["today", "yesterday", "last night", "this week", "last week", "this weekend", "last weekend",
           "this month", "last month", "this year", "last year", "3 days ago", "two weeks ago",
           "a few months ago", "twelve years ago", "in May", "in January", "in December", "May 2023",
           "on 7 May", "on 31 December", "on 1 January", "0001-01-01", "9999-12-31", "last Monday",
           "last Sunday", "in 2023", "9999 years ago", "99999 days ago"]


@pytest.mark.parametrize("now", [FIRST, LAST, datetime(1, 12, 31, tzinfo=timezone.utc),
                                 datetime(9999, 1, 1, tzinfo=timezone.utc)])
def test_every_phrase_reads_at_the_calendar_edges(now) -> None:
    for phrase in PHRASES:
        for found in find_dates(f"It was {phrase}.", now, partial_days=True):
            assert datetime.min <= found.start <= found.end <= datetime.max


@pytest.mark.parametrize(("content", "when"), PUTS)
def test_a_put_at_the_edges_is_stored(memory, content, when) -> None:
    result = memory.put("a1", content, event_date=when)
    assert result.units
    assert all(FIRST <= memory.get("a1", u.id).event_date <= LAST for u in result.units)
    assert memory.search("a1", content, now=when)


@pytest.mark.parametrize("request_", SEARCHES)
def test_a_search_at_the_edges_answers(memory, request_) -> None:
    memory.put("a1", "Alice moved to Paris.", event_date="0001-01-01T00:00:00Z")
    options = {k: v for k, v in request_.items() if k != "query"}
    memory.search("a1", request_["query"], **options)


def test_rest_answers_at_the_edges(memory) -> None:
    with TestClient(create_app(memory, auth=False)) as client:
        for content, when in PUTS:
            done = client.post("/v1/agents/a1/memories", json={"content": content, "event_date": when})
            assert done.status_code == 201, (content, done.text)
        for request_ in SEARCHES:
            found = client.post("/v1/agents/a1/search", json=request_)
            assert found.status_code == 200, (request_, found.text)
