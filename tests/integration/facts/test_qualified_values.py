"""A phone, an e-mail or a password qualified otherwise is another value held at once, not a new
one (ingest/change_rule.py ``_another_value``): "My work phone is …" leaves "My mobile is …"
current; a new value of the same kind still supersedes the old. With the real models (the
candidates come from the embedder's similarity)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

pytestmark = pytest.mark.models

AGENT = "contacts"
JUNE = datetime(2024, 6, 10, tzinfo=timezone.utc)
FEB = datetime(2025, 2, 14, tzinfo=timezone.utc)


def _valid_until(memory, text: str):
    [unit] = [u for u in memory.list_units(AGENT, limit=100).units if u.text.startswith(text)]
    return unit.valid_until


@pytest.mark.parametrize("first, second, superseded", [
    # qualified otherwise: another value held at once
    ("My mobile is 07700 900111.", "My work phone is 07700 900222, for office hours only.", False),
    ("My personal email is kat@fastmail.com.", "For work, use k.lee@northwind.com.", False),
    # a new value of the same kind
    ("My mobile number is 07700 900123.", "New phone number: 07700 900456, the old one is dead.", True),
    ("Use sam.k@outlook.com for anything personal.", "Personal mail goes to samk@proton.me these days.", True),
])
def test_a_value_qualified_otherwise_is_another_and_a_new_one_supersedes(real_memory, first: str, second: str,
                                                                          superseded: bool) -> None:
    real_memory.put(AGENT, first, event_date=JUNE)
    real_memory.put(AGENT, second, event_date=FEB)
    assert _valid_until(real_memory, first[:12]) == (FEB if superseded else None)
