"""Relevance orders, priors break near-ties (recall/scoring.py), with the real models: a short exact
answer is not pushed down by longer paragraphs, a named time window beats units that merely repeat
its words, and freshness never overturns a clearly relevant older memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

pytestmark = pytest.mark.models

NOW = datetime(2025, 6, 16, 9, 0, tzinfo=timezone.utc)  # a Monday

WARRANTY = [
    "The Zentrix warranty covers the compressor, the control board and the door seals, and a claim under "
    "the Zentrix warranty needs the receipt, the serial number from the label inside the door and a short "
    "description of the fault sent to the service desk.",
    "Repairs under the Zentrix warranty are done on site by an approved engineer; if a part has to be "
    "ordered, the Zentrix warranty also pays for a loan fridge until the repair is finished.",
    "The Zentrix warranty does not cover damage from moving the appliance, from power surges or from "
    "cleaning products, and opening the back panel yourself ends the Zentrix warranty at once.",
    "Registering the fridge online extends some parts of the Zentrix warranty, and the registration page "
    "also lists which retailers sell the extended Zentrix warranty plan and what it costs per year.",
]
SHORT = "The Zentrix warranty lasts two years."


def test_a_short_exact_answer_ranks_above_longer_related_paragraphs(real_memory):
    for i, text in enumerate(WARRANTY):
        real_memory.put("home", text, event_date=NOW - timedelta(days=3 + i))
    real_memory.put("home", SHORT, event_date=NOW - timedelta(days=30))
    results = real_memory.search("home", "How long does the Zentrix warranty last?", top_k=5, reinforce=False,
                                 now=NOW)
    assert results[0].text == SHORT


def test_a_unit_inside_the_named_window_beats_one_that_repeats_the_window_words(real_memory):
    real_memory.put("me", "Last day at my old job was emotional, the whole team came for the weekend farewell.",
                    event_date=NOW - timedelta(days=200))
    real_memory.put("me", "We went kayaking on the river with Sam and had a picnic.",
                    event_date=datetime(2025, 6, 14, 15, 0, tzinfo=timezone.utc))  # last Saturday
    real_memory.put("me", "Booked the car for its service next month.", event_date=NOW - timedelta(days=20))
    results = real_memory.search("me", "What did we do last weekend?", top_k=3, reinforce=False, now=NOW,
                                 explain=True)
    assert results[0].text.startswith("We went kayaking")
    assert results[0].explanation.factors["in_window"] == 1.0


def test_a_fresh_but_irrelevant_unit_never_outranks_a_clearly_relevant_older_one(real_memory):
    real_memory.put("me", "Ines is allergic to peanuts and carries an EpiPen.", event_date=NOW - timedelta(days=365))
    for i in range(5):
        real_memory.put("me", f"Peanut butter cookies are on offer at the corner shop this week, batch {i}.",
                        event_date=NOW - timedelta(hours=2 + i), importance=0.9)
    results = real_memory.search("me", "What is Ines allergic to?", top_k=3, reinforce=False, now=NOW)
    assert results[0].text.startswith("Ines is allergic to peanuts")
