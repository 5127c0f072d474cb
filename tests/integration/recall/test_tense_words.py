"""Words that only say when are not content, and one word far in meaning does not carry a unit to
rank 1, with the real embedding model: "these days" must not find a unit
through "days", and a unit whose only tie to the question is one common word stays below the
answer."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

pytestmark = pytest.mark.models

AGENT = "assistant"
NOW = datetime(2025, 5, 1, tzinfo=timezone.utc)
MESSAGES = [
    "I've switched to a plant-based diet, mostly lentils, tofu and oat milk.",
    "It took three days to get the washing dry in this weather.",
    "The train was cancelled so I worked from home all day.",
    "Booked the car in for its service on the ninth.",
    "The new sofa arrives on Thursday morning.",
    "Finished the crossword without any help for once.",
    "My phone screen cracked when I dropped it on the stairs.",
    "Ordered a birthday present for my nephew.",
    "The boiler is making that clicking noise again.",
    "Watched two episodes of the baking show last night.",
]


@pytest.fixture
def history(real_memory):
    for i, text in enumerate(MESSAGES):
        real_memory.put(AGENT, text, event_date=NOW - timedelta(days=40 - i))
    return real_memory


@pytest.mark.parametrize("question", ["What do I eat these days?", "What do I eat at the moment, nowadays?"])
def test_a_present_marker_finds_nothing_by_itself(history, question) -> None:
    results = history.search(AGENT, question, now=NOW, reinforce=False, explain=True)
    assert "plant-based" in results[0].text
    assert all(r.explanation.factors["text"] == 0.0 for r in results if "days" in r.text)


def test_one_common_word_far_in_meaning_stays_below_the_answer(history) -> None:
    results = history.search(AGENT, "Which food does my diet allow on a cheat day?", now=NOW, reinforce=False,
                             explain=True)
    assert "plant-based" in results[0].text
    day = next(r for r in results if "all day" in r.text)
    assert day.explanation.factors["direct"] < results[0].explanation.factors["direct"]
