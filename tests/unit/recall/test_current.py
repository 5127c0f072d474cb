"""What is current (recall/current.py): which questions ask about the past, and how the current
version of a stale unit takes its place. Pure functions, no database."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from fleet_memory.model import TimeWindow
from fleet_memory.recall.current import (
    ABOVE_MEDIAN,
    DEMOTION_MARGIN,
    asks_about_past,
    demote_below_successors,
    promote_successors,
    trusted_links,
)

NOW = datetime(2025, 6, 16, tzinfo=timezone.utc)
APRIL = TimeWindow(datetime(2025, 4, 1, tzinfo=timezone.utc), datetime(2025, 5, 1, tzinfo=timezone.utc), "in April")


@pytest.mark.parametrize(("query", "window", "past"), [
    ("Where does Ines live?", None, False),
    ("Where did Ines live before?", None, True),
    ("What was my job before the clinic?", None, True),
    ("What did I do in April?", APRIL, True),  # a window that has ended
    ("Am I still going to Kyoto in April?", APRIL, False),  # ... unless the question says "still"
    ("What is my diet these days, after April?", APRIL, False),
    ("Is my number now the one I had before April?", APRIL, True),  # a past cue in the words wins
])
def test_asks_about_past(query, window, past) -> None:
    assert asks_about_past(query, window, NOW) is past


def test_the_current_version_takes_the_stale_units_score() -> None:
    scores = {"harlow": 8.4, "notice": 2.0, "clinic": -0.1, "other": 3.0}
    current = {"harlow": "clinic", "notice": "clinic"}
    promoted = promote_successors(scores, current)
    assert promoted == {"clinic": 8.4}
    demoted = demote_below_successors({**scores, **promoted}, current)
    assert demoted == {"harlow": pytest.approx(8.4 - DEMOTION_MARGIN)}  # notice is below already


def test_a_current_version_already_ahead_is_not_moved() -> None:
    assert promote_successors({"old": 1.0, "new": 5.0}, {"old": "new"}) == {}


def test_a_current_version_that_was_not_scored_promotes_nothing() -> None:
    assert promote_successors({"old": 1.0}, {"old": "new"}) == {}


def test_a_link_is_followed_only_to_a_relevant_successor() -> None:
    relevance = {"lisbon": 2.0, "porto": 1.0, "flat": -1.2, "a": 0.4, "b": -0.3, "c": 0.1}
    current = {"lisbon": "porto", "job": "flat"}
    assert trusted_links(relevance, current) == {"lisbon": "porto"}  # job unranked, flat below the median
    assert trusted_links({**relevance, "job": 1.9}, {"job": "flat"}) == {}


def test_a_successor_far_below_its_predecessor_is_trusted_clear_of_the_background() -> None:
    background = {"a": -2.0, "b": -1.0, "c": 0.0, "d": 0.5, "e": 1.0}  # median 0.0
    assert trusted_links({**background, "old": 9.0, "new": ABOVE_MEDIAN}, {"old": "new"}) == {"old": "new"}
    assert trusted_links({**background, "old": 9.0, "new": ABOVE_MEDIAN - 0.01}, {"old": "new"}) == {}


def test_in_a_pool_of_three_the_new_value_above_the_chatter_is_trusted() -> None:
    assert trusted_links({"old": 3.0, "new": 1.0, "chatter": -2.0}, {"old": "new"}) == {"old": "new"}
    assert trusted_links({"old": 3.0, "new": -1.9, "chatter": -2.0}, {"old": "new"}) == {}
