"""A self-repair supersedes what it repairs: the newer message says "not" of a value the
older one names — a correction, whatever its words and however soon after — with the real models.
"not" before a value the older message does not name, or before no value at all, links nothing."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from fleet_memory.ingest.statements import denies

pytestmark = pytest.mark.models

MORNING = datetime(2025, 6, 3, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(("older", "newer"), [
    ("My desk at the Canal Street office is D12, can you remember that for me?",
     "oops, misread the plan: my desk is D21, not D12."),
    ("Booked the kids' swimming lessons at Hollins Leisure Centre for Saturdays.",
     "Sorry, the swimming lessons are at Ashburn Pool, not Hollins Leisure Centre. Same time."),
])
def test_a_correction_the_same_day_supersedes_what_it_repairs(real_memory, older, newer) -> None:
    real_memory.put("repair", older, event_date=MORNING)
    real_memory.put("repair", newer, event_date=MORNING + timedelta(hours=5))
    [unit] = [u for u in real_memory.list_units("repair", limit=100).units if u.text == older]
    assert unit.valid_until == MORNING + timedelta(hours=5)


@pytest.mark.parametrize(("older", "newer", "expected"), [
    ("Standup is at 9:30 every morning.", "Quick fix to what I said: standup is 9:15, not 9:30.", True),
    ("My physio at Active Rehab wants me to do more squats.", "My physio is at Core Physio, not Active Rehab.", True),
    ("We meet on Tuesdays at the library.", "Let's do Saturday, not Friday.", False),  # Friday was never said
    ("I live in Leeds.", "It's not that bad in Leeds, honestly.", False),  # no value after the "not"
    ("I moved here last year.", "I'm not sure I like it here.", False),
])
def test_a_value_is_denied_only_when_the_older_text_names_it(older, newer, expected) -> None:
    assert denies(older, newer) is expected
