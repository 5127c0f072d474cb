"""Which texts name a changeable slot (ingest/supersede.py): starting a job with a role is an
employer fact; starting at a time or at the gym is not."""

import pytest

from fleet_memory.ingest.supersede import SLOTS


@pytest.mark.parametrize("text, expected", [
    ("Started at the new clinic today as a senior analyst.", True),
    ("She started with Acme as an engineer.", True),
    ("I'm a data analyst at Harlow Logistics.", True),
    ("Started at 6 am at the gym.", False),
    ("Started at the gym today.", False),
])
def test_employer_slot(text, expected):
    assert bool(SLOTS["employer"].search(text)) is expected
