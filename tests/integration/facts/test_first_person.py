"""Whose "I" a first-person fact is about (ingest/change_rule.py ``speaker_key``): the same user's
new home supersedes the old one; another user's, or another speaker's, does not."""

from __future__ import annotations

from datetime import datetime, timezone

AGENT = "people"
JUNE = datetime(2024, 6, 10, tzinfo=timezone.utc)
FEB = datetime(2025, 2, 14, tzinfo=timezone.utc)


def _valid_until(memory, text: str):
    [unit] = [u for u in memory.list_units(AGENT, limit=100).units if text.rstrip(".") in u.text]
    return unit.valid_until


def test_the_same_users_new_home_supersedes_the_old(memory) -> None:
    memory.put(AGENT, "I live in Leeds.", event_date=JUNE, user_id="u1")
    memory.put(AGENT, "I live in Manchester now.", event_date=FEB, user_id="u1")
    assert _valid_until(memory, "I live in Leeds.") == FEB


def test_another_users_home_does_not(memory) -> None:
    memory.put(AGENT, "I live in Leeds.", event_date=JUNE, user_id="u1")
    memory.put(AGENT, "I live in Manchester now.", event_date=FEB, user_id="u2")
    assert _valid_until(memory, "I live in Leeds.") is None
    memory.forget_user(AGENT, "u2")
    assert _valid_until(memory, "I live in Leeds.") is None


def test_another_speakers_home_does_not(memory) -> None:
    # (a named speaker's "I" may be rewritten to the name: "Ana lives in Leeds.")
    memory.put(AGENT, "I live in Leeds.", event_date=JUNE, speaker="Ana")
    memory.put(AGENT, "I live in Manchester now.", event_date=FEB, speaker="Ben")
    assert _valid_until(memory, "in Leeds.") is None
